package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/jsonmsg"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/state"
	"github.com/mbguard/mbguard/scanner"
	"github.com/mbguard/mbguard/watcher"
)

// Hosts are the agent hosts `mbguard hook <host>` answers, each with its own payload and reply
// format around one host-neutral core (from Registry).
var Hosts = HostNames(true)

// MaxPayload bounds one hook payload. Hosts send the whole tool input (a write of a large file
// included); anything larger is refused as undecidable.
const MaxPayload = 64 << 20

// MaxClaudePayload is MaxPayload under its first name.
const MaxClaudePayload = MaxPayload

// Reply is a hook's answer in its host's protocol: the exit code, stdout (the host's JSON) and
// stderr (notes for people; for Claude Code a block reason).
type Reply struct {
	Exit   int
	Stdout []byte
	Stderr string
	// Event is the host's event name handled; Decision and Context what mbguard decided (for
	// the demo, tests and --verbose).
	Event    string
	Decision *gating.Decision
	Context  string
	// Note says why an event was let through without a check (an event mbguard does not use,
	// the escape hatch); the CLI prints it with --verbose.
	Note string
	// Forged: the event was refused as sent from inside an agent's tool call (origin.go).
	Forged bool
}

// Doer sends one request to a Service: in process, or over a `mbguard watch` socket.
type Doer func(ctx context.Context, req watcher.Request) (watcher.Response, error)

// Hook is the host-neutral core behind `mbguard hook <host>`: it finds the repository a call is
// about, loads its configuration, asks its Service and applies the fail-open/fail-closed rule;
// the host's protocol only parses the payload and renders the answer.
type Hook struct {
	// Host is a Registry name whose spec has a protocol ("claude" when empty).
	Host string
	// Event is the host's event name when the host does not put it into the payload (Copilot
	// CLI's camelCase hooks): the installed command line passes it as an argument.
	Event string
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
	// Requester is the process that sent the event when it is not this one: the holder of an
	// http hook request's client socket (AnswerHTTP).
	Requester int
}

// callKind is what a host's hook event means to mbguard.
type callKind int

const (
	callOther    callKind = iota // an event mbguard does not use: allowed, noted
	callPrompt                   // a new user message
	callPreTool                  // before a tool runs: the gate
	callPostTool                 // after a tool ran: reads, outcome
	callCompact                  // the context is (being) compacted: arm recovery, anchor block
	callStart                    // a session starts or resumes: context injection
	callEnd                      // the session ends
	callClose                    // a tool call's window is over without its post (the turn stopped, a permission refused)
	callOpen                     // a subagent starts: its window (named by Call) is the agent's until its close
)

// hookCall is one hook call normalised across hosts.
type hookCall struct {
	Event   string // the host's event name, as sent
	Kind    callKind
	Session string
	Cwd     string
	// Tool and Args are in the engine's vocabulary (Claude Code's tool and argument names)
	// where the host's tool has an equivalent; unknown tools pass through as sent.
	Tool string
	Args map[string]any
	// ArgsErr says why the tool input could not be used.
	ArgsErr string
	// ReadPath is the file a read tool really read (Claude Code reports it in the response).
	ReadPath string
	// Failed is true when the host reports that the tool failed.
	Failed bool
	// Response is the tool's result as the host sent it (post-tool, Claude Code's
	// tool_response), for hosts that let a hook replace it with a redacted copy.
	Response json.RawMessage
	// Output is the tool's own output (post-tool), for hosts whose outcome-block reply
	// replaces it: the model then still reads it after mbguard's message.
	Output string
	Prompt string
	// Call is the host's id of this tool call, when it sends one.
	Call string
	// Denied, on callClose: the call named by Call was refused and never ran.
	Denied bool
	// PreIsPost: the host has no post-tool event (Crush), so a read tool's call counts as
	// done once its pre-tool event is allowed.
	PreIsPost bool
	// NoPost: the host has no post-tool event at all (Crush), so what a call will return is
	// told at its pre-tool event.
	NoPost bool
	// MessageID is the host's own id of the user message, when it sends one (Qwen's
	// prompt_id): prompt events with the same id are one message, not a new one each.
	MessageID string
	// Defer: the host does not show this event's context to the model (Copilot preCompact),
	// so it is kept and given with the next prompt.
	Defer bool
	// Resumed: a session start the host may have compacted without telling (Gemini resume):
	// the anchor block is injected and recovery armed as after a compaction.
	Resumed bool
	// NamesBank: the payload could not be decoded but names memory-bank/ outside its cwd, so
	// an undecidable write may be one into the bank, whose guard holds in every mode.
	NamesBank bool
	// Transcript is the host's own record of the session (Claude Code's transcript_path):
	// read for the calls whose window an event closes without their post (transcript.go).
	Transcript string
	// Ran: the closing event itself shows that the calls it closes ran (Cursor's
	// afterFileEdit comes only after an edit landed), so no record is asked.
	Ran bool
	// DenyTold: a Defer pre-tool event whose refusal still reaches the model with its reason
	// (Auggie's exit 2), and after which no post event comes: a secret read's refusal is not
	// kept to be told again with the next call's result.
	DenyTold bool

	dets map[string]*scanner.Secrets // the call's secret scanners, by repository root (detector)
}

