package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/host"
)

// Augment Auggie's hook events (docs/hosts/auggie.md; verified with @augmentcode/auggie 0.36.0
// headless). Claude Code's shape, but the prompt event is PromptSubmit and no payload carries
// a cwd or a session_id: the workspace is workspace_roots[0], the session conversation_id.
const (
	auggieSessionStart = "SessionStart"
	auggiePrompt       = "PromptSubmit"
	auggiePreTool      = "PreToolUse"
	auggiePostTool     = "PostToolUse"
	auggieStop         = "Stop"
	auggieSessionEnd   = "SessionEnd"
)

// AuggieEvents are the hook events `mbguard install --agent auggie` registers; all six fired
// under `auggie --print` 0.36.0.
var AuggieEvents = host.Get("auggie").Events

// auggieTimeoutMS is the hook timeout install writes: Auggie reads it in milliseconds, and a
// hook that runs past it lets the call through.
const auggieTimeoutMS = 30000

// auggieProto is Auggie's hook protocol: Claude Code's replies as Qwen Code reads them — a
// refusal is exit 2 with the reason on stderr (the model gets the stderr); after a call only
// hookSpecificOutput.additionalContext reaches the model, appended to the tool's result. What
// SessionStart and PromptSubmit print is dropped, so what mbguard has for the model then
// (MEMORY.md's block included) waits for the first PostToolUse.
type auggieProto struct{}

// auggiePayload is the JSON Auggie sends on stdin.
type auggiePayload struct {
	HookEventName  string          `json:"hook_event_name"`
	ConversationID string          `json:"conversation_id"`
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolOutput     json.RawMessage `json:"tool_output"`
	ToolError      json.RawMessage `json:"tool_error"`
	UserPrompt     string          `json:"user_prompt"`
}

func (auggieProto) parse(payload []byte, event string) (hookCall, error) {
	var p auggiePayload
	if err := json.Unmarshal(payload, &p); err != nil {
		c := hookCall{Event: sniffString(payload, "hook_event_name"), Session: sniffString(payload, "conversation_id"),
			Cwd: sniffString(payload, "cwd"), Tool: sniffString(payload, "tool_name")}
		if c.Event == "" {
			c.Event = event
		}
		c.Kind = auggieKind(c.Event)
		c.Tool, _ = auggieTool(c.Tool, nil)
		return c, fmt.Errorf("the hook payload is not valid JSON (%v)", shortErr(err))
	}
	if p.HookEventName == "" {
		p.HookEventName = event
	}
	c := hookCall{Event: p.HookEventName, Kind: auggieKind(p.HookEventName), Session: p.ConversationID, Cwd: p.Cwd, Prompt: p.UserPrompt}
	if c.Session == "" {
		c.Session = p.SessionID
	}
	if c.Cwd == "" && len(p.WorkspaceRoots) > 0 {
		c.Cwd = p.WorkspaceRoots[0]
	}
	switch c.Kind {
	case callStart, callPrompt, callPreTool:
		// nothing Auggie's model reads comes of these replies but a refusal: the rest waits
		// for the next PostToolUse (a refused call gets none)
		c.Defer, c.DenyTold = true, c.Kind == callPreTool
	case callOther:
		if p.HookEventName == "" {
			c.Kind = callPreTool
			c.Tool, _ = auggieTool(p.ToolName, nil)
			return c, errors.New(`the hook payload has no "hook_event_name"`)
		}
	}
	auggieToolCall(&c, &p)
	return c, nil
}

// auggieToolCall fills in a tool event's call: the tool and its arguments in the engine's
// vocabulary and, after the call, its output and whether it failed.
func auggieToolCall(c *hookCall, p *auggiePayload) {
	if c.Kind != callPreTool && c.Kind != callPostTool {
		return
	}
	args, bad := objectArgs(p.ToolInput, "tool_input")
	c.ArgsErr = bad
	c.Tool, c.Args = auggieTool(p.ToolName, args)
	if c.Kind == callPostTool {
		var s string
		if json.Unmarshal(p.ToolOutput, &s) == nil {
			c.Output = s
		}
		e := strings.TrimSpace(string(p.ToolError))
		c.Failed = e != "" && e != "null" && e != `""`
	}
}

