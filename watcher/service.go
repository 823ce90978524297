package watcher

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/declog"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/state"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/scanner"
)

// ServiceOptions tunes a Service.
type ServiceOptions struct {
	// Resident is true for long-lived processes (serve, watch): sessions are cached in memory and
	// persisted on change. Per-call hooks leave it false: every call loads and saves its session
	// file under a lock.
	Resident bool
	// Now is the clock (time.Now when nil); tests pass a fake.
	Now func() time.Time
	// NoOutcome turns the post-call outcome check off: the baseline of bench/outcome. It is
	// deliberately not a configuration key, so an agent cannot switch it off by a file write.
	NoOutcome bool
	// Jail, when set (kernel.mode on and a jail works here), turns a shell call that is not
	// blocked into the command line the host runs instead: the same command with memory-bank/
	// read-only (jail.Wrapper). Nil leaves shell calls as they are.
	Jail func(cmd string) string
	// Secrets is the secret scanner to use (scanner.NewSecrets of the repository when nil): a
	// hook's in-process Service shares its call's (scanner.NewCallSecrets), so the bank's
	// secrets are looked up once per call.
	Secrets *scanner.Secrets
}

// Service answers gating requests for one repository with one engine and one state store.
// It is safe for concurrent use.
type Service struct {
	Repo repo.Repo
	Cfg  *config.Config
	opts ServiceOptions

	engine  *gating.Engine
	store   *state.Store
	logPath string

	secretsOnce sync.Once
	secrets     *scanner.Secrets
	guard       func() *outcome.Guard // the post-call outcome check, built on first use
	// watching is set while WatchBank's fsnotify loop runs; bankGen counts the events it saw
	// under memory-bank/ (and its errors). Together they let a pre check skip its walk.
	watching atomic.Bool
	bankGen  atomic.Uint64
	fold     func() bool // the file system's case folding, probed once
	// startedUnder names the agent call a watcher found among its ancestors when it started
	startedUnder string

	mu       sync.Mutex
	peer     int                      // the process of the request being served (origin.go)
	peerHost bool                     // peer is the host itself (WithHost)
	sessions map[string]*gating.State // resident cache
	findings []Finding
	told     map[string]int // session → how many of findings it was told about
	memo     contextMemo
}

// contextMemo caches the rendered context block until MEMORY.md changes.
type contextMemo struct {
	valid   bool
	mtime   time.Time
	size    int64
	layout  bank.Layout
	block   string
	secrets []scanner.SecretFinding
	scanErr error
}

// maxFindings bounds the findings kept for status and notices; the oldest are dropped.
const maxFindings = 200

// NewService makes the Service for repository r.
func NewService(r repo.Repo, cfg *config.Config, o ServiceOptions) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if cfg == nil {
		cfg, _ = config.Load(config.Options{RepoRoot: r.Root})
	}
	s := &Service{Repo: r, Cfg: cfg, opts: o,
		engine:   gating.New(cfg.Policy()),
		store:    state.New(filepath.Join(r.StateDir(), "sessions"), cfg.TTL(), o.Now),
		logPath:  declog.Path(r.StateDir()),
		sessions: map[string]*gating.State{},
		told:     map[string]int{},
		fold:     sync.OnceValue(func() bool { return foldsCase(r.Root) }),
	}
	s.guard = sync.OnceValue(func() *outcome.Guard {
		home, _ := os.UserHomeDir()
		return outcome.New(r, outcome.Options{Now: o.Now, Quiet: s.bankQuiet, Serial: serialHost, Fold: s.fold,
			Protected:     s.engine.Policy.ProtectedPaths,
			UserProtected: append(gating.UserProtectedFiles(home, s.engine.Policy.ProtectedPaths), OwnFiles(os.Getenv)...),
			Rules: outcome.Rules{
				Minimum: cfg.MinimumTemplate(), AllowedFiles: cfg.Check.AllowedFiles, Secrets: s.detector}})
	})
	return s
}

