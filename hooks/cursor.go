package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mbguard/mbguard/host"
)

// Cursor hook events mbguard acts on (.cursor/hooks.json version 1; docs/hosts/cursor.md
// says which published schema each field comes from). Cursor has no headless binary here, so
// these are read from its schema, not captured from a run.
const (
	cursorSessionStart = "sessionStart"
	cursorPrompt       = "beforeSubmitPrompt"
	cursorPreTool      = "preToolUse"
	cursorPostTool     = "postToolUse"
	cursorPostFailure  = "postToolUseFailure"
	cursorPreShell     = "beforeShellExecution"
	cursorPostShell    = "afterShellExecution"
	cursorReadFile     = "beforeReadFile"
	cursorAfterEdit    = "afterFileEdit"
	cursorPreCompact   = "preCompact"
	cursorStop         = "stop"
	cursorSessionEnd   = "sessionEnd"
)

// CursorEvents are the hook events `mbguard install --agent cursor` registers. Shell commands
// are gated at beforeShellExecution and checked at afterShellExecution (the pair every Cursor
// with hooks sends, with the command in both); reads count at beforeReadFile; every other tool
// goes through preToolUse/postToolUse. afterFileEdit, which every Cursor with hooks sends after
// an edit of its own, closes the session's open windows: a write whose postToolUse never comes
// (a timeout, a Cursor that sends none) is still checked after it landed.
var CursorEvents = host.Get("cursor").Events

// cursorGates are the events whose reply is a permission: their entries fail closed
// (failClosed), so a crash or timeout of mbguard refuses the action instead of letting it run
// (host.Spec.Gates).
var cursorGates = host.Get("cursor").Gates

type cursorPayload struct {
	HookEventName  string          `json:"hook_event_name"`
	ConversationID string          `json:"conversation_id"`
	GenerationID   string          `json:"generation_id"`
	SessionID      string          `json:"session_id"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Cwd            string          `json:"cwd"`
	ToolName       string          `json:"tool_name"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolOutput     json.RawMessage `json:"tool_output"`
	Command        string          `json:"command"` // beforeShellExecution, afterShellExecution
	Output         string          `json:"output"`  // afterShellExecution
	FilePath       string          `json:"file_path"`
	Prompt         string          `json:"prompt"`
}

// cursorProto is Cursor's hook protocol: camelCase events named in the payload, the
// conversation as the session, a permission object as the reply to every "before" event.
type cursorProto struct{}

func (cursorProto) parse(payload []byte, event string) (hookCall, error) {
	var p cursorPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		ev := sniffString(payload, "hook_event_name")
		if ev == "" {
			ev = event
		}
		c := hookCall{Event: ev, Kind: cursorKind(ev), Session: sniffString(payload, "conversation_id"), Cwd: sniffString(payload, "cwd")}
		if c.Session == "" {
			c.Session = sniffString(payload, "session_id")
		}
		switch ev {
		case cursorPreShell:
			c.Tool = "Bash"
		case cursorReadFile:
			c.Tool = "Read"
		default:
			c.Tool = cursorToolName(sniffString(payload, "tool_name"))
		}
		return c, fmt.Errorf("the hook payload is not valid JSON (%v)", shortErr(err))
	}
	if p.HookEventName == "" {
		p.HookEventName = event
	}
	c := hookCall{Event: p.HookEventName, Kind: cursorKind(p.HookEventName), Session: p.ConversationID, Cwd: p.Cwd}
	if c.Session == "" {
		c.Session = p.SessionID
	}
	if c.Cwd == "" && len(p.WorkspaceRoots) > 0 {
		c.Cwd = p.WorkspaceRoots[0]
	}
	if p.GenerationID != "" {
		// the generation changes with every user message and only then
		c.MessageID = "cursor-" + p.GenerationID
	}
	switch p.HookEventName {
	case "":
		c.Kind = callPreTool
		c.Tool = cursorToolName(p.ToolName)
		return c, errors.New(`the hook payload has no "hook_event_name"`)
	case cursorPrompt:
		c.Prompt = p.Prompt
		// beforeSubmitPrompt can only let the prompt go or stop it: what mbguard has for the
		// model waits for the next event that reaches it
		c.Defer = true
	case cursorAfterEdit:
		c.Ran = true // sent only after an edit landed: the windows it closes ran
	case cursorPreCompact:
		c.Defer = true // preCompact's reply reaches the user only
	case cursorPreShell, cursorPostShell:
		if p.Command == "" {
			c.ArgsErr = `the hook payload has no "command"`
		}
		c.Tool, c.Args = "Bash", map[string]any{"command": p.Command}
		if p.HookEventName == cursorPostShell {
			c.Output = p.Output
			// afterShellExecution takes no reply: an undo waits for the next event that can tell
			c.Defer = true
		}
	case cursorReadFile:
		if p.FilePath == "" {
			c.ArgsErr = `the hook payload has no "file_path"`
		}
		c.Tool, c.Args = "Read", map[string]any{"file_path": p.FilePath}
		// there is no event after a read: it counts once it is allowed, and a secret in the
		// bank file it reads is told then (readSecrets); the reply is a permission only, so a
		// note for the model waits for the next event that reaches it
		c.PreIsPost, c.NoPost, c.Defer = true, true, true
	case cursorPreTool, cursorPostTool, cursorPostFailure:
		args, bad := objectArgs(p.ToolInput, "tool_input")
		c.ArgsErr = bad
		c.Tool, c.Args = cursorTool(p.ToolName, args)
		c.Call = p.ToolUseID
		if own := cursorToolName(p.ToolName); own == "Bash" || own == "Read" {
			// gated at beforeShellExecution/afterShellExecution and counted at beforeReadFile,
			// which carry the command and the path on every version with hooks
			c.Kind = callOther
			return c, nil
		}
		if c.Kind == callPostTool {
			c.Failed = p.HookEventName == cursorPostFailure
			var s string
			if json.Unmarshal(p.ToolOutput, &s) == nil {
				c.Output = s
			} else {
				c.Output = string(p.ToolOutput)
			}
		}
	}
	return c, nil
}