// hookAnswer is what mbguard decided, for the host's protocol to render.
type hookAnswer struct {
	Decision *gating.Decision // the most severe decision, nil when nothing was asked
	Deny     string           // pre-tool: refuse the call with this reason (a block, or failing closed)
	Undone   string           // post-tool: an outcome block, told to the model
	Context  string           // text for the model
	Stderr   string           // notes for people
	Note     string
	// Secrets are the secret texts in bank files a post-tool call read (readSecrets), for
	// hosts that can replace the tool's result with a redacted one; never printed.
	Secrets []string
}

// protocol is one host's wire format.
type protocol interface {
	// parse turns a payload into a call. On error it returns what it could still recover
	// (event, session, cwd, tool), so the fail-safe rule can apply.
	parse(payload []byte, event string) (hookCall, error)
	// render turns an answer into the host's reply.
	render(c *hookCall, a *hookAnswer) Reply
}

func (h *Hook) proto() (protocol, error) {
	if s, ok := LookupHost(h.name()); ok && s.proto != nil {
		return s.proto, nil
	}
	return nil, fmt.Errorf("unknown host %q: want %s", h.Host, strings.Join(Hosts, ", "))
}

func (h *Hook) name() string {
	if h.Host == "" {
		return "claude"
	}
	return h.Host
}

func (h *Hook) getenv(k string) string {
	if h.Getenv == nil {
		return ""
	}
	return h.Getenv(k)
}

func (h *Hook) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Disabled reports whether the escape hatch MBGUARD=0 is set.
func (h *Hook) Disabled() bool { return strings.TrimSpace(h.getenv("MBGUARD")) == "0" }

// settleCall answers, with done true, the parsed calls mbguard need not judge (a failed read,
// an event it does not use, a payload without a session, a tool result whose arguments cannot
// be read), and fills in what the rest of Handle relies on (cwd, unreadable arguments).
func (h *Hook) settleCall(p protocol, c *hookCall, payload []byte) (Reply, bool) {
	if c.Kind == callPostTool && c.Failed && readOnly(c.Tool) {
		return p.render(c, &hookAnswer{}), true // a read that failed read nothing
	}
	if c.Kind == callOther {
		r := p.render(c, &hookAnswer{})
		r.Note = fmt.Sprintf("event %q is not one mbguard uses: allowed", c.Event)
		return r, true
	}
	if c.Session == "" {
		spec, _ := LookupHost(h.name())
		// without a session only what may write the bank or mbguard's configuration is
		// refused outside block mode
		c.NamesBank = namesBank(payload, c.Cwd) || namesProtected(payload)
		return h.unsure(p, c, "the hook payload has no "+strconv.Quote(spec.SessionField)), true
	}
	if c.Cwd == "" {
		// Hosts send cwd; without it, relative paths start where the hook runs.
		if abs, err := filepath.Abs(h.Dir); err == nil {
			c.Cwd = abs
		}
	}
	if c.ArgsErr != "" {
		if c.Kind == callPreTool {
			// No argument object: the engine judges the call as one whose arguments it cannot
			// read (a write of unknown target, refused), never as nothing.
			c.Args = nil
		}
		if c.Kind == callPostTool {
			return p.render(c, &hookAnswer{Stderr: "mbguard: " + c.ArgsErr + "; this tool call was not recorded as a read.\n"}), true
		}
	}
	return Reply{}, false
}

