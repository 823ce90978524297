package hooks

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mbguard/mbguard/host"
)

// Codex CLI hook event names mbguard acts on.
const (
	codexSessionStart = "SessionStart"
	codexPrompt       = "UserPromptSubmit"
	codexPreTool      = "PreToolUse"
	codexPostTool     = "PostToolUse"
	codexPreCompact   = "PreCompact"
	codexPostCompact  = "PostCompact"
	codexSessionEnd   = "SessionEnd"
	// codexSubagentStart and codexSubagentStop (in the 0.169.0 binary; they carry agent_id and
	// agent_type) bound a thread-spawned subagent's run, as on Claude Code.
	codexSubagentStart = "SubagentStart"
	codexSubagentStop  = "SubagentStop"
)

// CodexEvents are the hook events `mbguard install --agent codex` registers.
var CodexEvents = host.Get("codex").Events

// codexProto is Codex CLI's hook protocol.
type codexProto struct{}

// codexShape decodes Codex CLI's payloads: Claude Code's shape, except that tool_response is
// a string (the tool's output) and writes arrive as apply_patch patch text in
// tool_input.command.
var codexShape = shapedHost{tool: codexTool, kind: func(event, source string) (callKind, bool) { return codexKind(event, source), false }}

func (codexProto) parse(payload []byte, event string) (hookCall, error) {
	p, c, err := codexShape.decode(payload, event)
	if err != nil {
		return c, err
	}
	if c.Kind == callOpen || c.Kind == callClose {
		c.Call = subagentCall(p.AgentID) // the subagent's own window
	}
	if c.Kind == callPreTool || c.Kind == callPostTool {
		c.Tool, c.Args, c.ArgsErr = codexArgs(p.ToolName, p.ToolInput)
	}
	if c.Kind == callPostTool {
		c.Failed = codexFailed(p.ToolResponse)
		_ = json.Unmarshal(p.ToolResponse, &c.Output)
	}
	return c, nil
}

func codexKind(event, source string) callKind {
	switch event {
	case codexPrompt:
		return callPrompt
	case codexPreTool:
		return callPreTool
	case codexPostTool:
		return callPostTool
	case codexPreCompact, codexPostCompact:
		// Codex reports one compaction as PreCompact, PostCompact and SessionStart(compact):
		// the first arms recovery, the others get the same anchor block.
		return callCompact
	case codexSessionStart:
		if source == "compact" {
			return callCompact
		}
		return callStart
	case codexSessionEnd:
		return callEnd
	case codexSubagentStart:
		return callOpen
	case codexSubagentStop:
		return callClose
	}
	return callOther
}

// codexTool names a Codex tool in the engine's vocabulary: its shell tools are Bash, and
// apply_patch is apply_patch.
func codexTool(name string) string {
	switch name {
	case "exec_command", "shell", "local_shell", "unified_exec", "container.exec":
		return "Bash"
	}
	return name
}

// codexArgs maps a Codex tool input onto the engine's: apply_patch {command: patch text} →
// apply_patch {patchText}; the shell's {cmd} or argv-style {command: [...]} → Bash {command}.
func codexArgs(name string, raw json.RawMessage) (string, map[string]any, string) {
	tool := codexTool(name)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		// a freeform tool's input is the text itself
		switch tool {
		case "apply_patch":
			return tool, map[string]any{"patchText": s}, ""
		case "Bash":
			return tool, map[string]any{"command": s}, ""
		}
		return tool, map[string]any{"input": s}, ""
	}
	args, bad := objectArgs(raw, "tool_input")
	if bad != "" {
		return tool, nil, bad
	}
	switch tool {
	case "apply_patch":
		if _, ok := args["patchText"]; !ok {
			for _, k := range []string{"command", "input", "patch"} {
				if t, ok := args[k].(string); ok {
					args["patchText"] = t
					break
				}
			}
		}
	case "Bash":
		if _, ok := args["command"].(string); !ok {
			if cmd, ok := args["cmd"].(string); ok {
				args["command"] = cmd
			} else if argv, ok := args["command"].([]any); ok {
				args["command"] = argvCommand(argv)
			}
		}
		if wd, ok := args["workdir"].(string); !ok || wd == "" {
			for _, k := range []string{"cwd", "dir", "working_directory"} {
				if d, ok := args[k].(string); ok && d != "" {
					args["workdir"] = d
					break
				}
			}
		}
	}
	return tool, args, ""
}

// argvCommand turns an argv ["bash", "-lc", script] into the script, and any other argv into
// one quoted command line.
func argvCommand(argv []any) string {
	var words []string
	for _, a := range argv {
		s, _ := a.(string)
		words = append(words, s)
	}
	if n := len(words); n >= 3 && (words[n-2] == "-c" || words[n-2] == "-lc") {
		return words[n-1]
	}
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`|&;<>()*?[]{}~#!") {
			words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// codexFailed reads Codex's tool_response, a string that for apply_patch starts with
// "Exit code: N"; a non-zero N is a failed call.
func codexFailed(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	rest, ok := strings.CutPrefix(s, "Exit code: ")
	if !ok {
		return false
	}
	line, _, _ := strings.Cut(rest, "\n")
	n, err := strconv.Atoi(strings.TrimSpace(line))
	return err == nil && n != 0
}

// codexContextEvents accept hookSpecificOutput.additionalContext.
var codexContextEvents = map[string]bool{codexSessionStart: true, codexPrompt: true, codexPreTool: true, codexPostTool: true}

// render never exits 1 (Codex then runs the call anyway) nor relies on exit 2: a refusal is
// PreToolUse's JSON permissionDecision "deny" with the reason, which Codex gives the model; an
// outcome block is PostToolUse's {"decision":"block","reason"}, which replaces the tool's output
// (so the output follows the message); context is
// hookSpecificOutput.additionalContext.
func (codexProto) render(c *hookCall, a *hookAnswer) Reply {
	r := Reply{Event: c.Event, Decision: a.Decision, Stderr: a.Stderr, Context: a.Context, Note: a.Note}
	switch {
	case a.Deny != "" && c.Kind == callPreTool:
		r.Stdout = encodeJSON(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": codexPreTool,
			"permissionDecision": "deny", "permissionDecisionReason": a.Deny}})
	case a.Undone != "" && c.Kind == callPostTool:
		// Codex replaces the tool's output with the reason (verified with 0.169.0)
		r.Stdout = encodeJSON(map[string]any{"decision": "block", "reason": undoneText(c, a)})
	case a.Context != "" && codexContextEvents[c.Event]:
		r.Stdout = encodeJSON(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": c.Event, "additionalContext": a.Context}})
	}
	return r
}
