package hooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/state"
	"github.com/mbguard/mbguard/watcher"
)

// Claude Code hook event names mbguard acts on.
const (
	claudePrompt       = "UserPromptSubmit"
	claudePreTool      = "PreToolUse"
	claudePostTool     = "PostToolUse"
	claudePreCompact   = "PreCompact"
	claudeSessionStart = "SessionStart"
	claudeSessionEnd   = "SessionEnd"
)

// ClaudeEvents are the hook events `mbguard install --agent claude` registers.
var ClaudeEvents = []string{claudePrompt, claudePreTool, claudePostTool, claudePreCompact, claudeSessionStart, claudeSessionEnd}

// MaxClaudePayload bounds one hook payload. Claude Code sends the whole tool input (a Write
// of a large file included); anything larger is refused as undecidable.
const MaxClaudePayload = 64 << 20

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

// ClaudeReply is the hook's answer in Claude Code's protocol: the exit code (2 blocks a
// PreToolUse), stdout (hook JSON) and stderr (the block reason, or warnings for people).
type ClaudeReply struct {
	Exit   int
	Stdout []byte
	Stderr string
	// Event is the hook_event_name handled; Decision and Context what mbguard decided (for the
	// demo and tests).
	Event    string
	Decision *gating.Decision
	Context  string
}

// Doer sends one request to a Service: in process, or over a `mbguard watch` socket.
type Doer func(ctx context.Context, req watcher.Request) (watcher.Response, error)

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

// Run reads one payload from in and handles it.
func (c *Claude) Run(ctx context.Context, in io.Reader) ClaudeReply {
	b, err := io.ReadAll(io.LimitReader(in, MaxClaudePayload+1))
	if err != nil {
		return c.unsure(nil, b, fmt.Sprintf("reading the hook payload: %v", err))
	}
	if len(b) > MaxClaudePayload {
		return c.unsure(nil, b[:4096], fmt.Sprintf("the hook payload is larger than %d MiB", MaxClaudePayload>>20))
	}
	return c.Handle(ctx, b)
}

// Handle answers one Claude Code hook payload.
//
// When mbguard cannot decide (malformed payload, unreadable configuration, a Service error),
// it fails open — exit 0 with a warning on stderr — except for a PreToolUse of a tool that
// may write while the read gate is in block mode or the session's recovery gate is armed (or
// cannot be read): then it fails closed with exit 2. Other events always exit 0, since exit 2
// would mean "block the prompt" or "stop the compaction" there.
func (c *Claude) Handle(ctx context.Context, payload []byte) ClaudeReply {
	var p ClaudePayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return c.unsure(nil, payload, fmt.Sprintf("the hook payload is not valid JSON (%v)", shortErr(err)))
	}
	switch p.HookEventName {
	case claudePrompt, claudePreTool, claudePostTool, claudePreCompact, claudeSessionStart, claudeSessionEnd:
	case "":
		return c.unsure(&p, nil, `the hook payload has no "hook_event_name"`)
	default:
		return ClaudeReply{Event: p.HookEventName}
	}
	if p.SessionID == "" {
		return c.unsure(&p, nil, `the hook payload has no "session_id"`)
	}
	if p.Cwd == "" {
		// Claude Code always sends cwd; without it, relative paths start where the hook runs.
		if abs, err := filepath.Abs(c.Dir); err == nil {
			p.Cwd = abs
		}
	}
	r, err := repo.Find(p.Cwd)
	if err != nil {
		// Outside a git work tree there is no memory-bank/ to guard.
		return ClaudeReply{Event: p.HookEventName}
	}
	getenv := c.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg, err := config.Load(config.Options{RepoRoot: r.Root, Getenv: getenv, Sets: c.Sets})
	if err != nil {
		return c.unsureIn(&p, r, nil, fmt.Sprintf("reading the configuration: %v", err))
	}
	connect := c.Connect
	if connect == nil {
		connect = defaultConnect(c.now)
	}
	do, done, err := connect(r, cfg)
	if err != nil {
		return c.unsureIn(&p, r, cfg, fmt.Sprintf("reaching mbguard: %v", err))
	}
	defer done()
	h := claudeCall{c: c, p: &p, r: r, cfg: cfg, do: do}
	return h.handle(ctx)
}

