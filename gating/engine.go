package gating

import (
	"strings"
)

// Engine applies a Policy to a session's events. It holds no session data itself, so one
// Engine serves every session concurrently; each State must be used by one goroutine at a time.
type Engine struct {
	Policy Policy

	// compiled path lists; nil or stale (the Policy's lists replaced) means compile per call
	sens, safe   *matcher
	sensF, safeF *matcher // folded, for case-insensitive file systems (macOS, Windows)
}

// New returns an Engine for p, with p's path lists compiled once. A literal Engine{Policy: p}
// works too, compiling them on every write.
func New(p Policy) *Engine {
	e := &Engine{Policy: p}
	e.sens = compile(e.Policy.SensitivePaths, false)
	e.safe = compile(e.Policy.SafePaths, false)
	e.sensF = compile(e.Policy.SensitivePaths, true)
	e.safeF = compile(e.Policy.SafePaths, true)
	return e
}

var allow = Decision{Verdict: Allow}

// Handle decides ev for the session st and updates st. It never does I/O: everything about
// the file system comes from fx.
func (e *Engine) Handle(st *State, ev Event, fx Facts) Decision {
	if st.Session == "" {
		st.Session = ev.Session
	}
	if ev.Now != 0 {
		st.Updated = ev.Now
	}
	switch ev.Kind {
	case EvSessionEnd:
		*st = State{}
		return allow
	case EvMessage:
		if ev.Message == "" || ev.Message != st.Message {
			e.startMessage(st, ev.Message)
		}
	default:
		// A host that skipped the message event still must not carry one message's reads
		// into the next.
		if ev.Message != "" && ev.Message != st.Message {
			e.startMessage(st, ev.Message)
		}
	}
	// Without memory-bank/ there is nothing to read, recover or guard.
	if !fx.BankExists() {
		return allow
	}
	switch ev.Kind {
	case EvMessage:
		var d Decision
		d.Verdict = Allow
		for _, p := range ev.Attached {
			e.noteRead(st, canon(p, ev.Cwd, fx), fx.CaseInsensitive(), &d)
		}
		return d
	case EvToolBefore:
		a := parseAction(ev.Tool, ev.Args, ev.Cwd, fx, 0)
		return e.before(st, &a, ev, fx)
	case EvToolAfter:
		a := parseAction(ev.Tool, ev.Args, ev.Cwd, fx, 0)
		d := allow
		e.after(st, &a, fx, &d)
		return d
	case EvCompaction:
		return e.compaction(st, ev, fx)
	}
	return allow
}

func (e *Engine) startMessage(st *State, id string) {
	st.Message = id
	st.Reads = st.Reads[:0]
	st.Satisfied = false
	clear(st.Warned)
	st.BankWritten = false
}

// after records what a successful tool call read.
func (e *Engine) after(st *State, a *action, fx Facts, d *Decision) {
	switch a.kind {
	case kindRead:
		for _, r := range a.reads {
			e.noteRead(st, r, fx.CaseInsensitive(), d)
		}
	case kindShell:
		// Only a command that writes nothing is trusted as a read: the classifier's read list
		// for a mixed command says what it touched, not what the agent saw.
		if !a.isWrite() {
			for _, r := range a.reads {
				e.noteRead(st, r, fx.CaseInsensitive(), d)
			}
		}
	case kindAgent:
		if e.isReader(a.agent) {
			st.Satisfied = true
			if st.Recovery != nil {
				st.Recovery = nil
				d.Recovery = "cleared"
			}
		}
	case kindBatch:
		for i := range a.subs {
			e.after(st, &a.subs[i], fx, d)
		}
	}
}

func (e *Engine) isReader(agent string) bool {
	for _, r := range e.Policy.ReaderAgents {
		if strings.EqualFold(r, agent) {
			return true
		}
	}
	return false
}

// key spells a policy path the way Canon spells paths on this file system.
func key(p string, fold bool) string {
	if fold {
		return strings.ToLower(p)
	}
	return p
}