func cursorKind(event string) callKind {
	switch event {
	case cursorSessionStart:
		return callStart
	case cursorPrompt:
		return callPrompt
	case cursorPreTool, cursorPreShell, cursorReadFile:
		return callPreTool
	case cursorPostTool, cursorPostFailure, cursorPostShell:
		return callPostTool
	case cursorPreCompact:
		return callCompact
	case cursorStop:
		return callClose // the agent loop ended: no call of this turn is still running
	case cursorAfterEdit:
		return callClose // an edit landed: the windows open before it are judged now
	case cursorSessionEnd:
		return callEnd
	}
	return callOther
}

// cursorToolName maps Cursor's agent tools onto the engine's names: Shell is the shell,
// StrReplace an exact-string edit, Delete a removal (judged as `rm`); Grep, Glob, LS and
// Task are already the engine's read-only names.
func cursorToolName(name string) string {
	switch name {
	case "Shell", "run_terminal_cmd":
		return "Bash"
	case "Read", "read_file":
		return "Read"
	case "StrReplace", "search_replace":
		return "Edit"
	case "edit_file":
		return "Edit"
	case "Delete", "delete_file":
		return "Delete"
	}
	return name
}

// cursorTool maps a preToolUse/postToolUse tool and its input onto the engine's vocabulary.
func cursorTool(name string, args map[string]any) (string, map[string]any) {
	tool := cursorToolName(name)
	if args == nil {
		return tool, nil
	}
	path := func() string {
		for _, k := range []string{"file_path", "path", "target_file", "filePath"} {
			if s, ok := args[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	switch tool {
	case "Write", "Edit", "MultiEdit":
		if p := path(); p != "" {
			args["file_path"] = p
		}
		if _, ok := args["content"]; !ok {
			if s, ok := args["contents"].(string); ok {
				args["content"] = s
			}
		}
	case "Delete":
		// the engine has no delete tool; the shell classifier judges a removal exactly
		p := path()
		if p == "" {
			return "Bash", nil // nothing to judge by: a write of unknown target
		}
		return "Bash", map[string]any{"command": "rm -f -- '" + strings.ReplaceAll(p, "'", `'\''`) + "'"}
	}
	return tool, args
}

// render: every "before" event gets {"permission": …} (Cursor wants JSON on stdout; a refusal
// carries user_message for the person and agent_message for the model; beforeReadFile's reply
// is the permission alone); postToolUse carries {"additional_context"} next to the tool's
// result, the one channel to the model after a call; sessionStart the same; exit 0 always.
func (cursorProto) render(c *hookCall, a *hookAnswer) Reply {
	r := Reply{Event: c.Event, Decision: a.Decision, Stderr: a.Stderr, Context: a.Context, Note: a.Note}
	out := map[string]any{}
	switch c.Kind {
	case callPreTool:
		out["permission"] = "allow"
		switch {
		case a.Deny != "" && c.Event == cursorReadFile:
			out["permission"] = "deny"
		case a.Deny != "":
			out["permission"], out["user_message"], out["agent_message"] = "deny", a.Deny, a.Deny
		case a.Context != "" && c.Event != cursorReadFile:
			out["agent_message"] = a.Context
		}
	case callPrompt:
		out["continue"] = true
	case callPostTool:
		if text := joinText(a.Undone, a.Context); text != "" && c.Event != cursorPostShell {
			out["additional_context"] = text
		}
	case callStart:
		if a.Context != "" {
			out["additional_context"] = a.Context
		}
	}
	r.Stdout = encodeJSON(out)
	return r
}

type cursorHook struct {
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"` // seconds
	// FailClosed makes a hook that crashes, times out or prints no valid reply refuse the
	// action (Cursor's default is to let it run).
	FailClosed bool `json:"failClosed,omitempty"`
}

// InstallCursor merges `<binary> hook cursor <event>` into .cursor/hooks.json (version 1, one
// entry per event in CursorEvents, no matcher: every tool), keeping the user's entries (see
// installHookFile). The event on the command line lets a reply in the event's own shape go out
// even when the payload cannot be read; the gating entries fail closed.
func InstallCursor(o InstallOptions) ([]Change, error) {
	return installHookFile(o, hookFile{
		host: "cursor",
		base: map[string]json.RawMessage{"version": json.RawMessage(`1`)},
		entry: func(event string) json.RawMessage {
			b, _ := json.Marshal(cursorHook{Command: o.hookCommand("cursor", event), Timeout: 30, FailClosed: slices.Contains(cursorGates, event)})
			return b
		},
		ours: func(raw json.RawMessage) bool {
			var h cursorHook
			if json.Unmarshal(raw, &h) != nil {
				return false
			}
			c := strings.TrimSpace(h.Command)
			// `… hook cursor` (older installs) or `… hook cursor <event>`
			if i := strings.LastIndex(c, " hook cursor"); i >= 0 && strings.Contains(c[:i], "mbguard") {
				rest := strings.TrimSpace(c[i+len(" hook cursor"):])
				return rest == "" || !strings.ContainsAny(rest, " \t;|&")
			}
			return false
		},
	})
}
