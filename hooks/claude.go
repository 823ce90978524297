package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
)

// Claude Code hook event names mbguard acts on.
const (
	claudePrompt   = "UserPromptSubmit"
	claudePreTool  = "PreToolUse"
	claudePostTool = "PostToolUse"
	// claudePostFailure fires instead of PostToolUse when the tool failed (a Bash command
	// exiting non-zero, an interrupted call): such a call may have written into the bank all
	// the same, so it gets the same outcome check.
	claudePostFailure = "PostToolUseFailure"
	// claudePreSkillShell (2.1.332) fires for each shell line a skill or slash command runs
	// while it is rendered, which no PreToolUse sees: it is gated like a Bash call.
	claudePreSkillShell = "PreSkillShellCommand"
	claudePreCompact    = "PreCompact"
	claudeSessionStart  = "SessionStart"
	claudeSessionEnd    = "SessionEnd"
	// claudeStop (the agent finished its turn) and claudeDenied (a tool call was refused, so
	// it never ran, and no post event follows) close the windows of calls still open.
	claudeStop   = "Stop"
	claudeDenied = "PermissionDenied"
	// claudeSubagentStart and claudeSubagentStop bound a subagent's run: its tools may write
	// without firing hooks, so the bank changes between them are judged as the agent's.
	claudeSubagentStart = "SubagentStart"
	claudeSubagentStop  = "SubagentStop"
)

// ClaudeEvents are the hook events `mbguard install --agent claude` registers.
var ClaudeEvents = host.Get("claude").Events

// claudeGuardEvents can refuse what follows them; Claude Code 2.1.332 refuses the call when
// such a hook cannot run, unless its entry says onFailure "continue".
var claudeGuardEvents = map[string]bool{claudePreTool: true, claudePreSkillShell: true}