// detector is the repository's gitleaks detector, constructed on first use only: building
// it costs tens of milliseconds and no code-file write needs it.
func (s *Service) detector() *scanner.Secrets {
	s.secretsOnce.Do(func() {
		s.secrets = s.opts.Secrets
		if s.secrets == nil {
			s.secrets = scanner.NewSecrets(s.Repo.Root)
		}
	})
	return s.secrets
}

func (s *Service) facts() *Facts {
	f := NewFacts(s.Repo.Root, s.detector)
	f.foldFn = s.fold
	return f
}

// Handle serves one request. It never panics on bad input and always returns a Response
// carrying req.ID.
func (s *Service) Handle(ctx context.Context, req Request) (resp Response) {
	defer func() {
		if p := recover(); p != nil {
			resp = Response{ID: req.ID, Error: fmt.Sprintf("internal error: %v (please report it with `mbguard status` output)", p)}
		}
	}()
	if err := ctx.Err(); err != nil {
		return Response{ID: req.ID, Error: err.Error()}
	}
	req.from, req.fromHost = requester(ctx)
	switch req.Op {
	case "ping", "shutdown":
		return Response{ID: req.ID}
	case "trust":
		return Response{ID: req.ID, Config: ConfigDigest(s.Cfg), Agent: s.startedUnder}
	case "event":
		return s.event(req)
	case "context":
		return s.context(req)
	case "close":
		return s.closeWindow(req)
	case "open":
		return s.openWindow(req)
	case "status":
		st, err := s.Status()
		r := Response{ID: req.ID, Status: st}
		if err != nil {
			r.Error = err.Error()
		}
		return r
	case "":
		return Response{ID: req.ID, Error: `request has no "op": want event, context, status or ping`}
	}
	return Response{ID: req.ID, Error: fmt.Sprintf("unknown op %q: want event, context, open, close, status, trust or ping", req.Op)}
}

// session is one loaded session: the state, and how to save and release it.
type session struct {
	st      *gating.State
	before  *gating.State
	updated int64
	lock    *state.Lock
	notes   []string // reported to the agent: corrupt state, unsaved state
	err     error    // the state could not be read or saved
	lost    bool     // the file could not be read: its note already says saving will fail
}

// open loads a session: from the resident cache, else its file under its lock. A corrupt or
// unreadable file is replaced by a fresh state that is careful: context not satisfied and,
// since the lost state could have held an armed recovery gate, recovery armed on the fallback
// anchors as a precaution. The notes say which of the two happened and what to do.
func (s *Service) open(id string, fx gating.Facts) *session {
	ss := &session{}
	if s.opts.Resident {
		if st, ok := s.sessions[id]; ok {
			ss.st = st
			ss.before, ss.updated = snapshot(st)
			return ss
		}
	} else {
		lk, err := s.store.Lock(id)
		if err != nil {
			ss.err = err
		}
		ss.lock = lk
	}
	st, outcome, err := s.store.Load(id)
	switch {
	case outcome == state.Corrupt:
		s.arm(&st, fx, "this session's state file was corrupt")
		ss.notes = append(ss.notes, fmt.Sprintf("mbguard: %v; started this session's state afresh with the memory unread%s.", err, recoveryNote(st)))
		s.log(declog.Entry{Session: id, Event: "state", Verdict: string(gating.Warn), Recovery: recoveryWord(st), Message: err.Error()})
	case outcome == state.Unreadable:
		ss.lost = true
		s.arm(&st, fx, "this session's state file cannot be read")
		ss.notes = append(ss.notes, fmt.Sprintf("mbguard: %v; this call starts from a fresh state with the memory unread%s. Remove or repair %s so mbguard can keep the session's state.", err, recoveryNote(st), s.store.Path(id)))
		s.log(declog.Entry{Session: id, Event: "state", Verdict: string(gating.Warn), Recovery: recoveryWord(st), Message: err.Error()})
	case err != nil:
		ss.err = err
	}
	ss.st = &st
	if outcome == state.Corrupt || outcome == state.Unreadable {
		ss.before = nil // always save the repaired state
	} else {
		ss.before, ss.updated = snapshot(ss.st)
	}
	if s.opts.Resident {
		s.sessions[id] = ss.st
	}
	return ss
}

