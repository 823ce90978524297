package watcher

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/declog"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// writeTools write exactly the paths their arguments name; what they write there is accepted
// by the outcome check when the pre decision allowed it and the result passes the rules.
var writeTools = map[string]bool{"write": true, "edit": true, "multiedit": true, "notebookedit": true,
	"apply_patch": true, "patch": true}

// mayWrite reports whether a tool call needs the outcome check: every write, every tool
// mbguard does not know, and every shell command — also one the classifier calls read-only,
// since a command line cannot show what a script it runs will do (`bash tools/x.sh` reads
// as harmless), and that misjudgement is exactly what this second line is for.
func mayWrite(tool string, d gating.Decision) bool {
	if d.Risk != gating.RiskNone && d.Risk != "" {
		return true
	}
	return gating.ClassifyTool(tool) != gating.ClassRead
}

// serialHost reports whether name runs one tool call at a time per session (host.Spec.Serial),
// so that a session's next pre event closes the window of a call whose post never came
// (docs/hosts/windows.md). No host is serial yet: each can run several calls of one turn at
// once (read-only ones at least), so their windows close on the events they send.
func serialHost(name string) bool { return host.Get(name).Serial }

// callID is the host's id of the call, or one derived from what identifies it in both the
// pre and the post event when the host sends none.
func callID(e gating.Event) string {
	if e.Call != "" {
		return e.Call
	}
	h := sha256.New()
	h.Write([]byte(e.Session + "\x00" + e.Tool + "\x00"))
	b, _ := json.Marshal(e.Args)
	h.Write(b)
	return "syn-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// verify runs the outcome check around tool calls: before one that may write (and is not
// blocked) it records the call, after it it undoes what the rules forbid; the tool.after
// decision then carries the block. It returns notices for the agent. Called with s.mu held.
func (s *Service) verify(e gating.Event, d *gating.Decision) []string {
	if s.opts.NoOutcome {
		return nil
	}
	switch e.Kind {
	case gating.EvMessage:
		return s.endCalls(e.Session, "", true)
	case gating.EvToolBefore:
		return s.verifyBefore(e, d)
	case gating.EvToolAfter:
		return s.verifyAfter(e, d)
	}
	return nil
}

// verifyBefore records a call that may write as in flight (outcome.Guard.Before), after the
// refusals that come first: the unguarded state, and a git command that would bring the
// agent's own commit into the bank.
func (s *Service) verifyBefore(e gating.Event, d *gating.Decision) []string {
	if d.Verdict == gating.Block || !mayWrite(e.Tool, *d) {
		return nil
	}
	if s.unguardedBlock(e, d) {
		return nil
	}
	if cmd, _ := e.Args["command"].(string); gating.ShellTool(e.Tool) && cmd != "" {
		// a git command that would bring the agent's own commit into the bank (outcome/provenance_pre.go)
		if msg := s.guard().RefuseGit(cmd, e.Cwd); msg != "" {
			d.Verdict, d.Gate, d.Message, d.Advice = gating.Block, gating.GateOutcome, msg, ""
			return nil
		}
	}
	rep, err := s.guard().Before(s.preCall(e, *d))
	if busy := (*outcome.BusyError)(nil); errors.As(err, &busy) {
		// an earlier call's changes are still being undone (in the background): this call
		// would run on a bank not yet put back, so it waits its turn
		d.Verdict, d.Gate = gating.Block, gating.GateOutcome
		d.Message, d.Advice = "[mbguard] blocked: "+busy.Error()+".", ""
		return s.report(e, rep)
	}
	if errors.Is(err, outcome.ErrStoreLost) {
		return s.storeLost(e, d, rep)
	}
	if err != nil {
		return append(rep.Finished, "mbguard: the known-good state of memory-bank/ could not be recorded: "+err.Error()+"; run `mbguard doctor`.")
	}
	return s.report(e, rep)
}

// storeLost: no authentic known-good state is left, so nothing a call writes into the bank
// could be judged: bank writes are refused until the person has looked.
func (s *Service) storeLost(e gating.Event, d *gating.Decision, rep outcome.Report) []string {
	for _, p := range d.Paths {
		if p == bank.Dir || strings.HasPrefix(p, bank.Dir+"/") {
			d.Verdict, d.Gate = gating.Block, gating.GateOutcome
			d.Message = "[mbguard] blocked: " + lostText
			d.Advice = ""
			return s.report(e, rep)
		}
	}
	return append([]string{"mbguard: " + lostText}, s.report(e, rep)...)
}

// preCall is the in-flight record of the call e: the bank paths its write tool may write
// (Allowed) and, where the tool's arguments tell, what it will write there (Expect).
func (s *Service) preCall(e gating.Event, d gating.Decision) outcome.Call {
	c := outcome.Call{ID: callID(e), Session: e.Session, Host: e.Host, Tool: e.Tool, Start: e.Now, Parent: hostOf(s.peer, s.peerHost)}
	lt := strings.ToLower(e.Tool)
	// gating.shell_markdown_writes lets the shell write the .md files its command names
	shellMD := (lt == "bash" || lt == "shell" || lt == "powershell") && s.engine.Policy.ShellMarkdownWrites
	if writeTools[lt] || shellMD {
		for _, p := range d.Paths {
			if strings.HasPrefix(p, bank.Dir+"/") && (!shellMD || strings.HasSuffix(strings.ToLower(p), ".md")) {
				c.Allowed = append(c.Allowed, p)
			}
		}
	}
	if !writeTools[lt] || len(c.Allowed) == 0 {
		return c
	}
	// what the tool will write, from its arguments: only that is accepted as its write
	res := gating.WriteResults(e.Tool, e.Args, e.Cwd, s.facts())
	for _, p := range c.Allowed {
		if t, ok := res[p]; ok {
			if c.Expect == nil {
				c.Expect = map[string]string{}
			}
			c.Expect[p] = outcome.TextSum([]byte(t))
		}
	}
	return c
}

// verifyAfter runs the check after a call (outcome.Guard.After); what it undid refuses the
// call's result.
func (s *Service) verifyAfter(e gating.Event, d *gating.Decision) []string {
	var notes []string
	check := mayWrite(e.Tool, gating.Decision{})
	rep, err := s.guard().After(outcome.Call{ID: callID(e), Session: e.Session, Host: e.Host, Tool: e.Tool,
		Check: check, Spawns: check && !writeTools[strings.ToLower(e.Tool)]})
	var busy *outcome.BusyError
	switch {
	case errors.As(err, &busy):
		notes = append(notes, "mbguard: "+busy.Error()+"; this call's changes are judged then.")
	case errors.Is(err, outcome.ErrStoreLost):
		notes = append(notes, "mbguard: "+lostText)
	case err != nil:
		notes = append(notes, "mbguard: memory-bank/ could not be checked after this call: "+err.Error()+"; run `mbguard doctor`.")
	}
	if rep.Blocked() || rep.Background {
		d.Verdict, d.Gate, d.Message = gating.Block, gating.GateOutcome, rep.Message(e.Host)
		if rep.Background {
			// never "killed, so it stands": the agent hears that the undo goes on
			d.Message = joinNotes(rep.BackgroundMessage(), d.Message)
		}
		d.Paths = d.Paths[:0]
		for _, u := range rep.Undone {
			d.Paths = append(d.Paths, u.Path)
		}
		d.Advice = ""
		rep.Undone = nil // logged through the decision
	}
	return append(notes, s.report(e, rep)...)
}

// confirmFlag is the doctor flag that ends the unguarded state: the person's word only.
const confirmFlag = "confirm-user-files"

// unguardedBlock refuses, before it runs, a shell call that names `mbguard doctor
// --confirm-user-files` (only the person may say their user-level hook files are as they
// want them), and — while a change to those files during an agent's call is unconfirmed —
// every call that writes memory-bank/ or mbguard's configuration. It reports whether it
// refused. Called with s.mu held.
func (s *Service) unguardedBlock(e gating.Event, d *gating.Decision) bool {
	if gating.ShellTool(e.Tool) {
		if cmd, _ := e.Args["command"].(string); strings.Contains(cmd, confirmFlag) {
			d.Verdict, d.Gate, d.Advice = gating.Block, gating.GateOutcome, ""
			d.Message = "[mbguard] blocked: `mbguard doctor --" + confirmFlag + "` is the user's word that their user-level hook files are as they want them; an agent cannot give it. Next: ask the user to run it in a terminal."
			return true
		}
	}
	touches := false
	for _, p := range d.Paths {
		touches = touches || p == bank.Dir || strings.HasPrefix(p, bank.Dir+"/") || s.engine.Policy.Protects(p, s.fold())
	}
	if !touches {
		return false
	}
	files := outcome.UnguardedFiles(s.Repo)
	if len(files) == 0 {
		return false
	}
	d.Verdict, d.Gate, d.Advice = gating.Block, gating.GateOutcome, ""
	d.Message = "[mbguard] blocked: user-level hook settings changed during an agent's call (" + strings.Join(files, ", ") + "). " + outcome.UnguardedText
	return true
}

func joinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "\n" + b
}