// ClaudePayload is the part of a Claude Code hook payload mbguard reads.
type ClaudePayload struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	TranscriptPath string          `json:"transcript_path"`
	ToolName       string          `json:"tool_name"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	Prompt         string          `json:"prompt"`
	Source         string          `json:"source"`  // SessionStart: startup, resume, clear, compact
	Trigger        string          `json:"trigger"` // PreCompact: manual, auto
}

// ClaudeReply is the hook's answer in Claude Code's protocol: exit 2 with the reason on stderr
// blocks a PreToolUse; context goes to stdout as hook JSON.
type ClaudeReply = Reply

// Claude is the Claude Code host adapter behind `mbguard hook claude`.
type Claude struct {
	// Dir is where to look for the repository when the payload carries no cwd.
	Dir string
	// Getenv reads the environment for configuration (os.Getenv in main).
	Getenv func(string) string
	// Sets are --set key=value overrides.
	Sets []string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Connect returns the Service to ask for a repository. When nil, a running `mbguard watch`
	// is used if there is one, else an in-process Service.
	Connect func(r repo.Repo, cfg *config.Config) (Doer, func(), error)
}

func (c *Claude) hook() *Hook {
	return &Hook{Host: "claude", Dir: c.Dir, Getenv: c.Getenv, Sets: c.Sets, Now: c.Now, Connect: c.Connect}
}

// Run reads one payload from in and handles it.
func (c *Claude) Run(ctx context.Context, in io.Reader) ClaudeReply { return c.hook().Run(ctx, in) }

// Handle answers one Claude Code hook payload (see Hook.Handle for the fail-safe rule; a
// refusal is exit 2 with the reason on stderr, which Claude Code gives the model).
func (c *Claude) Handle(ctx context.Context, payload []byte) ClaudeReply {
	return c.hook().Handle(ctx, payload)
}

// claudeProto is Claude Code's hook protocol.
type claudeProto struct{}

// claudeWire is ClaudePayload as parse decodes it: tool_input straight into Go values, so a
// 50 MB Write is validated and decoded in one pass instead of kept raw, copied and decoded
// again (profiled with BenchmarkClaudeLargeWrite).
type claudeWire struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"tool_name"`
	ToolUseID     string          `json:"tool_use_id"`
	ToolInput     any             `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	Prompt        string          `json:"prompt"`
	Source        string          `json:"source"`
	AgentID       string          `json:"agent_id"` // SubagentStart, SubagentStop
	Transcript    string          `json:"transcript_path"`
}

func (claudeProto) parse(payload []byte, event string) (hookCall, error) {
	var p claudeWire
	if err := json.Unmarshal(payload, &p); err != nil {
		c := hookCall{Event: sniffString(payload, "hook_event_name"), Session: sniffString(payload, "session_id"),
			Cwd: sniffString(payload, "cwd"), Tool: sniffString(payload, "tool_name")}
		c.Kind = claudeKind(c.Event, "")
		if c.Event == "" && contains(payload, `"tool_input"`) && !contains(payload, `"tool_response"`) {
			c.Kind = callPreTool // a tool call that has not run yet
		}
		return c, fmt.Errorf("the hook payload is not valid JSON (%v)", shortErr(err))
	}
	if p.HookEventName == "" {
		p.HookEventName = event
	}
	c := hookCall{Event: p.HookEventName, Kind: claudeKind(p.HookEventName, p.Source), Session: p.SessionID, Cwd: p.Cwd,
		Tool: p.ToolName, Prompt: p.Prompt, Call: p.ToolUseID, Failed: p.HookEventName == claudePostFailure,
		Denied: p.HookEventName == claudeDenied, Transcript: p.Transcript}
	switch {
	case p.HookEventName == claudeSubagentStart || p.HookEventName == claudeSubagentStop:
		c.Call = subagentCall(p.AgentID) // the subagent's own window
	case c.Kind == callClose && !c.Denied:
		c.Call = "" // the turn stopped: every call of the session
	}
	if p.HookEventName == "" {
		if p.ToolInput != nil && len(p.ToolResponse) == 0 {
			c.Kind = callPreTool
		}
		return c, errors.New(`the hook payload has no "hook_event_name"`)
	}
	if c.Kind == callPreTool || c.Kind == callPostTool {
		c.Args, c.ArgsErr = objectValue(p.ToolInput, "tool_input")
	}
	if c.Kind == callPostTool {
		c.ReadPath = readResponsePath(p.ToolResponse)
		c.Response = p.ToolResponse
	}
	return c, nil
}

func claudeKind(event, source string) callKind {
	switch event {
	case claudePrompt:
		return callPrompt
	case claudePreTool, claudePreSkillShell:
		return callPreTool
	case claudePostTool, claudePostFailure:
		return callPostTool
	case claudePreCompact:
		return callCompact
	case claudeSessionStart:
		if source == "compact" {
			return callCompact
		}
		return callStart
	case claudeSessionEnd:
		return callEnd
	case claudeStop, claudeDenied, claudeSubagentStop:
		return callClose
	case claudeSubagentStart:
		return callOpen
	}
	return callOther
}

// subagentCall names a subagent's window in the in-flight record; a host that sends no agent
// id gets one window per session.
func subagentCall(agentID string) string { return "subagent:" + agentID }

// claudeContextEvents accept hookSpecificOutput.additionalContext.
var claudeContextEvents = map[string]bool{claudePrompt: true, claudePreTool: true, claudePostTool: true, claudePostFailure: true, claudeSessionStart: true}

// render: a refusal is exit 2 with the reason on stderr; an outcome block after a tool is
// PostToolUse's {"decision":"block"} (its reason reaches the model); context goes into
// hookSpecificOutput.additionalContext. PostToolUseFailure documents only additionalContext
// (given to the model next to the tool's error), so an undo after a failed call goes there. A warn sets no permissionDecision: "allow" would skip
// the user's own permission prompt.
func (claudeProto) render(c *hookCall, a *hookAnswer) Reply {
	r := Reply{Event: c.Event, Decision: a.Decision, Stderr: a.Stderr, Context: a.Context, Note: a.Note}
	switch {
	case a.Deny != "" && c.Kind == callPreTool:
		r.Exit = 2
		r.Stderr += a.Deny + "\n"
	case a.Undone != "" && c.Event == claudePostFailure:
		r.Stdout = encodeJSON(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": c.Event, "additionalContext": joinText(a.Undone, a.Context)}})
	case a.Undone != "" && c.Kind == callPostTool:
		out := map[string]any{"decision": "block", "reason": joinText(a.Undone, a.Context)}
		if red, ok := claudeRedacted(c, a); ok {
			out["hookSpecificOutput"] = map[string]any{"hookEventName": c.Event, "updatedToolOutput": red}
		}
		r.Stdout = encodeJSON(out)
	case a.Context != "" && claudeContextEvents[c.Event]:
		hso := map[string]any{"hookEventName": c.Event, "additionalContext": a.Context}
		if red, ok := claudeRedacted(c, a); ok {
			hso["updatedToolOutput"] = red
		}
		r.Stdout = encodeJSON(map[string]any{"hookSpecificOutput": hso})
	}
	return r
}

// claudeRedacted is the tool's response with the secrets of the bank files it read replaced,
// for PostToolUse's hookSpecificOutput.updatedToolOutput (Claude Code 2.1.332: "Replaces the
// tool output before it is sent to the model", for every tool). It keeps the response's own
// shape (a Read's {type, file: {filePath, content, …}}, a Bash's {stdout, stderr, …}), so the
// tool's result renders as it would have. PostToolUseFailure cannot replace output: there the
// model gets the notice only.
func claudeRedacted(c *hookCall, a *hookAnswer) (any, bool) {
	if c.Event != claudePostTool || len(a.Secrets) == 0 {
		return nil, false
	}
	return redactJSON(c.Response, a.Secrets)
}

// readResponsePath is the path a Read actually read: tool_response.file.filePath.
func readResponsePath(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '{' {
		return ""
	}
	var r struct {
		File struct {
			FilePath string `json:"filePath"`
		} `json:"file"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return ""
	}
	return r.File.FilePath
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }

// objectValue is objectArgs for a tool input already decoded: a JSON object (or absent).
func objectValue(v any, field string) (map[string]any, string) {
	switch v := v.(type) {
	case nil:
		return map[string]any{}, ""
	case map[string]any:
		return v, ""
	}
	return nil, fmt.Sprintf("the hook payload's %q is not a JSON object", field)
}