// callRepos finds the repositories the call is about, putting back a repository renamed during
// a call (vanish.go): putBack is what to tell the agent about it. done is true when the call is
// answered already: a refusal because the rename cannot be put back, or no bank to guard.
func (h *Hook) callRepos(p protocol, c *hookCall) (repos []repo.Repo, putBack string, r Reply, done bool) {
	repos = h.repos(c)
	if len(repos) == 0 {
		// a repository renamed during a call: put back, or every call refused (vanish.go)
		if told, refusal, ok := vanished(c); ok {
			if refusal != "" {
				return nil, "", p.render(c, &hookAnswer{Deny: refusal, Undone: refusal, Context: refusal}), true
			}
			putBack, repos = told, h.repos(c)
		}
	}
	if len(repos) == 0 {
		// No memory-bank/ in any repository this call is about: nothing to guard.
		return nil, "", p.render(c, &hookAnswer{}), true
	}
	return repos, putBack, Reply{}, false
}

// refuseSecretRead is, for a host whose way with secrets is to refuse the read, why this read
// of a file holding secrets is refused ("" when it is not).
func refuseSecretRead(c *hookCall, repos []repo.Repo, way secretWay) string {
	if way != secretRefuse {
		return ""
	}
	refusal, handed := secretRefusal(c, repos)
	if refusal != "" {
		// the read counts as done only when the refusal hands the agent the file's text
		c.PreIsPost = handed
	}
	return refusal
}

// askAll asks every repository's Service and merges the answers; ok false carries the reply
// for a repository whose Service could not decide.
func (h *Hook) askAll(ctx context.Context, p protocol, c *hookCall, repos []repo.Repo) (ans hookAnswer, r Reply, ok bool) {
	for _, rp := range repos {
		a, ok := h.ask(ctx, c, rp)
		if !ok {
			return hookAnswer{}, h.unsureIn(p, c, rp, a.cfg, a.err), false
		}
		ans.merge(&a.hookAnswer)
	}
	return ans, Reply{}, true
}

// addSecretRefusal turns the answer into the refusal of a secret read, unless the call is
// refused already.
func addSecretRefusal(c *hookCall, repos []repo.Repo, ans *hookAnswer, refusal string) {
	if refusal == "" || ans.Deny != "" {
		return
	}
	ans.Deny = joinText(refusal, ans.Context)
	if c.Defer && !c.DenyTold {
		// the refusal's reply carries no text to the model (Cursor's beforeReadFile): why
		// the read was refused, and the file's redacted text, go with the next event
		if err := savePending(repos[0], c.Session, ans.Deny); err != nil {
			ans.Stderr += "mbguard: keeping a note for the agent: " + err.Error() + "\n"
		}
	}
}

// addSecretsNotice adds the notice about secrets the call read to the answer, or keeps it for
// the next event when this one's reply reaches no model.
func addSecretsNotice(c *hookCall, repos []repo.Repo, ans *hookAnswer, way secretWay) {
	notice, secrets := readSecrets(c, repos, ans, way)
	if notice == "" {
		return
	}
	if c.Defer {
		// this event's reply reaches no model (Cursor's beforeReadFile): the notice waits
		// for the next event that does, like the rest of what ask kept
		if err := savePending(repos[0], c.Session, notice); err != nil {
			ans.Stderr += "mbguard: keeping a note for the agent: " + err.Error() + "\n"
		}
		notice = ""
	}
	ans.Secrets = secrets
	if way == secretReplace && c.Kind == callPostTool {
		// the reply that replaces the tool's result carries the notice and the output,
		// redacted (undoneText)
		ans.Undone = joinText(ans.Undone, notice)
	} else {
		ans.Context = joinText(ans.Context, notice)
	}
}

