package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// FailMode is what a host does when mbguard's hook cannot answer: the process crashes or
// cannot start, runs past the host's timeout, or prints a reply the host rejects. "closed"
// refuses the tool call, "open" lets it run. Gate is the mode of the gating event (the
// pre-tool hook) as install leaves it; How says what makes it so, or why it cannot be changed.
type FailMode struct {
	Crash, Timeout, BadReply string
	How                      string
}

// Open reports whether any failure of the gating hook lets the call run.
func (f FailMode) Open() bool {
	return f.Crash != "closed" || f.Timeout != "closed" || f.BadReply != "closed"
}

// String is the one line doctor prints.
func (f FailMode) String() string {
	if f.Crash == f.Timeout && f.Timeout == f.BadReply {
		return "a crash, a timeout or a reply it rejects fails " + f.Crash + " (" + f.How + ")"
	}
	return fmt.Sprintf("a crash fails %s, a timeout %s, a reply it rejects %s (%s)", f.Crash, f.Timeout, f.BadReply, f.How)
}

// replyRules are the hosts' rules for a hook's reply, from HOSTS.md and the hosts' own schemas:
// what each host accepts per event. A reply a host rejects is a failed hook there, and on most
// hosts a failed hook lets the call run, so no reply mbguard renders may break these
// (TestEveryReplyIsOneTheHostAccepts).
var replyRules = map[string]func(event string, r Reply) error{
	"claude":  claudeShapedRule(claudeShapedHost{contextEvents: claudeContextEvents, exit2Blocks: true, postDecision: true}),
	"qwen":    claudeShapedRule(claudeShapedHost{contextEvents: qwenContextEvents, exit2Blocks: true}),
	"droid":   claudeShapedRule(claudeShapedHost{contextEvents: qwenContextEvents, exit2Blocks: true}),
	"codex":   codexRule,
	"gemini":  geminiRule,
	"copilot": copilotRule,
	"crush":   crushRule,
	"cursor":  cursorRule,
}

// AcceptsReply reports why host would reject reply r to event (nil when it accepts it).
func AcceptsReply(host, event string, r Reply) error {
	rule, ok := replyRules[host]
	if !ok {
		return fmt.Errorf("no reply rules for host %q", host)
	}
	return rule(event, r)
}

// replyObject decodes stdout as one JSON object (nil for an empty stdout).
func replyObject(r Reply) (map[string]json.RawMessage, error) {
	s := bytes.TrimSpace(r.Stdout)
	if len(s) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(s, &m); err != nil {
		return nil, fmt.Errorf("stdout is not one JSON object: %v", err)
	}
	return m, nil
}

