package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
)

// shapedPayload is the Claude-shaped payload Codex CLI, Gemini CLI and Qwen Code send: one
// JSON object per event, named by hook_event_name, the tool's input and response raw. (Claude
// Code's own decoder keeps tool_input as a value, which is faster for large writes.)
type shapedPayload struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	PromptID      string          `json:"prompt_id"` // Qwen Code
	ToolName      string          `json:"tool_name"`
	ToolUseID     string          `json:"tool_use_id"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	Prompt        string          `json:"prompt"`
	Source        string          `json:"source"`   // SessionStart: startup, resume, clear, compact
	AgentID       string          `json:"agent_id"` // Codex SubagentStart, SubagentStop
}

// shapedHost is what tells one Claude-shaped host from another while decoding: its tool
// names, and its events' kinds (resumed: a session resumed from disk, Gemini CLI's).
type shapedHost struct {
	tool func(name string) string
	kind func(event, source string) (kind callKind, resumed bool)
}

// decode reads payload into p and the call's common fields: event (event when the payload
// names none), kind, session, cwd, prompt and tool_use_id. An error means the call cannot be
// read further: the payload is not JSON (c holds what could be sniffed from it) or names no
// event (c.Kind is a pre-tool call when it has a tool input and no response, the fail-safe
// case). Args, output and the host's own fields are the caller's.
func (h shapedHost) decode(payload []byte, event string) (p shapedPayload, c hookCall, err error) {
	if err := json.Unmarshal(payload, &p); err != nil {
		c = hookCall{Event: sniffString(payload, "hook_event_name"), Session: sniffString(payload, "session_id"),
			Cwd: sniffString(payload, "cwd"), Tool: h.tool(sniffString(payload, "tool_name"))}
		c.Kind, _ = h.kind(c.Event, "")
		return p, c, fmt.Errorf("the hook payload is not valid JSON (%v)", shortErr(err))
	}
	if p.HookEventName == "" {
		p.HookEventName = event
	}
	c = hookCall{Event: p.HookEventName, Session: p.SessionID, Cwd: p.Cwd, Prompt: p.Prompt, Call: p.ToolUseID}
	c.Kind, c.Resumed = h.kind(p.HookEventName, p.Source)
	if p.HookEventName == "" {
		if len(p.ToolInput) > 0 && len(p.ToolResponse) == 0 {
			c.Kind = callPreTool
		}
		c.Tool = h.tool(p.ToolName)
		return p, c, errors.New(`the hook payload has no "hook_event_name"`)
	}
	return p, c, nil
}

// llmContent is the text of a tool_response's llmContent (Gemini CLI, Qwen Code); "" when it
// has none or it is not a string.
func llmContent(resp json.RawMessage) string {
	var r struct {
		LLMContent json.RawMessage `json:"llmContent"`
	}
	var s string
	if json.Unmarshal(resp, &r) != nil || json.Unmarshal(r.LLMContent, &s) != nil {
		return ""
	}
	return s
}

// firstString is the value of the first of keys whose value in a tool's arguments is a string
// (with nonEmpty, a non-empty one): the hosts name the same argument several ways.
func firstString(args map[string]any, nonEmpty bool, keys ...string) (string, bool) {
	for _, k := range keys {
		if s, ok := args[k].(string); ok && (s != "" || !nonEmpty) {
			return s, true
		}
	}
	return "", false
}