func recoveryNote(st gating.State) string {
	if st.Recovery == nil {
		return ""
	}
	return " and, as a precaution (the lost state may have held an armed recovery gate), the recovery gate armed: read " +
		strings.Join(st.Recovery.Anchors, ", ") + " before writing"
}

func recoveryWord(st gating.State) string {
	if st.Recovery != nil {
		return "armed"
	}
	return ""
}

// arm arms recovery on the fallback anchors that exist, naming the cause in its messages.
func (s *Service) arm(st *gating.State, fx gating.Facts, cause string) {
	if !fx.BankExists() {
		return
	}
	var anchors []string
	for _, a := range s.engine.Policy.FallbackAnchors {
		if fx.Exists(a) {
			anchors = append(anchors, a)
		}
	}
	if len(anchors) > 0 {
		st.Recovery = &gating.Recovery{Anchors: anchors, Since: s.opts.Now().UnixMilli(), Cause: cause}
	}
}

// snapshot copies st, to tell a real change from a touch after the engine ran. A copy and a
// field-by-field compare cost a fraction of encoding the state twice per tool call.
func snapshot(st *gating.State) (*gating.State, int64) {
	c := *st
	c.Reads = slices.Clone(st.Reads)
	c.Anchors = slices.Clone(st.Anchors)
	c.Warned = maps.Clone(st.Warned)
	if st.Recovery != nil {
		r := *st.Recovery
		r.Anchors = slices.Clone(st.Recovery.Anchors)
		r.Read = slices.Clone(st.Recovery.Read)
		c.Recovery = &r
	}
	return &c, st.Updated
}

// sameState reports whether a and b differ in nothing but their timestamps.
func sameState(a, b *gating.State) bool {
	if a.Session != b.Session || a.Message != b.Message || a.Satisfied != b.Satisfied ||
		a.BankWritten != b.BankWritten || a.Compactions != b.Compactions || a.Injected != b.Injected ||
		!slices.Equal(a.Reads, b.Reads) || !slices.Equal(a.Anchors, b.Anchors) || !maps.Equal(a.Warned, b.Warned) {
		return false
	}
	if (a.Recovery == nil) != (b.Recovery == nil) {
		return false
	}
	if a.Recovery != nil {
		ra, rb := a.Recovery, b.Recovery
		return ra.Since == rb.Since && ra.Cause == rb.Cause && slices.Equal(ra.Anchors, rb.Anchors) && slices.Equal(ra.Read, rb.Read)
	}
	return true
}

// touchEvery is how stale a session's timestamp may get before a call that changed nothing
// else rewrites the file: expiry needs minutes, not milliseconds, and most PreToolUse calls
// then write nothing at all.
const touchEvery = time.Minute

// close saves a changed session and releases its lock.
func (s *Service) close(ss *session) {
	defer ss.lock.Unlock()
	if ss.before != nil && sameState(ss.before, ss.st) && ss.st.Updated-ss.updated < touchEvery.Milliseconds() {
		return
	}
	if err := s.store.Save(ss.st); err != nil {
		if ss.err == nil && !ss.lost {
			ss.err = err
		}
	}
}