func keysOf(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// onlyKeys fails when m holds a key outside allowed.
func onlyKeys(m map[string]json.RawMessage, allowed ...string) error {
	for _, k := range keysOf(m) {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("key %q is not one this event takes (%s)", k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func stringField(m map[string]json.RawMessage, k string) (string, bool) {
	raw, ok := m[k]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

type claudeShapedHost struct {
	contextEvents map[string]bool
	exit2Blocks   bool
	postDecision  bool // PostToolUse takes {"decision":"block","reason"}
}

// qwenContextEvents take hookSpecificOutput.additionalContext on Qwen Code and Droid.
var qwenContextEvents = map[string]bool{claudeSessionStart: true, claudePrompt: true, claudePostTool: true, claudePostFailure: true}

// claudeShapedRule checks Claude Code's shape (and Qwen Code's and Droid's, which copy it):
// exit 0 or 2, exit 2 only on a gate and with a reason on stderr, hookSpecificOutput naming the
// event it answers and only on the events that take it, a deny with its reason.
func claudeShapedRule(h claudeShapedHost) func(string, Reply) error {
	return func(event string, r Reply) error {
		switch r.Exit {
		case 0:
		case 2:
			if event != claudePreTool && event != claudePreSkillShell {
				return fmt.Errorf("exit 2 on %s: only a gate refuses by exit code", event)
			}
			if strings.TrimSpace(r.Stderr) == "" {
				return fmt.Errorf("exit 2 with nothing on stderr: the model gets no reason")
			}
		default:
			return fmt.Errorf("exit %d: a hook that fails lets the call run", r.Exit)
		}
		m, err := replyObject(r)
		if err != nil || m == nil {
			return err
		}
		if err := onlyKeys(m, "hookSpecificOutput", "decision", "reason"); err != nil {
			return err
		}
		if d, ok := m["decision"]; ok {
			var s string
			json.Unmarshal(d, &s)
			if !h.postDecision || event != claudePostTool || s != "block" {
				return fmt.Errorf("decision %s on %s", d, event)
			}
			if reason, _ := stringField(m, "reason"); strings.TrimSpace(reason) == "" {
				return fmt.Errorf("decision block without a reason")
			}
		}
		raw, ok := m["hookSpecificOutput"]
		if !ok {
			return nil
		}
		var hso map[string]json.RawMessage
		if err := json.Unmarshal(raw, &hso); err != nil {
			return fmt.Errorf("hookSpecificOutput is not an object: %v", err)
		}
		if name, _ := stringField(hso, "hookEventName"); name != event {
			return fmt.Errorf("hookSpecificOutput.hookEventName %q answers %s", name, event)
		}
		if _, ok := hso["additionalContext"]; ok && !h.contextEvents[event] {
			return fmt.Errorf("additionalContext on %s, which does not take it", event)
		}
		if _, ok := hso["updatedToolOutput"]; ok && event != claudePostTool {
			return fmt.Errorf("updatedToolOutput on %s", event)
		}
		if pd, ok := stringField(hso, "permissionDecision"); ok {
			if event != claudePreTool {
				return fmt.Errorf("permissionDecision on %s", event)
			}
			if pd != "deny" {
				return fmt.Errorf("permissionDecision %q: mbguard only ever refuses", pd)
			}
			if reason, _ := stringField(hso, "permissionDecisionReason"); strings.TrimSpace(reason) == "" {
				return fmt.Errorf("a deny without a reason")
			}
		}
		return onlyKeys(hso, "hookEventName", "additionalContext", "updatedToolOutput", "permissionDecision", "permissionDecisionReason")
	}
}

// codexRule: Codex CLI 0.171.0 treats many replies as a failed hook, and a failed hook lets the
// command run (HOSTS.md §8): a bare allow or ask, decision "approve", continue/suppressOutput/
// stopReason, a deny with an empty reason, exit 2 with an empty stderr, updatedInput,
// updatedMCPToolOutput, hookSpecificOutput on Stop. To allow it wants nothing at all.
func codexRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: Codex takes a refusal as JSON; any failed hook lets the call run", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil || m == nil {
		return err
	}
	if err := onlyKeys(m, "hookSpecificOutput", "decision", "reason"); err != nil {
		return err
	}
	if d, ok := stringField(m, "decision"); ok || m["decision"] != nil {
		if d != "block" || event != codexPostTool {
			return fmt.Errorf("decision %q on %s", d, event)
		}
		if reason, _ := stringField(m, "reason"); strings.TrimSpace(reason) == "" {
			return fmt.Errorf("decision block with an empty reason")
		}
	}
	raw, ok := m["hookSpecificOutput"]
	if !ok {
		return nil
	}
	if event == "Stop" {
		return fmt.Errorf("hookSpecificOutput on Stop")
	}
	var hso map[string]json.RawMessage
	if err := json.Unmarshal(raw, &hso); err != nil {
		return fmt.Errorf("hookSpecificOutput is not an object: %v", err)
	}
	if name, _ := stringField(hso, "hookEventName"); name != event {
		return fmt.Errorf("hookSpecificOutput.hookEventName %q answers %s", name, event)
	}
	if err := onlyKeys(hso, "hookEventName", "additionalContext", "permissionDecision", "permissionDecisionReason"); err != nil {
		return err
	}
	if _, ok := hso["additionalContext"]; ok && !codexContextEvents[event] {
		return fmt.Errorf("additionalContext on %s", event)
	}
	if pd, ok := hso["permissionDecision"]; ok {
		var s string
		json.Unmarshal(pd, &s)
		if event != codexPreTool || s != "deny" {
			return fmt.Errorf("permissionDecision %s on %s: Codex takes only a deny, on PreToolUse", pd, event)
		}
		if reason, _ := stringField(hso, "permissionDecisionReason"); strings.TrimSpace(reason) == "" {
			return fmt.Errorf("a deny with an empty reason")
		}
	}
	return nil
}

// geminiRule: Gemini CLI reads JSON on stdout on every reply; a refusal is {"decision":"deny",
// "reason"} on BeforeTool (and replaces the result on AfterTool); context rides in
// hookSpecificOutput.
func geminiRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: Gemini CLI fails open on exit 1", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("empty stdout: Gemini CLI wants JSON on every reply")
	}
	if err := onlyKeys(m, "hookSpecificOutput", "decision", "reason"); err != nil {
		return err
	}
	if d, ok := m["decision"]; ok {
		var s string
		json.Unmarshal(d, &s)
		if s != "deny" || (event != geminiBeforeTool && event != geminiAfterTool) {
			return fmt.Errorf("decision %s on %s", d, event)
		}
		if reason, _ := stringField(m, "reason"); strings.TrimSpace(reason) == "" {
			return fmt.Errorf("a deny without a reason")
		}
	}
	if raw, ok := m["hookSpecificOutput"]; ok {
		var hso map[string]json.RawMessage
		if err := json.Unmarshal(raw, &hso); err != nil {
			return fmt.Errorf("hookSpecificOutput is not an object: %v", err)
		}
		if name, _ := stringField(hso, "hookEventName"); name != event {
			return fmt.Errorf("hookSpecificOutput.hookEventName %q answers %s", name, event)
		}
		if event == geminiBeforeTool || event == geminiSessionEnd {
			return fmt.Errorf("hookSpecificOutput on %s", event)
		}
		return onlyKeys(hso, "hookEventName", "additionalContext")
	}
	return nil
}

// copilotRule: Copilot CLI reads JSON on stdout on every reply; preToolUse takes
// permissionDecision (the PascalCase dialect also hookSpecificOutput), postToolUse
// modifiedResult, the others additionalContext.
func copilotRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: on Copilot CLI exit 2's reason never reaches the model", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("empty stdout: Copilot CLI wants JSON on every reply")
	}
	if err := onlyKeys(m, "permissionDecision", "permissionDecisionReason", "hookSpecificOutput", "modifiedResult", "additionalContext"); err != nil {
		return err
	}
	pre := strings.EqualFold(event, copilotPreTool)
	if pd, ok := stringField(m, "permissionDecision"); ok {
		if !pre || pd != "deny" {
			return fmt.Errorf("permissionDecision %q on %s", pd, event)
		}
		if reason, _ := stringField(m, "permissionDecisionReason"); strings.TrimSpace(reason) == "" {
			return fmt.Errorf("a deny without a reason")
		}
	}
	if _, ok := m["hookSpecificOutput"]; ok && !(pre && event[0] >= 'A' && event[0] <= 'Z') {
		return fmt.Errorf("hookSpecificOutput on %s", event)
	}
	if raw, ok := m["modifiedResult"]; ok {
		if !strings.EqualFold(event, copilotPostTool) && !strings.EqualFold(event, copilotPostFailure) {
			return fmt.Errorf("modifiedResult on %s", event)
		}
		var mr map[string]json.RawMessage
		if err := json.Unmarshal(raw, &mr); err != nil {
			return fmt.Errorf("modifiedResult is not an object: %v", err)
		}
		if rt, _ := stringField(mr, "resultType"); rt != "success" && rt != "failure" {
			return fmt.Errorf("modifiedResult.resultType %q", rt)
		}
	}
	return nil
}

