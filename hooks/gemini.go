package hooks

import (
	"encoding/json"
	"strings"

	"github.com/mbguard/mbguard/host"
)

// Gemini CLI hook event names mbguard acts on. PreCompress is not one of them: Gemini CLI
// fires it before every model call, whether or not it then compresses anything.
const (
	geminiSessionStart = "SessionStart"
	geminiBeforeAgent  = "BeforeAgent"
	geminiBeforeTool   = "BeforeTool"
	geminiAfterTool    = "AfterTool"
	geminiSessionEnd   = "SessionEnd"
)

// GeminiEvents are the hook events `mbguard install --agent gemini` registers.
var GeminiEvents = host.Get("gemini").Events

// geminiProto is Gemini CLI's hook protocol.
type geminiProto struct{}

// geminiShape decodes Gemini CLI's payloads.
var geminiShape = shapedHost{tool: geminiToolName, kind: geminiKind}

func (geminiProto) parse(payload []byte, event string) (hookCall, error) {
	p, c, err := geminiShape.decode(payload, event)
	c.Call = "" // Gemini CLI pairs a tool's events by nothing but order
	if err != nil {
		return c, err
	}
	if c.Kind == callPreTool || c.Kind == callPostTool {
		args, bad := objectArgs(p.ToolInput, "tool_input")
		c.ArgsErr = bad
		c.Tool, c.Args = geminiTool(p.ToolName, args)
	}
	if c.Kind == callPreTool {
		// BeforeTool cannot add context for the model: a warning waits for AfterTool.
		c.Defer = true
	}
	if c.Kind == callPostTool {
		c.Failed = geminiFailed(p.ToolResponse)
		c.Output = llmContent(p.ToolResponse)
	}
	return c, nil
}

// geminiKind maps an event; resumed is true for a session resumed from disk. Gemini CLI gives
// no sound compaction signal, and a resumed history is where it compresses: the anchor block
// comes back and recovery is armed there, as after a compaction.
func geminiKind(event, source string) (kind callKind, resumed bool) {
	switch event {
	case geminiBeforeAgent:
		return callPrompt, false
	case geminiBeforeTool:
		return callPreTool, false
	case geminiAfterTool:
		return callPostTool, false
	case geminiSessionStart:
		return callStart, source == "resume"
	case geminiSessionEnd:
		return callEnd, false
	}
	return callOther, false
}

// geminiTools maps Gemini CLI's tools onto the engine's names; the arguments are renamed by
// geminiTool.
var geminiTools = map[string]string{
	"write_file": "Write", "replace": "Edit", "edit": "Edit", "run_shell_command": "Bash", "read_file": "Read",
	"read_many_files": "Glob", "glob": "Glob", "grep_search": "Grep", "search_file_content": "Grep", "grep": "Grep",
	"list_directory": "LS", "ls": "LS", "web_fetch": "WebFetch", "google_web_search": "WebSearch", "write_todos": "TodoWrite",
}

func geminiToolName(name string) string {
	if t, ok := geminiTools[name]; ok {
		return t
	}
	return name
}

// geminiTool maps one tool call: write_file {file_path, content} → Write; replace {file_path,
// old_string, new_string, allow_multiple} → Edit; run_shell_command {command, dir_path} → Bash
// {command, workdir}; read_file {file_path} → Read; a subagent named memory-reader → Agent.
// Unknown tools pass through unchanged.
func geminiTool(name string, args map[string]any) (string, map[string]any) {
	tool := geminiToolName(name)
	if args == nil {
		return tool, nil
	}
	switch tool {
	case "Write", "Edit", "Read":
		if _, ok := args["file_path"]; !ok {
			for _, k := range []string{"absolute_path", "path"} {
				if p, ok := args[k].(string); ok {
					args["file_path"] = p
					break
				}
			}
		}
		if tool == "Edit" {
			if all, ok := args["allow_multiple"].(bool); ok && all {
				args["replace_all"] = true
			}
			if n, ok := args["expected_replacements"].(float64); ok && n > 1 {
				args["replace_all"] = true
			}
		}
	case "Bash":
		for _, k := range []string{"dir_path", "directory"} {
			if d, ok := args[k].(string); ok && d != "" {
				args["workdir"] = d
				break
			}
		}
	}
	if strings.ReplaceAll(name, "_", "-") == "memory-reader" {
		return "Agent", map[string]any{"subagent_type": "memory-reader"}
	}
	if name == "invoke_agent" || name == "delegate_to_agent" {
		for _, k := range []string{"agent_name", "name", "agent"} {
			if a, ok := args[k].(string); ok {
				return "Agent", map[string]any{"subagent_type": strings.ReplaceAll(a, "_", "-")}
			}
		}
	}
	return tool, args
}

// geminiFailed: AfterTool's tool_response carries an error when the tool failed.
func geminiFailed(raw json.RawMessage) bool {
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return false
	}
	s := strings.TrimSpace(string(r.Error))
	return s != "" && s != "null" && s != `""`
}

// render: a refusal is {"decision":"deny","reason"} with exit 0 (Gemini CLI gives the model
// "Tool execution blocked: <reason>"); an outcome block after a tool is AfterTool's deny, whose
// reason replaces the tool's result; context is hookSpecificOutput.additionalContext, the only
// form that reaches the model (plain stdout is shown to the user only). Every reply is JSON.
func (geminiProto) render(c *hookCall, a *hookAnswer) Reply {
	r := Reply{Event: c.Event, Decision: a.Decision, Stderr: a.Stderr, Context: a.Context, Note: a.Note}
	switch {
	case a.Deny != "" && c.Kind == callPreTool:
		r.Stdout = encodeJSON(map[string]any{"decision": "deny", "reason": a.Deny})
	case a.Undone != "" && c.Kind == callPostTool:
		r.Stdout = encodeJSON(map[string]any{"decision": "deny", "reason": undoneText(c, a)})
	case a.Context != "" && (c.Kind == callStart || c.Kind == callPrompt || c.Kind == callPostTool):
		r.Stdout = encodeJSON(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": c.Event, "additionalContext": a.Context}})
	default:
		r.Stdout = []byte("{}\n")
	}
	return r
}