func (s *Service) event(req Request) Response {
	r := Response{ID: req.ID}
	ev := req.Event
	if ev == nil {
		r.Error = `op "event" needs an "event" object`
		return r
	}
	if ev.Session == "" {
		r.Error = "event has no session id: the host must send one"
		return r
	}
	switch ev.Kind {
	case gating.EvMessage, gating.EvToolBefore, gating.EvToolAfter, gating.EvCompaction, gating.EvSessionEnd:
	default:
		r.Error = fmt.Sprintf("unknown event kind %q: want message, tool.before, tool.after, compaction or session.end", ev.Kind)
		return r
	}
	e := *ev
	if e.Now == 0 {
		e.Now = s.opts.Now().UnixMilli()
	}
	fx := s.facts()

	s.mu.Lock()
	defer s.mu.Unlock()
	s.peer, s.peerHost = req.from, req.fromHost
	ss := s.open(e.Session, fx)
	if e.Kind == gating.EvSessionEnd {
		if !s.opts.NoOutcome {
			s.endCalls(e.Session, "", true)
		}
		delete(s.sessions, e.Session)
		delete(s.told, e.Session)
		err := s.store.Remove(e.Session)
		ss.lock.Unlock()
		d := gating.Decision{Verdict: gating.Allow}
		r.Decision = &d
		if err != nil {
			r.Error = err.Error()
		}
		return r
	}
	var d gating.Decision
	if e.Kind == gating.EvCompaction && ss.st.Recovery != nil && len(ss.st.Recovery.Read) == 0 && fx.BankExists() {
		// A host that reports one compaction twice (Claude Code: PreCompact, then SessionStart
		// with source "compact") arms once; the second report gets the same anchor block.
		mem, _ := fx.Read("memory-bank/MEMORY.md")
		ss.st.Updated = e.Now
		d = gating.Decision{Verdict: gating.Allow, Paths: ss.st.Recovery.Anchors,
			Advice: gating.AnchorBlock(ss.st.Recovery.Anchors, gating.CurrentFocus(mem))}
	} else {
		d = s.engine.Handle(ss.st, e, fx)
	}
	s.close(ss)
	notes := ss.notes
	if e.Kind == gating.EvToolBefore && d.Verdict != gating.Block {
		if where := namesOwnState(e); where != "" {
			d = gating.Decision{Verdict: gating.Block, Gate: gating.GateConfig, Paths: []string{where},
				Message: "[mbguard config] blocked: " + where + " is mbguard's own state (its signing key, the known-good copies and signatures); an agent neither reads nor writes it. Next: leave it alone; `mbguard doctor` reports on it."}
		}
	}
	notes = append(notes, s.verify(e, &d)...)
	if d.Verdict != gating.Allow || d.Recovery != "" {
		s.log(declog.Entry{Session: e.Session, Host: e.Host, Event: string(e.Kind), Tool: e.Tool, Gate: string(d.Gate),
			Verdict: string(d.Verdict), Risk: string(d.Risk), Recovery: d.Recovery, Paths: d.Paths, Message: d.Message})
	}
	r.Decision = &d
	r.Command = s.jailed(e, d)
	if err := s.Cfg.Err(); err != nil && (d.Verdict != gating.Allow || e.Kind == gating.EvMessage) {
		notes = append(notes, configNote(s.Cfg, err))
	}
	if n := s.pendingFindings(e.Session); n != "" {
		notes = append(notes, n)
	}
	if req.Redact && e.Kind == gating.EvToolAfter && d.Verdict != gating.Block {
		if where, secrets := s.readSecrets(e, req.Output); len(secrets) > 0 {
			notes = append(notes, scanner.ReadNotice(where))
			r.Redact = secrets
		}
	}
	r.Notice = strings.Join(notes, "\n")
	if ss.err != nil {
		r.Error = fmt.Sprintf("session state: %v (check that %s is writable)", ss.err, s.store.Dir())
	}
	s.redactOut(&r)
	return r
}

// redactOut passes every text of r the model sees through the one redaction of mbguard's own
// texts (scanner.RedactInjected): a bank secret reaches the model in none of them.
func (s *Service) redactOut(r *Response) {
	var texts []*string
	if d := r.Decision; d != nil {
		texts = append(texts, &d.Message, &d.Advice)
	}
	texts = append(texts, &r.Notice, &r.Context)
	for _, t := range texts {
		if *t != "" {
			scanner.RedactInjected(s.detector().BankSecrets(s.Repo.StateDir(), s.Repo.Root), texts...)
			return
		}
	}
}

// jailed is the command line a shell call runs under the kernel line, or "".
func (s *Service) jailed(e gating.Event, d gating.Decision) string {
	if s.opts.Jail == nil || e.Kind != gating.EvToolBefore || d.Verdict == gating.Block || !gating.ShellTool(e.Tool) || gating.PowerShellTool(e.Tool) {
		return ""
	}
	cmd, ok := e.Args["command"].(string)
	if !ok || strings.TrimSpace(cmd) == "" {
		return ""
	}
	return s.opts.Jail(cmd)
}

