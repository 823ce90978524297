package hooks

import (
	"encoding/json"

	"github.com/mbguard/mbguard/host"
)

// DroidEvents are the hook events `mbguard install --agent droid` registers (Factory Droid
// CLI, Claude Code's names and shape; docs/hosts/droid.md). Headless `droid exec` 0.225.2 fired
// SessionStart, PreToolUse, PostToolUse, Stop and SessionEnd; UserPromptSubmit and PreCompact
// are registered for interactive sessions.
var DroidEvents = host.Get("droid").Events

// droidToolEvents take a tool-name matcher.
var droidToolEvents = map[string]bool{claudePreTool: true, claudePostTool: true}

// droidProto is Factory Droid's hook protocol: Claude Code's payloads (no tool_use_id) with
// Droid's tool names, and Qwen Code's replies — a refusal is exit 2 with the reason on stderr
// (the model gets "Error: <reason>"); after a call only hookSpecificOutput.additionalContext
// reaches the model (PostToolUse's decision/reason does not, verified), so an undo is told
// there.
type droidProto struct{}

func (droidProto) parse(payload []byte, event string) (hookCall, error) {
	c, err := claudeProto{}.parse(payload, event)
	c.Tool, c.Args = droidTool(c.Tool, c.Args)
	if c.Kind == callPreTool {
		// a warning before a tool waits for the call's PostToolUse, which the model reads
		c.Defer = true
	}
	if c.Kind == callPostTool {
		c.ReadPath = "" // Droid's tool_response is the tool's text, not Claude's object
	}
	return c, err
}

func (droidProto) render(c *hookCall, a *hookAnswer) Reply { return qwenProto{}.render(c, a) }

// droidTool maps Droid's tools onto the engine's names: Create writes a file, Execute is the
// shell, Edit takes old_str/new_str/change_all; Read, LS, Grep, Glob and Task are already the
// engine's.
func droidTool(name string, args map[string]any) (string, map[string]any) {
	switch name {
	case "Create":
		name = "Write"
	case "Execute":
		name = "Bash"
	case "ApplyPatch":
		name = "apply_patch"
	}
	if args == nil {
		return name, nil
	}
	if name == "Edit" {
		for from, to := range map[string]string{"old_str": "old_string", "new_str": "new_string", "change_all": "replace_all"} {
			if v, ok := args[from]; ok {
				if _, has := args[to]; !has {
					args[to] = v
				}
			}
		}
	}
	return name, args
}

// InstallDroid merges `<binary> hook droid` into the "hooks" of Droid's settings.json for each
// event in DroidEvents (Claude Code's shape, timeout in seconds, matcher "*" on tool events),
// keeping the user's settings (custom models included) and hooks (see installHookFile).
func InstallDroid(o InstallOptions) ([]Change, error) {
	command := o.hookCommand("droid")
	return installHookFile(o, hookFile{
		host:  "droid",
		entry: func(ev string) json.RawMessage { return ourGroup(command, 30, droidToolEvents[ev]) },
		ours:  func(raw json.RawMessage) bool { return isOurGroup(raw, " hook droid") },
	})
}
