package outcome

import (
	"strings"
	"syscall"
	"testing"
)

// Events that cannot be trusted make the next check walk: a queue overflow, memory-bank/
// itself moved, and every fullEvery-th check.
func TestTrackedFallsBackToAWalk(t *testing.T) {
	root, g := trackedBank(t)
	fulls := g.fulls
	g.mu.Lock()
	full := g.tr.event(-1, syscall.IN_Q_OVERFLOW, "", g.pending, g.trees)
	g.mu.Unlock()
	if !full {
		t.Error("an overflow did not ask for a walk")
	}
	want := snapshot(t, root)
	if rep := call(t, g, "bank", "mv memory-bank ../mb && mkdir memory-bank && cp -a ../mb/. memory-bank/ && printf 'x' > memory-bank/x.bin && rm -rf ../mb"); !rep.Blocked() {
		t.Fatal("a replaced bank was not checked")
	}
	sameTree(t, want, snapshot(t, root))
	if g.fulls == fulls {
		t.Error("a replaced memory-bank/ did not make the check walk")
	}
	fulls = g.fulls
	for i := range fullEvery {
		call(t, g, "n"+strings.Repeat("x", i), "")
	}
	if g.fulls == fulls {
		t.Errorf("%d checks without a full walk; the backstop is every %d", fullEvery*2, fullEvery)
	}
}

// Watches of what left the bank (an agent's file moved into the quarantine) are dropped by
// the next full walk, so a long session does not pile them up.
func TestTrackedDropsWatchesOfWhatLeft(t *testing.T) {
	_, g := trackedBank(t)
	g.mu.Lock()
	n := len(g.tr.wds)
	g.mu.Unlock()
	for i := range 5 {
		call(t, g, "evil"+string(rune('a'+i)), "printf x > memory-bank/details/q"+string(rune('a'+i))+".md")
	}
	for i := range fullEvery {
		call(t, g, "n"+strings.Repeat("y", i), "")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.tr.wds) > n {
		t.Errorf("%d watches after the quarantined files left, %d before", len(g.tr.wds), n)
	}
}
