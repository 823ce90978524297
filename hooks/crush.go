package hooks

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/host"
)

// crushPreTool is Crush's one hook event (HOSTS.md §7): no post-tool, prompt, session or
// compaction event, so a read counts when its PreToolUse is allowed and there is no recovery
// gate.
const crushPreTool = "PreToolUse"

// CrushEvents are the hook events `mbguard install --agent crush` registers.
var CrushEvents = host.Get("crush").Events

type crushPayload struct {
	Event     string          `json:"event"`
	SessionID string          `json:"session_id"`
	Cwd       string          `json:"cwd"`
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// crushProto is Crush's hook protocol.
type crushProto struct{}

func (crushProto) parse(payload []byte, event string) (hookCall, error) {
	var p crushPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		c := hookCall{Event: crushPreTool, Kind: callPreTool, Session: sniffString(payload, "session_id"),
			Cwd: sniffString(payload, "cwd"), Tool: crushToolName(sniffString(payload, "tool_name"))}
		return c, fmt.Errorf("the hook payload is not valid JSON (%v)", shortErr(err))
	}
	if p.Event == "" {
		p.Event = event
	}
	c := hookCall{Event: p.Event, Session: p.SessionID, Cwd: p.Cwd}
	if p.Event != crushPreTool {
		if p.Event == "" {
			c.Kind, c.Tool = callPreTool, crushToolName(p.ToolName)
			return c, errors.New(`the hook payload has no "event"`)
		}
		return c, nil // callOther
	}
	c.Kind = callPreTool
	args, bad := objectArgs(p.ToolInput, "tool_input")
	c.ArgsErr = bad
	c.Tool, c.Args = crushTool(p.ToolName, args)
	// No post event: a read counts once it is allowed.
	c.PreIsPost = gating.ClassifyTool(c.Tool) == gating.ClassRead
	c.NoPost = true
	return c, nil
}

// crushToolName maps Crush's tools onto the engine's names: view reads, bash is the shell;
// write, edit and multiedit already are the engine's.
func crushToolName(name string) string {
	switch name {
	case "view":
		return "Read"
	case "bash":
		return "Bash"
	}
	return name
}

func crushTool(name string, args map[string]any) (string, map[string]any) {
	tool := crushToolName(name)
	if args != nil && tool == "Bash" {
		if wd, ok := args["working_dir"].(string); ok && wd != "" {
			args["workdir"] = wd
		}
	}
	return tool, args
}

// render: a refusal is {"decision":"deny","reason"} with exit 0 (the model gets "Tool call
// blocked by hook. Reason: …"); anything else for the model is {"context": …}, which Crush
// appends to the call's result. Exit 1 would fail open, so it is never used.
func (crushProto) render(c *hookCall, a *hookAnswer) Reply {
	r := Reply{Event: c.Event, Decision: a.Decision, Stderr: a.Stderr, Context: a.Context, Note: a.Note}
	switch {
	case a.Deny != "" && c.Kind == callPreTool:
		r.Stdout = encodeJSON(map[string]any{"decision": "deny", "reason": a.Deny})
	case a.Context != "" || a.Undone != "":
		r.Stdout = encodeJSON(map[string]any{"context": joinText(a.Undone, a.Context)})
	}
	return r
}

type crushHook struct {
	Name    string `json:"name"`
	Matcher string `json:"matcher"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"` // seconds
}

// InstallCrush merges `<binary> hook crush` into crush.json's hooks.PreToolUse (matcher "":
// every tool), keeping the user's settings and hooks (see installHookFile), and points
// options.context_paths at the MEMORY.md view mbguard keeps (see refreshCrushContext).
func InstallCrush(o InstallOptions) ([]Change, error) {
	command := o.hookCommand("crush")
	changes, err := installHookFile(o, hookFile{
		host: "crush",
		entry: func(string) json.RawMessage {
			b, _ := json.Marshal(crushHook{Name: "mbguard", Command: command, Timeout: 30})
			return b
		},
		ours: func(raw json.RawMessage) bool {
			var h crushHook
			return json.Unmarshal(raw, &h) == nil && isOurCommand(h.Command, " hook crush")
		},
	})
	if err != nil {
		return changes, err
	}
	more, err := crushContextPaths(o)
	return append(changes, more...), err
}