func (c *Claude) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// defaultConnect prefers a running `mbguard watch` for r and falls back to a Service in this
// process (per-call: the session's state file is loaded and saved under its lock).
func defaultConnect(now func() time.Time) func(r repo.Repo, cfg *config.Config) (Doer, func(), error) {
	return func(r repo.Repo, cfg *config.Config) (Doer, func(), error) {
		var svc *watcher.Service
		local := func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
			if svc == nil {
				svc = watcher.NewService(r, cfg, watcher.ServiceOptions{Now: now})
			}
			return svc.Handle(ctx, req), nil
		}
		closeLocal := func() {
			if svc != nil {
				svc.Close()
			}
		}
		remote, hangup, ok := dialWatch(r)
		if !ok {
			return local, closeLocal, nil
		}
		// A watcher that dies mid-call must not leave the call undecided: the in-process
		// Service answers from the state files the watcher keeps current.
		do := func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
			resp, err := remote(ctx, req)
			if err != nil {
				return local(ctx, req)
			}
			return resp, nil
		}
		return do, func() { hangup(); closeLocal() }, nil
	}
}

// claudeCall is one hook call being answered.
type claudeCall struct {
	c   *Claude
	p   *ClaudePayload
	r   repo.Repo
	cfg *config.Config
	do  Doer
}

func (h *claudeCall) event(kind gating.EventKind) *gating.Event {
	return &gating.Event{Kind: kind, Host: "claude", Session: h.p.SessionID, Cwd: h.p.Cwd, Now: h.c.now().UnixMilli()}
}

func (h *claudeCall) handle(ctx context.Context) ClaudeReply {
	p := h.p
	reply := ClaudeReply{Event: p.HookEventName}
	switch p.HookEventName {
	case claudePrompt:
		ev := h.event(gating.EvMessage)
		ev.Message = MessageID(p.SessionID, p.Prompt, h.c.now())
		resp, ok := h.send(ctx, &reply, watcher.Request{Op: "event", Event: ev})
		if !ok {
			return reply
		}
		reply.Decision = resp.Decision
		h.context(&reply, p.HookEventName, resp.Notice)
	case claudePreTool:
		ev := h.event(gating.EvToolBefore)
		ev.Tool, ev.Call = p.ToolName, p.ToolUseID
		args, err := toolArgs(p.ToolInput)
		if err != nil {
			return h.c.unsureIn(p, h.r, h.cfg, err.Error())
		}
		ev.Args = args
		resp, ok := h.send(ctx, &reply, watcher.Request{Op: "event", Event: ev})
		if !ok {
			return reply
		}
		d := resp.Decision
		reply.Decision = d
		switch d.Verdict {
		case gating.Block:
			reply.Exit = 2
			reply.Stderr += joinText(d.Message, resp.Notice) + "\n"
		case gating.Warn:
			h.context(&reply, p.HookEventName, d.Message, d.Advice, resp.Notice)
		default:
			h.context(&reply, p.HookEventName, d.Advice, resp.Notice)
		}
	case claudePostTool:
		ev := h.event(gating.EvToolAfter)
		ev.Tool, ev.Call = p.ToolName, p.ToolUseID
		args, err := toolArgs(p.ToolInput)
		if err != nil {
			reply.Stderr += "mbguard: " + err.Error() + "; this tool call was not recorded as a read.\n"
			return reply
		}
		if fp := readResponsePath(p.ToolResponse); fp != "" && args != nil {
			args["file_path"] = fp
		}
		ev.Args = args
		resp, ok := h.send(ctx, &reply, watcher.Request{Op: "event", Event: ev})
		if !ok {
			return reply
		}
		reply.Decision = resp.Decision
		if d := resp.Decision; d.Verdict == gating.Block && d.Gate == gating.GateOutcome {
			// the outcome check undid what the call did: "decision": "block" reaches the model
			h.postBlock(&reply, d.Message, resp.Notice)
			return reply
		}
		h.context(&reply, p.HookEventName, resp.Decision.Message, resp.Decision.Advice, resp.Notice)
	case claudePreCompact:
		resp, ok := h.send(ctx, &reply, watcher.Request{Op: "event", Event: h.event(gating.EvCompaction)})
		if ok {
			reply.Decision = resp.Decision
		}
	case claudeSessionStart:
		if p.Source == "compact" {
			resp, ok := h.send(ctx, &reply, watcher.Request{Op: "event", Event: h.event(gating.EvCompaction)})
			if !ok {
				return reply
			}
			reply.Decision = resp.Decision
			reply.Context = resp.Decision.Advice
			h.context(&reply, p.HookEventName, resp.Decision.Advice, resp.Notice)
			return reply
		}
		resp, ok := h.send(ctx, &reply, watcher.Request{Op: "context", Session: p.SessionID})
		if !ok {
			return reply
		}
		reply.Context = resp.Context
		h.context(&reply, p.HookEventName, resp.Context, resp.Notice)
	case claudeSessionEnd:
		resp, ok := h.send(ctx, &reply, watcher.Request{Op: "event", Event: h.event(gating.EvSessionEnd)})
		if ok {
			reply.Decision = resp.Decision
		}
	}
	return reply
}