// noteRead counts one successful read of a memory-bank file.
func (e *Engine) noteRead(st *State, c canonPath, fold bool, d *Decision) {
	if !c.inRepo || !inBank(c.rel) || c.lexIn && !inBank(c.lex) {
		return // a symlink into the bank from outside is not evidence of reading the bank
	}
	rel := c.rel
	if !contains(st.Reads, rel) {
		st.Reads = append(st.Reads, rel)
	}
	for _, s := range e.Policy.SatisfyReads {
		if key(s, fold) == rel {
			st.Satisfied = true
		}
	}
	if e.isAnchor(rel, fold) {
		st.Anchors = touchLRU(st.Anchors, rel, e.lru())
	}
	if r := st.Recovery; r != nil && contains(r.Anchors, rel) {
		if !contains(r.Read, rel) {
			r.Read = append(r.Read, rel)
		}
		if allIn(r.Anchors, r.Read) {
			st.Recovery = nil
			d.Recovery = "cleared"
		}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func allIn(want, have []string) bool {
	for _, w := range want {
		if !contains(have, w) {
			return false
		}
	}
	return true
}

// before is the gate.
func (e *Engine) before(st *State, a *action, ev Event, fx Facts) Decision {
	if a.kind == kindBatch && a.bad == "" {
		return e.beforeBatch(st, a, ev, fx)
	}
	if !a.isWrite() {
		return Decision{Verdict: Allow, Risk: RiskNone}
	}
	return e.gate(st, a, ev, fx)
}

// beforeBatch evaluates every sub-call; the strictest decision wins. A blocked batch does not
// run at all, so its allowed parts must not leave traces (warned flags, bank writes) in st.
func (e *Engine) beforeBatch(st *State, a *action, ev Event, fx Facts) Decision {
	warned := make(map[string]bool, len(st.Warned))
	for k, v := range st.Warned {
		warned[k] = v
	}
	bankWritten := st.BankWritten
	best := allow
	var paths []string
	risk := RiskNone
	for i := range a.subs {
		d := e.before(st, &a.subs[i], ev, fx)
		paths = append(paths, d.Paths...)
		if riskRank(d.Risk) > riskRank(risk) {
			risk = d.Risk
		}
		if verdictRank(d.Verdict) > verdictRank(best.Verdict) ||
			verdictRank(d.Verdict) == verdictRank(best.Verdict) && gateRank(d.Gate) > gateRank(best.Gate) {
			adv := best.Advice
			best = d
			if best.Advice == "" {
				best.Advice = adv
			}
		} else if best.Advice == "" {
			best.Advice = d.Advice
		}
		if d.Recovery != "" {
			best.Recovery = d.Recovery
		}
	}
	if best.Verdict == Block {
		st.Warned, st.BankWritten = warned, bankWritten
		best.Advice = ""
	}
	best.Paths, best.Risk = paths, risk
	return best
}

func verdictRank(v Verdict) int {
	switch v {
	case Block:
		return 2
	case Warn:
		return 1
	}
	return 0
}

func riskRank(r Risk) int {
	switch r {
	case RiskLow:
		return 1
	case RiskMedium:
		return 2
	case RiskHigh:
		return 3
	}
	return 0
}

// gateRank is the precedence among equal verdicts: bank guard > recovery > read > doc-first.
func gateRank(g Gate) int {
	switch g {
	case GateConfig:
		return 5
	case GateBank:
		return 4
	case GateRecovery:
		return 3
	case GateRead:
		return 2
	case GateDocFirst:
		return 1
	}
	return 0
}

// candidate is one gate's objection before precedence picks the winner.
type candidate struct {
	verdict Verdict
	gate    Gate
	msg     string
	once    string // warn-once key, consumed only when this candidate is the one shown
}

func (e *Engine) gate(st *State, a *action, ev Event, fx Facts) Decision {
	fold := fx.CaseInsensitive()
	risk := e.assessRisk(a, fold)
	d := Decision{Verdict: Allow, Risk: risk, Paths: make([]string, 0, len(a.writes))}
	for _, w := range a.writes {
		if !contains(d.Paths, w.rel) {
			d.Paths = append(d.Paths, w.rel)
		}
	}
	var buf [5]candidate
	cands := buf[:0]
	// 1. memory-bank write guard, in every mode
	bankMsg, bankWrites := e.bankGuard(a, fx, fold)
	if fold {
		bankMsg = respell(bankMsg, a.writes)
	}
	if bankMsg != "" {
		cands = append(cands, candidate{verdict: Block, gate: GateBank, msg: bankMsg})
	}
	// 1b. mbguard's own configuration, in every mode
	if msg := e.configGuard(a, fold, fx); msg != "" {
		cands = append(cands, candidate{verdict: Block, gate: GateConfig, msg: msg})
	}
	// 2. recovery gate
	if c, cleared := e.recoveryGate(st, a, risk, ev.Host, d.Paths, fx); c.verdict != "" {
		cands = append(cands, c)
	} else if cleared {
		d.Recovery = "cleared"
	}
	// 3. read gate
	if c, ok := e.readGate(st, risk); ok {
		cands = append(cands, c)
	}
	// 4. Doc-First gate
	if c, ok := e.docFirstGate(st, a, bankWrites); ok {
		cands = append(cands, c)
	}
	if c, ok := strictest(cands); ok {
		e.show(st, &d, c, ev.Host, fx)
	}
	if d.Verdict != Block && bankWrites {
		st.BankWritten = true
		d.Advice = bankGuideline
	}
	return d
}

// readGate objects to a risky call made before the bank was read.
func (e *Engine) readGate(st *State, risk Risk) (candidate, bool) {
	if e.Policy.Mode == ModeOff || st.Satisfied || riskRank(risk) < riskRank(RiskMedium) {
		return candidate{}, false
	}
	v := Warn
	if e.Policy.Mode == ModeBlock && risk == RiskHigh {
		v = Block
	}
	if v != Block && st.Warned[string(GateRead)] {
		return candidate{}, false
	}
	return candidate{verdict: v, gate: GateRead, once: string(GateRead)}, true
}

// docFirstGate objects to a code write in a session that has not yet written the bank.
func (e *Engine) docFirstGate(st *State, a *action, bankWrites bool) (candidate, bool) {
	if e.Policy.DocFirstMode == ModeOff || st.BankWritten || bankWrites {
		return candidate{}, false
	}
	code := codeWrites(a)
	if len(code) == 0 {
		return candidate{}, false
	}
	v := Warn
	if e.Policy.DocFirstMode == ModeBlock {
		v = Block
	}
	if v != Block && st.Warned[string(GateDocFirst)] {
		return candidate{}, false
	}
	return candidate{verdict: v, gate: GateDocFirst, msg: docFirstMessage(v, code), once: string(GateDocFirst)}, true
}

// strictest picks the winner: candidates are in precedence order, so the first of the strictest
// verdict.
func strictest(cands []candidate) (candidate, bool) {
	win := -1
	for i := range cands {
		if win < 0 || verdictRank(cands[i].verdict) > verdictRank(cands[win].verdict) {
			win = i
		}
	}
	if win < 0 {
		return candidate{}, false
	}
	return cands[win], true
}

// show makes the winning candidate the decision, and spends its warn-once key.
func (e *Engine) show(st *State, d *Decision, c candidate, host string, fx Facts) {
	d.Verdict, d.Gate, d.Message = c.verdict, c.gate, c.msg
	if c.gate == GateRead {
		d.Message = e.readGateMessage(c.verdict, d.Risk, d.Paths, host, fx)
	}
	if c.verdict == Warn && c.once != "" {
		if st.Warned == nil {
			st.Warned = map[string]bool{}
		}
		st.Warned[c.once] = true
	}
}

// docExts are the extensions of documentation, which Doc-First does not ask to document first.
var docExts = []string{".md", ".mdx", ".markdown", ".rst", ".txt", ".adoc"}

// codeWrites lists the in-repository, non-documentation files outside memory-bank/ a call writes.
func codeWrites(a *action) []string {
	var out []string
	for _, w := range a.writes {
		if !w.inRepo || inBank(w.rel) {
			continue
		}
		if isDoc(w.rel) {
			continue
		}
		out = append(out, w.rel)
	}
	return out
}

func isDoc(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		switch strings.ToUpper(base) {
		case "README", "LICENSE", "CHANGELOG", "NOTICE", "AUTHORS", "CONTRIBUTING":
			return true
		}
		return false
	}
	ext := base[dot:]
	for _, d := range docExts {
		if strings.EqualFold(ext, d) {
			return true
		}
	}
	return false
}