// Settle finishes, in this process, the checks of r that ran out of time or whose hook was
// killed (outcome.Guard.Finish): `mbguard settle`, which a check that ran out of time starts
// detached. What it undid is logged like any check's.
func Settle(r repo.Repo, cfg *config.Config) error {
	s := NewService(r, cfg, ServiceOptions{})
	defer s.Close()
	rep, err := s.guard().Finish()
	s.mu.Lock()
	defer s.mu.Unlock()
	e := gating.Event{Session: rep.Call.Session, Host: rep.Call.Host}
	if rep.Blocked() {
		s.log(declog.Entry{Session: e.Session, Host: e.Host, Event: "outcome", Tool: rep.Call.Tool, Gate: string(gating.GateOutcome),
			Verdict: string(gating.Block), Paths: undonePaths(rep), Message: rep.Message(e.Host)})
		rep.Undone = nil
	}
	s.report(e, rep)
	return err
}

// endCalls closes the windows of session's in-flight calls (outcome.Guard.End): the session
// moved on, or the host refused one call (denied: it never ran). It returns notices for the
// agent. Called with s.mu held.
func (s *Service) endCalls(session, call string, ran bool) []string {
	if s.opts.NoOutcome {
		return nil
	}
	rep, err := s.guard().End(session, call, ran)
	if err != nil {
		return []string{"mbguard: closing the calls of this session: " + err.Error() + "; run `mbguard doctor`."}
	}
	return s.report(gating.Event{Session: session, Host: rep.Call.Host}, rep)
}