// addPutBack tells the agent about a repository put back after a rename (callRepos).
func addPutBack(c *hookCall, ans *hookAnswer, putBack string) {
	if putBack == "" {
		return
	}
	if c.Kind == callPostTool {
		ans.Undone = joinText(putBack, ans.Undone)
	} else {
		ans.Context = joinText(putBack, ans.Context)
	}
}

// repos are the repositories (with a memory bank) a call is about: the one around the
// session's working directory, and, for a tool call, every one its target paths lie in — so a
// cwd outside any repository, in a nested repository or under a fake .git cannot switch the
// guard off for the bank the call touches.
func (h *Hook) repos(c *hookCall) []repo.Repo {
	var out []repo.Repo
	add := func(r repo.Repo) {
		for _, o := range out {
			if o.Root == r.Root {
				return
			}
		}
		out = append(out, r)
	}
	if r, ok := findBankRepo(c.Cwd); ok {
		add(r)
	}
	if (c.Kind == callPreTool || c.Kind == callPostTool) && c.Args != nil && filepath.IsAbs(c.Cwd) {
		for _, t := range gating.TargetPaths(c.Tool, c.Args, filepath.ToSlash(c.Cwd)) {
			if r, ok := findBankRepo(filepath.FromSlash(t), out...); ok {
				add(r)
			}
		}
	}
	return out
}

// asked is the answer from one repository's Service.
type asked struct {
	hookAnswer
	cfg *config.Config
	err string // why the call could not be decided (ok false)
}

// merge folds b into a: the most severe decision wins; texts add up.
func (a *hookAnswer) merge(b *hookAnswer) {
	if a.Decision == nil || b.Decision != nil && severity(b.Decision) > severity(a.Decision) {
		a.Decision = b.Decision
	}
	a.Deny = joinText(a.Deny, b.Deny)
	a.Undone = joinText(a.Undone, b.Undone)
	a.Context = joinText(a.Context, b.Context)
	a.Stderr += b.Stderr
}

func severity(d *gating.Decision) int {
	switch d.Verdict {
	case gating.Block:
		return 2
	case gating.Warn:
		return 1
	}
	return 0
}

// defaultConnect prefers a running `mbguard watch` for r and falls back to a Service in this
// process (per-call: the session's state file is loaded and saved under its lock).
func defaultConnect(now func() time.Time, det *scanner.Secrets) func(r repo.Repo, cfg *config.Config) (Doer, func(), error) {
	return func(r repo.Repo, cfg *config.Config) (Doer, func(), error) {
		var svc *watcher.Service
		local := func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
			if svc == nil {
				svc = watcher.NewService(r, cfg, watcher.ServiceOptions{Now: now, Secrets: det})
			}
			return svc.Handle(ctx, req), nil
		}
		closeLocal := func() {
			if svc != nil {
				svc.Close()
			}
		}
		remote, hangup, stray, ok := dialWatch(r, cfg)
		if stray != "" {
			reportStray(r, stray, now())
		}
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

// readOnly reports whether a tool cannot change files itself (gating's one taxonomy, which
// the OpenCode plugin shares); failing closed never stops such a tool, and an unknown tool is
// never one.
func readOnly(tool string) bool { return gating.ClassifyTool(tool) == gating.ClassRead }

// unsure answers a call mbguard could not decide, before the repository is known.
func (h *Hook) unsure(p protocol, c *hookCall, why string) Reply {
	dir := c.Cwd
	if dir == "" {
		dir, _ = filepath.Abs(h.Dir)
	}
	r, ok := findBankRepo(dir)
	if !ok {
		if c.Args != nil && filepath.IsAbs(dir) {
			for _, t := range gating.TargetPaths(c.Tool, c.Args, filepath.ToSlash(dir)) {
				if r, ok = findBankRepo(filepath.FromSlash(t)); ok {
					break
				}
			}
		}
	}
	if !ok {
		return h.unsureIn(p, c, repo.Repo{}, nil, why)
	}
	cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: h.getenv, Sets: h.Sets})
	return h.unsureIn(p, c, r, cfg, why)
}

