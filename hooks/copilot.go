package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/host"
)

// Copilot CLI hook event names mbguard acts on, in the camelCase dialect install writes. The
// PascalCase (VS Code compatible) dialect is read too.
const (
	copilotSessionStart = "sessionStart"
	copilotPrompt       = "userPromptSubmitted"
	copilotPreTool      = "preToolUse"
	copilotPostTool     = "postToolUse"
	copilotPostFailure  = "postToolUseFailure"
	copilotPreCompact   = "preCompact"
	copilotSessionEnd   = "sessionEnd"
)

// CopilotEvents are the hook events `mbguard install --agent copilot` registers. Copilot CLI
// does not name the event in a camelCase payload, so each command line passes it.
var CopilotEvents = host.Get("copilot").Events

// copilotPayload holds both dialects: camelCase fields (sessionId, toolName, toolArgs,
// toolResult) and PascalCase's snake_case ones (session_id, tool_name, tool_input).
type copilotPayload struct {
	HookEventName string          `json:"hook_event_name"`
	HookName      string          `json:"hookName"`
	SessionID     string          `json:"sessionId"`
	SessionID2    string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"toolName"`
	ToolName2     string          `json:"tool_name"`
	ToolArgs      json.RawMessage `json:"toolArgs"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResult    json.RawMessage `json:"toolResult"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	ToolCallID    string          `json:"toolCallId"`
	Prompt        string          `json:"prompt"`
	Source        string          `json:"source"`
	Trigger       string          `json:"trigger"`
	Reason        string          `json:"reason"`
}

// copilotProto is Copilot CLI's hook protocol.
type copilotProto struct{}

func (copilotProto) parse(payload []byte, event string) (hookCall, error) {
	var p copilotPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		c := hookCall{Event: firstOf(sniffString(payload, "hook_event_name"), sniffString(payload, "hookName"), event),
			Session: firstOf(sniffString(payload, "sessionId"), sniffString(payload, "session_id")), Cwd: sniffString(payload, "cwd")}
		c.Kind = copilotKind(c.Event)
		if c.Event == "" && (bytes.Contains(payload, []byte(`"toolArgs"`)) || bytes.Contains(payload, []byte(`"tool_input"`))) &&
			!bytes.Contains(payload, []byte(`"toolResult"`)) && !bytes.Contains(payload, []byte(`"tool_response"`)) {
			c.Kind = callPreTool
		}
		c.Tool, _ = copilotTool(firstOf(sniffString(payload, "toolName"), sniffString(payload, "tool_name")), nil)
		return c, fmt.Errorf("the hook payload is not valid JSON (%v)", shortErr(err))
	}
	name := firstOf(p.HookEventName, p.HookName, event)
	toolName := firstOf(p.ToolName, p.ToolName2)
	input := p.ToolArgs
	if len(input) == 0 {
		input = p.ToolInput
	}
	result := p.ToolResult
	if len(result) == 0 {
		result = p.ToolResponse
	}
	if name == "" {
		// an older command line without the event argument: tell the event by its fields
		switch {
		case len(result) > 0:
			name = copilotPostTool
		case toolName != "":
			name = copilotPreTool
		case p.Prompt != "":
			name = copilotPrompt
		case p.Source != "":
			name = copilotSessionStart
		case p.Trigger != "":
			name = copilotPreCompact
		case p.Reason != "":
			name = copilotSessionEnd
		}
	}
	c := hookCall{Event: name, Kind: copilotKind(name), Session: firstOf(p.SessionID, p.SessionID2), Cwd: p.Cwd,
		Prompt: p.Prompt, Call: p.ToolCallID}
	if name == "" {
		return c, errors.New("the hook payload names no event: install the hooks again with `mbguard install --agent copilot`")
	}
	if c.Kind == callPreTool || c.Kind == callPostTool {
		var args map[string]any
		args, c.ArgsErr = copilotArgs(toolName, input)
		c.Tool, c.Args = copilotTool(toolName, args)
	}
	switch {
	case c.Kind == callPostTool:
		c.Failed = strings.EqualFold(name, copilotPostFailure) || copilotFailed(result)
		c.Output = copilotOutput(result)
	case c.Kind == callCompact:
		// preCompact's output is not injected and sessionStart does not fire again: the anchor
		// block goes to the model with the next prompt.
		c.Defer = true
	}
	return c, nil
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func copilotKind(event string) callKind {
	switch strings.ToLower(event) {
	case "sessionstart":
		return callStart
	case "userpromptsubmitted", "userpromptsubmit":
		return callPrompt
	case "pretooluse":
		return callPreTool
	case "posttooluse", "posttoolusefailure":
		return callPostTool
	case "precompact":
		return callCompact
	case "sessionend":
		return callEnd
	}
	return callOther
}

// copilotArgs decodes toolArgs: an object, or — for GPT models' apply_patch — the patch text
// itself as a string.
func copilotArgs(tool string, raw json.RawMessage) (map[string]any, string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) == nil && m != nil {
			return m, "" // arguments sent as a JSON string
		}
		if strings.EqualFold(tool, "apply_patch") || strings.Contains(s, "*** Begin Patch") {
			return map[string]any{"patchText": s}, ""
		}
		return map[string]any{"input": s}, ""
	}
	return objectArgs(raw, "toolArgs")
}

// copilotTools maps Copilot CLI's tools (camelCase dialect) onto the engine's names; the
// PascalCase dialect already sends Write, Edit, Bash and Read.
var copilotTools = map[string]string{
	"create": "Write", "edit": "Edit", "str_replace": "Edit", "view": "Read", "bash": "Bash", "write_bash": "Bash",
	"grep": "Grep", "glob": "Glob", "task": "Task", "web_fetch": "WebFetch",
}

// copilotTool maps one call: create {path, file_text} → Write {file_path, content}; edit
// {path, old_str, new_str} → Edit {file_path, old_string, new_string}; view {path} → Read;
// bash {command} → Bash; write_bash {input} (keys typed into a running shell) → Bash; task
// {agent_type} → Task {subagent_type}. Unknown tools pass through unchanged.
func copilotTool(name string, args map[string]any) (string, map[string]any) {
	tool := name
	if t, ok := copilotTools[name]; ok {
		tool = t
	}
	if args == nil {
		return tool, nil
	}
	switch tool {
	case "Write", "Edit", "Read", "MultiEdit":
		rename(args, "path", "file_path")
		rename(args, "file_text", "content")
		rename(args, "old_str", "old_string")
		rename(args, "new_str", "new_string")
	case "Bash":
		if name == "write_bash" {
			rename(args, "input", "command")
		}
	case "Task":
		rename(args, "agent_type", "subagent_type")
	case "apply_patch":
		for _, k := range []string{"input", "patch", "command"} {
			if _, ok := args["patchText"]; !ok {
				rename(args, k, "patchText")
			}
		}
	}
	return tool, args
}

// rename copies args[from] to args[to] when to is not set.
func rename(args map[string]any, from, to string) {
	if v, ok := args[from]; ok {
		if _, set := args[to]; !set {
			args[to] = v
		}
	}
}

// copilotOutput is the text the model would have read: toolResult.textResultForLlm.
func copilotOutput(raw json.RawMessage) string {
	var r struct {
		Text string `json:"textResultForLlm"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return ""
	}
	return r.Text
}