// send asks the Service. A response with an error but a decision is used (the error is a
// warning for people); one without a decision or context falls back to unsure.
func (h *claudeCall) send(ctx context.Context, reply *ClaudeReply, req watcher.Request) (watcher.Response, bool) {
	resp, err := h.do(ctx, req)
	if err == nil && resp.Error != "" {
		if req.Op == "event" && resp.Decision != nil || req.Op == "context" && resp.Context != "" {
			reply.Stderr += "mbguard: " + resp.Error + "\n"
			return resp, true
		}
		err = errors.New(resp.Error)
	}
	if err != nil {
		*reply = h.c.unsureIn(h.p, h.r, h.cfg, err.Error())
		return resp, false
	}
	if req.Op == "event" && resp.Decision == nil {
		resp.Decision = &gating.Decision{Verdict: gating.Allow}
	}
	return resp, true
}

// context puts text where the model reads it: hookSpecificOutput.additionalContext, which
// Claude Code accepts for UserPromptSubmit, PreToolUse, PostToolUse and SessionStart. A warn
// decision deliberately sets no permissionDecision: "allow" would skip the user's own
// permission prompt.
func (h *claudeCall) context(reply *ClaudeReply, event string, parts ...string) {
	text := joinText(parts...)
	if text == "" {
		return
	}
	out := map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <memory-bank> readable in transcripts
	if enc.Encode(out) != nil {
		return
	}
	reply.Stdout = b.Bytes()
}

// postBlock answers a PostToolUse whose effects were undone: {"decision":"block","reason":…}
// with exit 0, which Claude Code shows the model as the tool call's feedback.
func (h *claudeCall) postBlock(reply *ClaudeReply, reason, notice string) {
	out := map[string]any{"decision": "block", "reason": reason}
	if notice = strings.TrimSpace(notice); notice != "" {
		out["hookSpecificOutput"] = map[string]any{"hookEventName": claudePostTool, "additionalContext": notice}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(out) == nil {
		reply.Stdout = b.Bytes()
	}
}

func joinText(parts ...string) string {
	var ps []string
	for _, s := range parts {
		if s = strings.TrimSpace(s); s != "" {
			ps = append(ps, s)
		}
	}
	return strings.Join(ps, "\n\n")
}

// toolArgs decodes tool_input; it must be a JSON object (or absent).
func toolArgs(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errors.New(`the hook payload's "tool_input" is not a JSON object`)
	}
	return m, nil
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

// MessageID derives a user-message id for a UserPromptSubmit. Claude Code gives prompts no
// id, so mbguard makes a fresh one per prompt from the session, the prompt and the time in
// nanoseconds: the same text sent twice is still two messages, each starting a fresh
// per-message state. Tool events carry no id and belong to the session's current message.
func MessageID(session, prompt string, now time.Time) string {
	h := sha256.New()
	io.WriteString(h, session)
	h.Write([]byte{0})
	io.WriteString(h, prompt)
	h.Write([]byte{0})
	io.WriteString(h, strconv.FormatInt(now.UnixNano(), 10))
	return "claude-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// readOnlyTools cannot change files themselves; failing closed never stops them.
var readOnlyTools = map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true, "WebFetch": true,
	"WebSearch": true, "TodoWrite": true, "TodoRead": true, "Agent": true, "Task": true, "ExitPlanMode": true}

// unsure answers a call mbguard could not decide, before the repository is known.
func (c *Claude) unsure(p *ClaudePayload, raw []byte, why string) ClaudeReply {
	if p == nil {
		p = sniff(raw)
	}
	dir := p.Cwd
	if dir == "" {
		dir = c.Dir
	}
	r, err := repo.Find(dir)
	if err != nil {
		return c.unsureIn(p, repo.Repo{}, nil, why)
	}
	getenv := c.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: getenv, Sets: c.Sets})
	return c.unsureIn(p, r, cfg, why)
}