func configNote(cfg *config.Config, err error) string {
	return "mbguard: " + err.Error() + "; " + cfg.Meanwhile() + "."
}

// log appends to the decision log; a log that cannot be written never changes a decision.
func (s *Service) log(e declog.Entry) {
	if e.Time.IsZero() {
		e.Time = s.opts.Now().UTC()
	}
	_ = declog.Append(s.logPath, e)
}

// pendingFindings renders the findings session has not been told about and marks them told.
// Called with s.mu held.
func (s *Service) pendingFindings(session string) string {
	n := s.told[session]
	if n > len(s.findings) {
		n = 0
	}
	if n == len(s.findings) {
		return ""
	}
	var b strings.Builder
	b.WriteString("mbguard noticed changes to memory-bank/ made outside the agent's tools:")
	for _, f := range s.findings[n:] {
		loc := f.Path
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", f.Path, f.Line)
		}
		fmt.Fprintf(&b, "\n- %s: %s (%s)", loc, f.Message, f.Rule)
	}
	b.WriteString("\nRun `mbguard check --all` to see how to fix them.")
	s.told[session] = len(s.findings)
	return b.String()
}

// AddFinding records an out-of-band change noticed by the file watcher; every session is told
// about it once, at its next tool call or context injection.
func (s *Service) AddFinding(f Finding) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Time == 0 {
		f.Time = s.opts.Now().UnixMilli()
	}
	if f.Resolved {
		s.resolve(f)
		return
	}
	s.findings = append(s.findings, f)
	if drop := len(s.findings) - maxFindings; drop > 0 {
		s.findings = append(s.findings[:0], s.findings[drop:]...)
		for k, n := range s.told {
			s.told[k] = max(0, n-drop)
		}
	}
	s.log(declog.Entry{Event: "finding", Verdict: string(gating.Warn), Gate: f.Rule, Paths: []string{f.Path}, Message: f.Message})
}

// resolve drops the findings f resolves; sessions already told keep their count right.
// Called with s.mu held.
func (s *Service) resolve(f Finding) {
	told := maps.Clone(s.told)
	kept := s.findings[:0]
	for i, g := range s.findings {
		if !g.same(f) {
			kept = append(kept, g)
			continue
		}
		for k, n := range told {
			if i < n {
				s.told[k]--
			}
		}
	}
	s.findings = kept
}

// InvalidateContext drops the cached context block (MEMORY.md changed).
func (s *Service) InvalidateContext() {
	s.mu.Lock()
	s.memo.valid = false
	s.mu.Unlock()
}

// Close persists what is pending and releases resources. Sessions are saved as they change,
// so there is nothing left to flush.
func (s *Service) Close() error { return nil }