// closeWindow serves Op "close": the host said a call's window is over without its post event
// (Claude Code's Stop and PermissionDenied), or a subagent stopped (SubagentStop).
func (s *Service) closeWindow(req Request) Response {
	if req.Session == "" {
		return Response{ID: req.ID, Error: `op "close" needs a "session"`}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return Response{ID: req.ID, Notice: strings.Join(s.endCalls(req.Session, req.Call, !req.Denied), "\n")}
}

// openWindow serves Op "open": a subagent started (Claude Code's SubagentStart). Its tools may
// write without firing hooks, so its window is the agent's until Op "close" names the same
// call: what changes in the bank meanwhile is judged as an agent's write, undone when it
// breaks the rules.
func (s *Service) openWindow(req Request) Response {
	if req.Session == "" || req.Call == "" {
		return Response{ID: req.ID, Error: `op "open" needs a "session" and a "call"`}
	}
	if s.opts.NoOutcome {
		return Response{ID: req.ID}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := gating.Event{Session: req.Session, Host: req.Host}
	rep, err := s.guard().Before(outcome.Call{ID: req.Call, Session: req.Session, Host: req.Host, Tool: "Agent", Agent: true,
		Parent: hostOf(req.from, req.fromHost)})
	notes := s.report(e, rep)
	if err != nil {
		notes = append(notes, "mbguard: the known-good state of memory-bank/ could not be recorded before the subagent: "+err.Error()+"; run `mbguard doctor`.")
	}
	return Response{ID: req.ID, Notice: strings.Join(notes, "\n")}
}

// lostText tells the agent, for the person, that mbguard's record of the bank is gone.
const lostText = "every copy of mbguard's known-good record of memory-bank/ was deleted or forged, so writes to memory-bank/ are refused in this session. " +
	"Next: tell the user; they check memory-bank/ (`git status memory-bank`) and run `mbguard doctor`."

// report logs and renders what a check did besides the current call's own undo.
func (s *Service) report(e gating.Event, rep outcome.Report) []string {
	// checks finished in the background logged their undo themselves
	notes := rep.Finished
	if rep.Blocked() { // a pre check settled a call whose post never came
		msg := rep.Message(e.Host)
		s.log(declog.Entry{Session: e.Session, Host: e.Host, Event: "outcome", Tool: rep.Call.Tool, Gate: string(gating.GateOutcome),
			Verdict: string(gating.Block), Paths: undonePaths(rep), Message: msg})
		notes = append(notes, msg)
	}
	if n := rep.Notice(); n != "" {
		var ps []string
		for _, p := range rep.Noticed {
			ps = append(ps, p.Path)
		}
		s.log(declog.Entry{Session: e.Session, Host: e.Host, Event: "outcome", Gate: string(gating.GateOutcome),
			Verdict: string(gating.Warn), Paths: ps, Message: n})
		notes = append(notes, n)
	}
	return notes
}

func undonePaths(rep outcome.Report) []string {
	var ps []string
	for _, u := range rep.Undone {
		ps = append(ps, u.Path)
	}
	return ps
}

// bankNoticer is the Sink side the file watcher tells about every event under memory-bank/.
type bankNoticer interface{ bankChanged() }

func (s *Service) bankChanged() { s.bankGen.Add(1) }

// bankQuiet reports the file watcher's event count when it is running (ok), so the outcome
// check can skip a pre-call walk while no event has arrived since its last walk. Only the pre
// walk is skipped: the post check always walks, so an agent's change is never missed; an edit
// whose event is still in flight at that moment is judged by the post check (and, if undone,
// kept in the quarantine).
func (s *Service) bankQuiet() (uint64, bool) {
	if !s.watching.Load() {
		return 0, false
	}
	return s.bankGen.Load(), true
}