// crushRule: Crush's one event, PreToolUse: {"decision":"deny","reason"} refuses, {"context"}
// appends to the result; exit 1 fails open.
func crushRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: mbguard refuses on Crush with JSON", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil || m == nil {
		return err
	}
	if err := onlyKeys(m, "decision", "reason", "context"); err != nil {
		return err
	}
	if d, ok := m["decision"]; ok {
		var s string
		json.Unmarshal(d, &s)
		if s != "deny" {
			return fmt.Errorf("decision %s", d)
		}
		if reason, _ := stringField(m, "reason"); strings.TrimSpace(reason) == "" {
			return fmt.Errorf("a deny without a reason")
		}
	}
	return nil
}

// cursorRule: Cursor wants a JSON object on every path (an empty stdout is no answer); the
// "before" events answer {"permission"} (beforeReadFile nothing else), beforeSubmitPrompt
// {"continue"}, postToolUse and sessionStart {"additional_context"}, the rest {}.
func cursorRule(event string, r Reply) error {
	if r.Exit != 0 {
		return fmt.Errorf("exit %d: Cursor takes the decision as JSON with exit 0", r.Exit)
	}
	m, err := replyObject(r)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("empty stdout: Cursor wants JSON on every reply")
	}
	var allowed []string
	switch event {
	case cursorPreTool, cursorPreShell:
		allowed = []string{"permission", "user_message", "agent_message"}
	case cursorReadFile:
		allowed = []string{"permission"}
	case cursorPrompt:
		allowed = []string{"continue"}
	case cursorPostTool, cursorPostFailure, cursorSessionStart:
		allowed = []string{"additional_context"}
	}
	if err := onlyKeys(m, allowed...); err != nil {
		return err
	}
	if slices.Contains(allowed, "permission") {
		p, _ := stringField(m, "permission")
		if p != "allow" && p != "deny" {
			return fmt.Errorf("permission %q on %s: want allow or deny", p, event)
		}
		if p == "deny" && event != cursorReadFile {
			if msg, _ := stringField(m, "agent_message"); strings.TrimSpace(msg) == "" {
				return fmt.Errorf("a deny without agent_message: the model gets no reason")
			}
		}
	}
	return nil
}