// copilotFailed: toolResult.resultType other than "success" is a failed call.
func copilotFailed(raw json.RawMessage) bool {
	var r struct {
		ResultType string `json:"resultType"`
	}
	if json.Unmarshal(raw, &r) != nil || r.ResultType == "" {
		return false
	}
	return r.ResultType != "success"
}

// render always answers with JSON and exit 0: an erroring hook fails closed on Copilot CLI,
// and its exit-2 stderr never reaches the model. A refusal is {"permissionDecision":"deny",
// "permissionDecisionReason"} (the model reads "Denied by preToolUse hook: <reason>"); the
// PascalCase dialect gets Claude's hookSpecificOutput form as well. Context is a flat
// {"additionalContext"}: on sessionStart a user message, on userPromptSubmitted a
// <system_reminder>, on preToolUse a user message after the call, on postToolUse "Additional
// guidance from postToolUse hooks" appended to the tool result (all verified with 1.0.102).
// An outcome block replaces the tool result through modifiedResult.
func (copilotProto) render(c *hookCall, a *hookAnswer) Reply {
	r := Reply{Event: c.Event, Decision: a.Decision, Stderr: a.Stderr, Context: a.Context, Note: a.Note}
	out := map[string]any{}
	switch {
	case a.Deny != "" && c.Kind == callPreTool:
		out["permissionDecision"] = "deny"
		out["permissionDecisionReason"] = a.Deny
		if c.Event != "" && c.Event[0] >= 'A' && c.Event[0] <= 'Z' {
			out["hookSpecificOutput"] = map[string]any{"hookEventName": c.Event, "permissionDecision": "deny", "permissionDecisionReason": a.Deny}
		}
	case a.Undone != "" && c.Kind == callPostTool:
		// modifiedResult replaces what the model reads as the tool's result, and "failure" marks
		// the call failed (verified with 1.0.102); the tool's own output follows the message.
		// A read whose bank secret is redacted (no block) stays a success.
		rt := "failure"
		if a.Decision == nil || a.Decision.Verdict != gating.Block {
			rt = "success"
		}
		out["modifiedResult"] = map[string]any{"resultType": rt, "textResultForLlm": undoneText(c, a)}
	case a.Context != "" && c.Kind != callOther && c.Kind != callEnd && !c.Defer:
		out["additionalContext"] = a.Context
	}
	r.Stdout = encodeJSON(out)
	return r
}
