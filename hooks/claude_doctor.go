package hooks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// claudeHookTypes are the hook types Claude Code's settings schema accepts.
var claudeHookTypes = []string{"command", "prompt", "agent", "http", "mcp_tool"}

// ClaudeHookProblems lists every hook entry of a Claude Code settings file that does not fit
// Claude Code's schema, each as "hooks.<event>[i].hooks[j]: why". Claude Code drops a settings
// file whose hooks do not validate — mbguard's entries in it included — so one malformed
// entry someone else wrote switches mbguard off without a word. A file that is not JSON is
// reported by the caller.
func ClaudeHookProblems(settings []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(settings, &top) != nil {
		return nil
	}
	raw, ok := top["hooks"]
	if !ok {
		return nil
	}
	var events map[string]json.RawMessage
	if json.Unmarshal(raw, &events) != nil {
		return []string{`"hooks" is not an object`}
	}
	var out []string
	for _, ev := range sortedKeys(events) {
		var groups []json.RawMessage
		if json.Unmarshal(events[ev], &groups) != nil {
			out = append(out, fmt.Sprintf("hooks.%s: not a list of matcher groups", ev))
			continue
		}
		for i, g := range groups {
			at := fmt.Sprintf("hooks.%s[%d]", ev, i)
			var grp map[string]json.RawMessage
			if json.Unmarshal(g, &grp) != nil {
				out = append(out, at+": not an object")
				continue
			}
			if m, ok := grp["matcher"]; ok {
				var s string
				if json.Unmarshal(m, &s) != nil {
					out = append(out, at+`: "matcher" is not a string`)
				}
			}
			var hooks []json.RawMessage
			if json.Unmarshal(grp["hooks"], &hooks) != nil || grp["hooks"] == nil {
				out = append(out, at+`: "hooks" is not a list`)
				continue
			}
			for j, h := range hooks {
				if why := claudeHookProblem(h); why != "" {
					out = append(out, fmt.Sprintf("%s.hooks[%d]: %s", at, j, why))
				}
			}
		}
	}
	return out
}

func claudeHookProblem(raw json.RawMessage) string {
	var h map[string]any
	if json.Unmarshal(raw, &h) != nil {
		return "not an object"
	}
	typ, _ := h["type"].(string)
	if !slices.Contains(claudeHookTypes, typ) {
		return fmt.Sprintf(`"type" is %s, want one of %v`, describeJSON(h["type"]), claudeHookTypes)
	}
	if typ == "command" {
		if c, ok := h["command"].(string); !ok || c == "" {
			return `"command" is missing or not a string`
		}
	}
	if v, ok := h["timeout"]; ok {
		if n, isNum := v.(float64); !isNum || n <= 0 {
			return `"timeout" is not a positive number`
		}
	}
	if v, ok := h["onFailure"]; ok && v != "block" && v != "continue" {
		return `"onFailure" is not "block" or "continue"`
	}
	return ""
}

func describeJSON(v any) string {
	if v == nil {
		return "missing"
	}
	b, _ := json.Marshal(v)
	if len(b) > 40 {
		b = append(b[:40], "…"...)
	}
	return string(b)
}

// ClaudeEventsWithout lists the events of ClaudeEvents that no "hook claude" command in any
// of the given settings files handles: hooks installed by an older mbguard (before
// SubagentStart, say) leave those windows unmarked until install runs again.
func ClaudeEventsWithout(settings ...[]byte) []string {
	have := map[string]bool{}
	eachClaudeHook(settings, func(ev string, h claudeHook) {
		if strings.Contains(h.Command, "hook claude") || ourHTTPHook(h) {
			have[ev] = true
		}
	})
	var out []string
	for _, ev := range ClaudeEvents {
		if !have[ev] {
			out = append(out, ev)
		}
	}
	return out
}

// ClaudeHTTPPort is the port of the watcher mbguard's http hooks in settings POST to (0 when
// they run as processes).
func ClaudeHTTPPort(settings ...[]byte) int {
	port := 0
	eachClaudeHook(settings, func(_ string, h claudeHook) {
		if port != 0 || !ourHTTPHook(h) {
			return
		}
		hostPort, _, _ := strings.Cut(strings.TrimPrefix(h.URL, "http://"), "/")
		if _, p, ok := strings.Cut(hostPort, ":"); ok {
			port, _ = strconv.Atoi(p)
		}
	})
	return port
}

// eachClaudeHook calls f with every hook of every event in the settings files that parse.
func eachClaudeHook(settings [][]byte, f func(event string, h claudeHook)) {
	for _, b := range settings {
		var s struct {
			Hooks map[string][]claudeGroup `json:"hooks"`
		}
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		for ev, groups := range s.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					f(ev, h)
				}
			}
		}
	}
}