func auggieKind(event string) callKind {
	switch event {
	case auggieSessionStart:
		return callStart
	case auggiePrompt:
		return callPrompt
	case auggiePreTool:
		return callPreTool
	case auggiePostTool:
		return callPostTool
	case auggieStop:
		return callClose // the agent loop ended: no call of this turn is still running
	case auggieSessionEnd:
		return callEnd
	}
	return callOther
}

// render: a refusal is exit 2 with the reason on stderr; after a call an undo and context go in
// hookSpecificOutput.additionalContext, which Auggie appends to the tool's result. No other
// event's stdout reaches the model (parse defers what they have to the next PostToolUse).
func (auggieProto) render(c *hookCall, a *hookAnswer) Reply {
	r := Reply{Event: c.Event, Decision: a.Decision, Stderr: a.Stderr, Context: a.Context, Note: a.Note}
	switch {
	case a.Deny != "" && c.Kind == callPreTool:
		r.Exit = 2
		r.Stderr += a.Deny + "\n"
	case c.Kind == callPostTool && (a.Undone != "" || a.Context != ""):
		r.Stdout = encodeJSON(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": c.Event, "additionalContext": joinText(a.Undone, a.Context)}})
	}
	return r
}

// auggieTool maps Auggie's tools onto the engine's names: save-file {path, file_content} is a
// Write, str-replace-editor an edit (every old_str_N/new_str_N pair, or the inserted lines), view
// a Read, launch-process {command, cwd} the shell, remove-files a removal (judged as `rm`);
// apply_patch is already the engine's. Paths are relative to the workspace root, the call's Cwd.
func auggieTool(name string, args map[string]any) (string, map[string]any) {
	switch name {
	case "save-file":
		if args != nil {
			args["file_path"], args["content"] = args["path"], args["file_content"]
		}
		return "Write", args
	case "str-replace-editor":
		if args == nil {
			return "MultiEdit", nil
		}
		return "MultiEdit", map[string]any{"file_path": args["path"], "edits": auggieEdits(args)}
	case "view":
		if args != nil {
			if t, _ := args["type"].(string); t == "directory" {
				return "LS", args
			}
			args["file_path"] = args["path"]
		}
		return "Read", args
	case "launch-process":
		if args != nil {
			if d, ok := args["cwd"].(string); ok && d != "" {
				args["workdir"] = d
			}
		}
		return "Bash", args
	case "remove-files":
		return auggieRemove(args)
	}
	return name, args
}

// auggieEdits are str-replace-editor's edits in MultiEdit's shape: old_str_N/new_str_N for
// str_replace, and each insert_line_entries' new_str as an insertion.
func auggieEdits(args map[string]any) []any {
	var edits []any
	for i := 1; ; i++ {
		old, okOld := args[fmt.Sprintf("old_str_%d", i)]
		nw, okNew := args[fmt.Sprintf("new_str_%d", i)]
		if !okOld && !okNew {
			break
		}
		edits = append(edits, map[string]any{"old_string": old, "new_string": nw})
	}
	if entries, ok := args["str_replace_entries"].([]any); ok {
		for _, e := range entries {
			if m, ok := e.(map[string]any); ok {
				edits = append(edits, map[string]any{"old_string": m["old_str"], "new_string": m["new_str"]})
			}
		}
	}
	if entries, ok := args["insert_line_entries"].([]any); ok {
		for _, e := range entries {
			if m, ok := e.(map[string]any); ok {
				edits = append(edits, map[string]any{"old_string": "", "new_string": m["new_str"]})
			}
		}
	}
	return edits
}

// auggieRemove judges remove-files as the shell's `rm` of each path: the engine has no
// removal tool, and the shell classifier judges a removal exactly.
func auggieRemove(args map[string]any) (string, map[string]any) {
	list, _ := args["file_paths"].([]any)
	var quoted []string
	for _, p := range list {
		s, ok := p.(string)
		if !ok || s == "" {
			return "Bash", nil // nothing to judge by: a write of unknown target
		}
		quoted = append(quoted, "'"+strings.ReplaceAll(s, "'", `'\''`)+"'")
	}
	if len(quoted) == 0 {
		return "Bash", nil
	}
	return "Bash", map[string]any{"command": "rm -f -- " + strings.Join(quoted, " ")}
}

// AuggieRulePath is the rule file install writes: Auggie puts every .md of .augment/rules/
// whose front matter says type: always_apply (and every one of ~/.augment/rules/) into each
// request to the model.
func AuggieRulePath(o InstallOptions) string {
	if o.Global {
		return filepath.Join(o.Home, ".augment", "rules", auggieRuleName)
	}
	return filepath.Join(o.Root, ".augment", "rules", auggieRuleName)
}

const auggieRuleName = "mbguard-memory-bank.md"

// auggieRuleMarker is the line that says mbguard wrote the rule file.
const auggieRuleMarker = "<!-- written by mbguard install --agent auggie; mbguard install --agent auggie --uninstall removes it -->"

// auggieRule is the rule: Auggie shows its model nothing a session-start hook prints, so the
// rule is what makes the agent read the bank before it works.
const auggieRule = `---
type: always_apply
description: Memory bank protocol, kept by mbguard
---
` + auggieRuleMarker + `

# Memory bank

This project keeps its memory in memory-bank/ (guarded by mbguard).

- Before any other work in a session, read memory-bank/MEMORY.md with the view tool, then the
  files under memory-bank/details/ it points to for the task at hand.
- Write to memory-bank/ only .md files, with save-file or str-replace-editor; never from a
  shell command. mbguard refuses other writes and undoes what a command changed there.
- Never copy a secret (a token, a key, a password) into memory-bank/.
`

// InstallAuggie merges `<binary> hook auggie` into the "hooks" of Auggie's settings.json for
// each event in AuggieEvents (Claude Code's shape; the timeout in milliseconds; matcher ".*", a
// regular expression, on tool events), keeping the user's settings and hooks, and writes the
// always-applied rule file that tells the agent to read the bank.
func InstallAuggie(o InstallOptions) ([]Change, error) {
	command := o.hookCommand("auggie")
	changes, err := installHookFile(o, hookFile{
		host: "auggie",
		entry: func(ev string) json.RawMessage {
			return auggieGroup(command, ev == auggiePreTool || ev == auggiePostTool)
		},
		ours: func(raw json.RawMessage) bool { return isOurGroup(raw, " hook auggie") },
	})
	if err != nil {
		return changes, err
	}
	rule, err := installAuggieRule(o)
	return append(changes, rule...), err
}

func auggieGroup(command string, toolEvent bool) json.RawMessage {
	g := claudeGroup{Hooks: []claudeHook{{Type: "command", Command: command, Timeout: auggieTimeoutMS}}}
	if toolEvent {
		all := ".*" // Auggie's matcher is a regular expression: Claude Code's "*" is not one
		g.Matcher = &all
	}
	b, _ := json.Marshal(g)
	return b
}

// installAuggieRule writes (or with Uninstall removes) the rule file; a file of that name
// mbguard did not write is left alone.
func installAuggieRule(o InstallOptions) ([]Change, error) {
	path := AuggieRulePath(o)
	show := displayPath(o.Root, path)
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", show, err)
	}
	if exists && !strings.Contains(string(old), auggieRuleMarker) {
		return []Change{{Path: show, Action: "skipped", Note: "not written by mbguard; left in place"}}, nil
	}
	switch {
	case o.Uninstall && !exists:
		return nil, nil
	case o.Uninstall:
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing %s: %w", show, err)
		}
		return []Change{{Path: show, Action: "removed"}}, nil
	case string(old) == auggieRule:
		return []Change{{Path: show, Action: "unchanged"}}, nil
	}
	if err := putFile(path, show, []byte(auggieRule), 0o644, false); err != nil {
		return nil, err
	}
	if exists {
		return []Change{{Path: show, Action: "updated"}}, nil
	}
	return []Change{{Path: show, Action: "created", Note: "the rule Auggie gives its model: read memory-bank/MEMORY.md first"}}, nil
}