// unsureIn applies the fail-open/fail-closed rule (see Handle).
func (h *Hook) unsureIn(p protocol, c *hookCall, r repo.Repo, cfg *config.Config, why string) Reply {
	if c.Kind != callPreTool || readOnly(c.Tool) {
		return p.render(c, &hookAnswer{Stderr: "mbguard: " + why + "; mbguard did not gate this call. Run `mbguard doctor`.\n"})
	}
	closed, reason := h.failClosed(c, r, cfg)
	if !closed {
		return p.render(c, &hookAnswer{Stderr: "mbguard: " + why + "; allowed without a check (warn mode). Run `mbguard doctor`.\n"})
	}
	return p.render(c, &hookAnswer{Deny: "[mbguard] this tool call was blocked because mbguard could not check it: " + why +
		" (" + reason + "). Retry the call; if it keeps failing, ask the user to run `mbguard doctor`."})
}

// failClosed reports whether an undecidable write must be blocked: the read gate is in block
// mode, the configuration cannot be read, or the session's recovery gate is (or may be) armed.
func (h *Hook) failClosed(c *hookCall, r repo.Repo, cfg *config.Config) (bool, string) {
	if r.Root == "" {
		return false, ""
	}
	if fi, err := os.Stat(r.BankDir()); err != nil || !fi.IsDir() {
		return false, ""
	}
	if c.NamesBank {
		return true, "the payload names memory-bank/, whose write guard holds in every mode"
	}
	if cfg == nil {
		return true, "the configuration could not be read, so block mode is assumed"
	}
	if cfg.Policy().Mode == gating.ModeBlock {
		return true, "gating.mode is block"
	}
	if c.Session == "" {
		// the recovery gate cannot be known without a session; in warn mode a call that
		// names neither the bank nor mbguard's configuration (NamesBank) goes on
		return false, ""
	}
	st := state.New(r.StateDir()+"/sessions", cfg.TTL(), h.now)
	s, outcome, err := st.Load(c.Session)
	if cfg.Policy().RecoveryMode == gating.ModeBlock {
		if outcome == state.Corrupt || outcome == state.Unreadable || (err != nil && outcome == state.Fresh) {
			return true, "the session state cannot be read, so recovery after compaction may be armed"
		}
		if s.Recovery != nil {
			return true, "recovery after compaction is armed: read " + strings.Join(s.Recovery.Anchors, ", ")
		}
	}
	return false, ""
}

// maxOutput bounds the tool output repeated after an outcome block.
const maxOutput = 16 << 10

// undoneText is an outcome block's message followed by the tool's own output, for hosts whose
// reply replaces the tool's result.
func undoneText(c *hookCall, a *hookAnswer) string {
	text := joinText(a.Undone, a.Context)
	out := strings.TrimSpace(redactString(c.Output, a.Secrets)) // a bank secret the tool read never goes back
	if out == "" {
		return text
	}
	if len(out) > maxOutput {
		out = "…" + out[len(out)-maxOutput:]
	}
	return text + "\n\nThe tool's own output:\n" + out
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

// objectArgs decodes a tool input that must be a JSON object (or absent).
func objectArgs(raw json.RawMessage, field string) (map[string]any, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, ""
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Sprintf("the hook payload's %q is not a JSON object", field)
	}
	return m, ""
}

// encodeJSON renders a reply object without HTML escaping, so <memory-bank> stays readable
// in transcripts.
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return b.Bytes()
}

// sniffString recovers one string member from a payload that is not valid JSON (a truncated
// one, say), so the fail-safe rule can still apply.
func sniffString(raw []byte, key string) string {
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

// namesBank reports whether a payload mbguard could not decode mentions memory-bank anywhere
// but in its cwd (a repository may live under a folder of that name).
func namesBank(raw []byte, cwd string) bool {
	if cwd != "" {
		raw = bytes.ReplaceAll(raw, []byte(cwd), nil)
	}
	return bytes.Contains(raw, []byte(bank.Dir))
}

// namesProtected reports a payload that names one of mbguard's own files (.mbguard.yaml, the
// hook settings), which the config guard keeps in every mode.
func namesProtected(raw []byte) bool {
	for _, p := range gating.ProtectedPaths {
		if bytes.Contains(raw, []byte(p)) {
			return true
		}
	}
	return false
}

// shortErr words a payload's decoding error for people: no Go type names, at most 120 bytes.
func shortErr(err error) string {
	s := jsonmsg.Describe(err)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