// context serves Op "context": the <memory-bank> block for a session, marking it injected.
func (s *Service) context(req Request) Response {
	r := Response{ID: req.ID}
	id := req.Session
	if id == "" && req.Event != nil {
		id = req.Event.Session
	}
	if id == "" {
		r.Error = `op "context" needs a "session"`
		return r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.opts.Resident {
		// session start is the rare moment to clear out expired sessions
		_, _ = s.store.Sweep()
	} else {
		// a resident process keeps expired sessions in memory, but a serve killed mid-save
		// leaves a temporary file that nothing else removes
		_, _ = s.store.RemoveStaleTemps()
	}
	block, notes, err := s.contextBlock(id)
	r.Context = block
	fx := s.facts()
	ss := s.open(id, fx)
	ss.st.Injected = block != "" || ss.st.Injected
	ss.st.Updated = s.opts.Now().UnixMilli()
	s.close(ss)
	notes = append(ss.notes, notes...)
	if cerr := s.Cfg.Err(); cerr != nil {
		notes = append(notes, configNote(s.Cfg, cerr))
	}
	if n := s.pendingFindings(id); n != "" {
		notes = append(notes, n)
	}
	r.Notice = strings.Join(notes, "\n")
	s.redactOut(&r)
	switch {
	case err != nil:
		r.Error = err.Error()
	case ss.err != nil:
		r.Error = fmt.Sprintf("session state: %v (check that %s is writable)", ss.err, s.store.Dir())
	}
	return r
}

// contextBlock renders (or reuses) the context block. A secret in MEMORY.md is redacted
// before it goes into the block and reported, on every injection, until it is removed.
// Called with s.mu held.
func (s *Service) contextBlock(session string) (string, []string, error) {
	dir := s.Repo.BankDir()
	ents, derr := os.ReadDir(dir)
	if derr != nil && !errors.Is(derr, os.ErrNotExist) {
		return "", nil, fmt.Errorf("reading %s: %w", dir, derr)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	layout := bank.DetectLayout(derr == nil, names)
	memPath := filepath.Join(dir, "MEMORY.md")
	fi, serr := os.Stat(memPath)
	m := &s.memo
	if !(m.valid && m.layout == layout && serr == nil && fi.ModTime().Equal(m.mtime) && fi.Size() == m.size) {
		*m = contextMemo{layout: layout}
		var mem []byte
		if serr == nil && (layout == bank.LayoutV7 || layout == bank.LayoutMixed) {
			b, err := os.ReadFile(memPath)
			if err != nil {
				return "", nil, fmt.Errorf("reading %s: %w", memPath, err)
			}
			mem = b
			m.mtime, m.size = fi.ModTime(), fi.Size()
		}
		redact := func(text string) string {
			// Cached under the git dir: every session start scans the same MEMORY.md.
			fs, err := s.detector().ScanCached(s.Repo.StateDir(), "memory-bank/MEMORY.md", []byte(text))
			if err != nil {
				m.scanErr = err
				return "[MEMORY.md withheld: the secret scan failed; run `mbguard doctor`]\n"
			}
			m.secrets = fs
			return string(scanner.Redact([]byte(text), fs))
		}
		m.block = gating.ContextBlock(string(mem), layout, s.Cfg.Context.MaxChars, redact)
		m.valid = serr == nil || layout != bank.LayoutV7
	}
	var notes []string
	if len(m.secrets) > 0 {
		var where []string
		for _, f := range m.secrets {
			where = append(where, fmt.Sprintf("memory-bank/MEMORY.md:%d (%s)", f.Line, f.Rule))
		}
		msg := "MEMORY.md holds a secret at " + strings.Join(where, ", ") +
			"; it was redacted before injection. Remove it from the file and rotate it."
		notes = append(notes, "mbguard: "+msg)
		s.log(declog.Entry{Session: session, Event: "context", Gate: "secret", Verdict: string(gating.Warn), Paths: []string{"memory-bank/MEMORY.md"}, Message: msg})
	}
	if m.scanErr != nil {
		msg := fmt.Sprintf("MEMORY.md was withheld from the context: the secret scan failed: %v; run `mbguard doctor`.", m.scanErr)
		notes = append(notes, "mbguard: "+msg)
		s.log(declog.Entry{Session: session, Event: "context", Gate: "secret", Verdict: string(gating.Warn), Paths: []string{"memory-bank/MEMORY.md"}, Message: msg})
	}
	return m.block, notes, nil
}

// Status is a snapshot of the sessions (files and, when resident, memory) and findings.
func (s *Service) Status() (*Status, error) {
	st := &Status{Root: s.Repo.Root, Watching: s.opts.Resident}
	if s.opts.Resident {
		st.PID = os.Getpid()
	}
	list, err := s.store.List()
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, m := range s.sessions {
		st.Sessions = append(st.Sessions, sessionStatus(m))
		seen[m.Session] = true
	}
	for i := range list {
		if !seen[list[i].Session] {
			st.Sessions = append(st.Sessions, sessionStatus(&list[i]))
		}
	}
	sort.Slice(st.Sessions, func(i, j int) bool { return st.Sessions[i].Updated > st.Sessions[j].Updated })
	st.Findings = append([]Finding(nil), s.findings...)
	if st.Sessions == nil {
		st.Sessions = []SessionStatus{}
	}
	if st.Findings == nil {
		st.Findings = []Finding{}
	}
	return st, err
}

func sessionStatus(g *gating.State) SessionStatus {
	ss := SessionStatus{ID: g.Session, Message: g.Message, Satisfied: g.Satisfied, Updated: g.Updated}
	if g.Recovery != nil {
		ss.RecoveryArmed = true
		for _, a := range g.Recovery.Anchors {
			if !contains(g.Recovery.Read, a) {
				ss.UnreadAnchors = append(ss.UnreadAnchors, a)
			}
		}
	}
	return ss
}

// readSecrets finds the secrets of the bank files a finished call read: the files it named,
// and, when the host sent its output, the bank files under a directory it searched that holds
// the bank or lies in it (`grep -r token .`, the grep tool with no path) whose secrets that
// output shows. where says file, line and rule for each; secrets are the texts to replace.
func (s *Service) readSecrets(e gating.Event, output string) (where, secrets []string) {
	cwd := e.Cwd
	if cwd == "" {
		cwd = s.Repo.Root
	}
	seen := map[string]bool{}
	scan := func(rel, p string, shown bool) {
		if seen[rel] {
			return
		}
		seen[rel] = true
		found, _ := s.detector().ScanRead(s.Repo.StateDir(), rel, p)
		for _, f := range found {
			forms := scanner.SecretForms(f.Secret) // a command may re-encode what it read
			if shown && !scanner.ShowsAny(output, forms) {
				continue
			}
			where = append(where, f.Where(rel))
			secrets = append(secrets, forms...)
		}
	}
	bankDir := filepath.Join(s.Repo.Root, bank.Dir)
	searched := func(dir string) {
		if output == "" {
			return
		}
		if within(bankDir, dir) {
			dir = bankDir // a directory above the bank: every bank file
		} else if !within(dir, bankDir) {
			return
		}
		n := 0
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || n >= maxSearchedFiles {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				if rel, err := filepath.Rel(s.Repo.Root, p); err == nil {
					n++
					scan(filepath.ToSlash(rel), p, true)
				}
			}
			return nil
		})
	}
	targets := gating.TargetPaths(e.Tool, e.Args, filepath.ToSlash(cwd))
	if len(targets) == 0 && searchTools[strings.ToLower(e.Tool)] {
		targets = []string{filepath.ToSlash(cwd)} // a search with no path searches where it runs
	}
	for _, t := range targets {
		p := filepath.Clean(filepath.FromSlash(t))
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			searched(p)
			continue
		}
		rel, err := filepath.Rel(s.Repo.Root, p)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, bank.Dir+"/") {
			scan(rel, p, false)
		}
	}
	// by content: a copy of a bank file outside the bank shows the same secrets
	searched(bankDir)
	return where, secrets
}

