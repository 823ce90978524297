package hooks

import "github.com/mbguard/mbguard/host"

// Qwen Code hook event names mbguard acts on (Claude Code's names; HOSTS.md §6).
const (
	qwenSessionStart = "SessionStart"
	qwenPrompt       = "UserPromptSubmit"
	qwenPreTool      = "PreToolUse"
	qwenPostTool     = "PostToolUse"
	qwenPostFailure  = "PostToolUseFailure"
	qwenPreCompact   = "PreCompact"
	qwenSessionEnd   = "SessionEnd"
)

// QwenEvents are the hook events `mbguard install --agent qwen` registers. SessionEnd did not
// fire headless in 0.24.4; it is registered for interactive sessions, where it ends one.
var QwenEvents = host.Get("qwen").Events

// qwenProto is Qwen Code's hook protocol: Claude Code's shape, Gemini CLI's tool names, and
// one user message per prompt_id — Qwen fires UserPromptSubmit again, with an empty prompt and
// the same prompt_id, before every model call that carries tool results.
type qwenProto struct{}

// qwenShape decodes Qwen Code's payloads: Gemini CLI's tool names, Claude Code's events.
var qwenShape = shapedHost{tool: geminiToolName, kind: func(event, source string) (callKind, bool) { return qwenKind(event, source), false }}

func (qwenProto) parse(payload []byte, event string) (hookCall, error) {
	p, c, err := qwenShape.decode(payload, event)
	if err != nil {
		return c, err
	}
	c.Failed = p.HookEventName == qwenPostFailure
	if p.PromptID != "" {
		c.MessageID = "qwen-" + p.PromptID
	}
	if c.Kind == callPreTool || c.Kind == callPostTool {
		args, bad := objectArgs(p.ToolInput, "tool_input")
		c.ArgsErr = bad
		c.Tool, c.Args = geminiTool(p.ToolName, args)
	}
	if c.Kind == callPreTool {
		// a warning before a tool waits for the call's PostToolUse, the channel Qwen shows
		c.Defer = true
	}
	if c.Kind == callPostTool {
		c.Output = llmContent(p.ToolResponse)
	}
	return c, nil
}

func qwenKind(event, source string) callKind {
	switch event {
	case qwenPrompt:
		return callPrompt
	case qwenPreTool:
		return callPreTool
	case qwenPostTool, qwenPostFailure:
		return callPostTool
	case qwenPreCompact:
		return callCompact
	case qwenSessionStart:
		if source == "compact" {
			return callCompact
		}
		return callStart
	case qwenSessionEnd:
		return callEnd
	}
	return callOther
}

// render: a refusal is exit 2 with the reason on stderr (Qwen gives it to the model verbatim);
// after a call only hookSpecificOutput.additionalContext reaches the model (decision/reason and
// exit 2 do not), so an undo is told there, next to the tool's result; context at session start
// and with a prompt goes the same way.
func (qwenProto) render(c *hookCall, a *hookAnswer) Reply {
	r := Reply{Event: c.Event, Decision: a.Decision, Stderr: a.Stderr, Context: a.Context, Note: a.Note}
	switch {
	case a.Deny != "" && c.Kind == callPreTool:
		r.Exit = 2
		r.Stderr += a.Deny + "\n"
	case a.Undone != "" && c.Kind == callPostTool:
		r.Stdout = encodeJSON(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": c.Event, "additionalContext": joinText(a.Undone, a.Context)}})
	case a.Context != "" && (c.Kind == callStart || c.Kind == callPrompt || c.Kind == callPostTool || c.Event == qwenSessionStart):
		r.Stdout = encodeJSON(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": c.Event, "additionalContext": a.Context}})
	}
	return r
}