// unsureIn applies the fail-open/fail-closed rule (see Handle).
func (c *Claude) unsureIn(p *ClaudePayload, r repo.Repo, cfg *config.Config, why string) ClaudeReply {
	reply := ClaudeReply{Event: p.HookEventName}
	event := p.HookEventName
	if event == "" && len(p.ToolInput) > 0 && len(p.ToolResponse) == 0 {
		event = claudePreTool // a tool call that has not run yet
	}
	if event != claudePreTool || readOnlyTools[p.ToolName] {
		reply.Stderr = "mbguard: " + why + "; mbguard did not gate this call. Run `mbguard doctor`.\n"
		return reply
	}
	closed, reason := c.failClosed(p, r, cfg)
	if !closed {
		reply.Stderr = "mbguard: " + why + "; allowed without a check (warn mode). Run `mbguard doctor`.\n"
		return reply
	}
	reply.Exit = 2
	reply.Stderr = "[mbguard] this tool call was blocked because mbguard could not check it: " + why +
		" (" + reason + "). Retry the call; if it keeps failing, ask the user to run `mbguard doctor`.\n"
	return reply
}

// failClosed reports whether an undecidable write must be blocked: the read gate is in block
// mode, the configuration cannot be read, or the session's recovery gate is (or may be) armed.
func (c *Claude) failClosed(p *ClaudePayload, r repo.Repo, cfg *config.Config) (bool, string) {
	if r.Root == "" {
		return false, ""
	}
	if fi, err := os.Stat(r.BankDir()); err != nil || !fi.IsDir() {
		return false, ""
	}
	if cfg == nil {
		return true, "the configuration could not be read, so block mode is assumed"
	}
	if cfg.Policy().Mode == gating.ModeBlock {
		return true, "gating.mode is block"
	}
	if p.SessionID == "" {
		if cfg.Policy().RecoveryMode == gating.ModeBlock {
			return true, "without a session id mbguard cannot tell whether recovery after compaction is armed"
		}
		return false, ""
	}
	st := state.New(r.StateDir()+"/sessions", cfg.TTL(), c.now)
	s, outcome, err := st.Load(p.SessionID)
	if cfg.Policy().RecoveryMode == gating.ModeBlock {
		if outcome == state.Corrupt || (err != nil && outcome == state.Fresh) {
			return true, "the session state cannot be read, so recovery after compaction may be armed"
		}
		if s.Recovery != nil {
			return true, "recovery after compaction is armed: read " + strings.Join(s.Recovery.Anchors, ", ")
		}
	}
	return false, ""
}

// sniff recovers what it can from a payload that is not valid JSON (a truncated one, say):
// the event name, session, cwd and tool name, so the fail-safe rule can still apply.
func sniff(raw []byte) *ClaudePayload {
	p := &ClaudePayload{}
	get := func(key string) string {
		i := bytes.Index(raw, []byte(`"`+key+`"`))
		if i < 0 {
			return ""
		}
		rest := bytes.TrimLeft(raw[i+len(key)+2:], " \t\r\n")
		if len(rest) == 0 || rest[0] != ':' {
			return ""
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		var s string
		dec := json.NewDecoder(bytes.NewReader(rest))
		if dec.Decode(&s) != nil {
			return ""
		}
		return s
	}
	p.HookEventName = get("hook_event_name")
	p.SessionID = get("session_id")
	p.Cwd = get("cwd")
	p.ToolName = get("tool_name")
	if bytes.Contains(raw, []byte(`"tool_input"`)) {
		p.ToolInput = json.RawMessage(`{}`)
	}
	if bytes.Contains(raw, []byte(`"tool_response"`)) {
		p.ToolResponse = json.RawMessage(`{}`)
	}
	return p
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