// namesOwnState returns mbguard's state directory (outcome.UserStateDir) when a call names it
// or a path below it, in its arguments or, for a shell command, anywhere in its text (`cd` into
// it, `$HOME`/`~`/`$XDG_STATE_HOME` spellings): reading the MAC key there is how an agent would
// forge mbguard's records. "" when it does not.
func namesOwnState(e gating.Event) string {
	base := outcome.UserStateDir()
	if base == "" {
		return ""
	}
	home, _ := os.UserHomeDir()
	cwd := e.Cwd
	for _, t := range gating.TargetPaths(e.Tool, e.Args, filepath.ToSlash(cwd)) {
		p := filepath.FromSlash(t)
		if rest, ok := strings.CutPrefix(t, "/~/"); ok && home != "" {
			p = filepath.Join(home, filepath.FromSlash(rest))
		}
		if within(filepath.Clean(p), base) {
			return base
		}
	}
	if cmd, _ := e.Args["command"].(string); cmd != "" && gating.ShellTool(e.Tool) {
		lc := strings.ToLower(cmd)
		if strings.Contains(cmd, base) || strings.Contains(lc, ".local/state/mbguard") ||
			strings.Contains(lc, "xdg_state_home") && strings.Contains(lc, "mbguard") {
			return base
		}
	}
	return ""
}

// maxSearchedFiles bounds the bank files scanned for one searched directory.
const maxSearchedFiles = 256

// searchTools are the content-search tools that search their working directory when given no
// path (OpenCode's grep).
var searchTools = map[string]bool{"grep": true}

// within reports whether p is dir or lies under it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
