package gating

import (
	"slices"
	"strings"

	"github.com/mbguard/mbguard/bank"
)

func (e *Engine) lru() int {
	if e.Policy.AnchorLRU > 0 {
		return e.Policy.AnchorLRU
	}
	return 5
}

// isAnchor reports whether rel is a recovery anchor: under a prefix ending in "/", or equal to
// an exact file.
func (e *Engine) isAnchor(rel string, fold bool) bool {
	for _, p := range e.Policy.AnchorPrefixes {
		p = key(p, fold)
		if strings.HasSuffix(p, "/") {
			if strings.HasPrefix(rel, p) {
				return true
			}
		} else if rel == p {
			return true
		}
	}
	return false
}

// touchLRU moves rel to the end (most recent) and keeps the last n entries.
func touchLRU(lru []string, rel string, n int) []string {
	for i, x := range lru {
		if x == rel {
			copy(lru[i:], lru[i+1:])
			lru[len(lru)-1] = rel
			return lru
		}
	}
	lru = append(lru, rel)
	if len(lru) > n {
		lru = append(lru[:0], lru[len(lru)-n:]...)
	}
	return lru
}

// compaction arms the recovery gate with the anchors that still exist and returns the anchor
// block for the host to put into the compacted context.
func (e *Engine) compaction(st *State, ev Event, fx Facts) Decision {
	st.Compactions++
	fold := fx.CaseInsensitive()
	var anchors []string
	add := func(p string) {
		p = key(p, fold)
		if !contains(anchors, p) && fx.Exists(p) {
			anchors = append(anchors, p)
		}
	}
	// the most recent first: if the agent reads only the top of the list, it reads what matters
	for i := len(st.Anchors) - 1; i >= 0; i-- {
		add(st.Anchors[i])
	}
	for _, p := range e.Policy.FallbackAnchors {
		add(p)
	}
	d := Decision{Verdict: Allow}
	if len(anchors) == 0 {
		st.Recovery = nil
		return d
	}
	st.Recovery = &Recovery{Anchors: anchors, Since: ev.Now}
	d.Recovery = "armed"
	d.Paths = anchors
	d.Advice = AnchorBlock(anchors, memoryFocus(fx, fold))
	return d
}

// AnchorBlock renders the post-compaction anchor block (~150 tokens): the files to re-read and
// up to six lines of MEMORY.md's Current Focus.
func AnchorBlock(anchors, focus []string) string {
	var b strings.Builder
	b.WriteString(AnchorSentinel)
	b.WriteString("\nCompaction occurred. Before any write, read:\n")
	for _, a := range anchors {
		b.WriteString("- ")
		b.WriteString(a)
		b.WriteByte('\n')
	}
	if len(focus) > 0 {
		b.WriteString("Current Focus (from MEMORY.md):\n")
		for _, f := range focus {
			b.WriteString(f)
			b.WriteByte('\n')
		}
	}
	b.WriteString("Do not write until these are read.\n</memory-bank-anchors>")
	return b.String()
}

// maxFocusLines and maxFocusLine keep the anchor block near its ~150-token budget.
const (
	maxFocusLines = 6
	maxFocusLine  = 160
)

func memoryFocus(fx Facts, fold bool) []string {
	text, ok := fx.Read(key(bankEntry, fold))
	if !ok {
		return nil
	}
	return CurrentFocus(text)
}

// CurrentFocus returns up to six non-empty lines of the "## Current Focus" section of
// MEMORY.md, each cut to a readable length.
func CurrentFocus(memory string) []string {
	// Only the agent's own block speaks for the task: the user's notes must not leak into the
	// anchor block when Current Focus is the machine block's last section.
	if b, ok := bank.ParseBlocks([]byte(memory)); ok && b.HasMachine {
		memory = memory[b.Machine.Start:b.Machine.End]
	}
	var out []string
	in := false
	for _, line := range strings.Split(memory, "\n") {
		t := strings.TrimSpace(line)
		if in && (strings.Contains(t, "MACHINE_BLOCK_END") || strings.Contains(t, "USER_BLOCK_START")) {
			break
		}
		if strings.HasPrefix(t, "#") {
			if in {
				break
			}
			h := strings.TrimSpace(strings.TrimLeft(t, "#"))
			in = strings.HasPrefix(t, "## ") && strings.HasPrefix(strings.ToLower(h), "current focus")
			continue
		}
		if !in || t == "" || strings.HasPrefix(t, "<!--") {
			continue
		}
		if len(t) > maxFocusLine {
			t = cutRunes(t, maxFocusLine) + "…"
		}
		out = append(out, t)
		if len(out) == maxFocusLines {
			break
		}
	}
	return out
}

// cutRunes cuts s to at most n bytes without splitting a UTF-8 sequence.
//
// It cuts between words: a word the cut would split (a token, a key) is left out whole, since
// half of a secret is no longer a text the redaction of the anchor block can find.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	if s[n] != ' ' && s[n] != '\t' {
		n = strings.LastIndexAny(s[:n], " \t") + 1 // 0 when the line is one word
	}
	return s[:n]
}

// recoveryGate returns the recovery gate's objection to a write while recovery is armed.
// cleared is true when pruning anchors that no longer exist emptied the list.
func (e *Engine) recoveryGate(st *State, a *action, risk Risk, host string, paths []string, fx Facts) (candidate, bool) {
	r := st.Recovery
	if r == nil {
		return candidate{}, false
	}
	// Deleting or moving an unread anchor would otherwise be the way out: treat it as risky.
	touchesAnchor := slices.ContainsFunc(a.writes, r.removesUnread)
	if riskRank(risk) < riskRank(RiskMedium) && !touchesAnchor {
		return candidate{}, false
	}
	// An anchor that vanished (outside this gate) cannot be read: drop it rather than deadlock.
	kept := r.Anchors[:0]
	for _, p := range r.Anchors {
		if fx.Exists(p) {
			kept = append(kept, p)
		}
	}
	r.Anchors = kept
	var unread []string
	for _, p := range r.Anchors {
		if !contains(r.Read, p) {
			unread = append(unread, p)
		}
	}
	if len(unread) == 0 {
		st.Recovery = nil
		return candidate{}, true
	}
	var v Verdict
	switch e.Policy.RecoveryMode {
	case ModeOff:
		return candidate{}, false
	case ModeWarn:
		if st.Warned[string(GateRecovery)] {
			return candidate{}, false
		}
		v = Warn
	default:
		v = Block
	}
	if touchesAnchor && riskRank(risk) < riskRank(RiskMedium) {
		risk = RiskMedium
	}
	return candidate{verdict: v, gate: GateRecovery, once: string(GateRecovery),
		msg: e.recoveryMessage(v, risk, r.Cause, paths, unread, host, fx)}, false
}

// removesUnread reports whether w deletes or moves (or, in a shell, may) an anchor not yet read.
func (r *Recovery) removesUnread(w writeTarget) bool {
	return (w.op == opDelete || w.op == opMoveFrom || w.op == opShell) && contains(r.Anchors, w.rel) && !contains(r.Read, w.rel)
}
