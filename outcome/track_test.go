package outcome

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// trackAll is set for the second run of this package's tests (TestMain): every Guard made by
// newBank then uses the inotify tracker, warmed up by one call so that its checks lstat only
// what changed. Every attack, parallel-call, crash and human-edit test thus holds for both
// ways of looking at the bank.
var trackAll bool

func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 || !trackSupported {
		os.Exit(code)
	}
	trackAll = true
	os.Exit(m.Run())
}

// tracked turns tracking on for g in the tracked run.
func tracked(t testing.TB, g *Guard) *Guard {
	t.Helper()
	if !trackAll {
		return g
	}
	if err := g.Track(); err != nil {
		t.Fatalf("tracking: %v", err)
	}
	t.Cleanup(g.Close)
	warm := Call{ID: "warm-up", Session: "warm-up", Tool: "Bash"}
	if _, err := g.Before(warm); err != nil {
		t.Fatal(err)
	}
	if rep, err := g.After(warm); err != nil || rep.Blocked() {
		t.Fatalf("warm-up: %v %+v", err, rep.Undone)
	}
	return g
}

func trackedBank(t *testing.T) (string, *Guard) {
	t.Helper()
	if !trackSupported {
		t.Skip("no inotify on this system")
	}
	root, g := newBank(t) // tracked and warm in the tracked pass
	if !g.Tracking() {
		if err := g.Track(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
	}
	call(t, g, "warm-2", "")
	return root, g
}

// call runs one shell call's pre and post check around script (none when empty).
func call(t *testing.T, g *Guard, id, script string) Report {
	t.Helper()
	c := Call{ID: id, Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	if script != "" {
		sh(t, g.r.Root, script)
	}
	rep, err := g.After(c)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// Once warm, a tracked Guard's checks walk nothing: calls that leave the bank alone cost no
// lstat of it, and a change is still found and undone without a walk.
func TestTrackedChecksWalkOnlyWhatChanged(t *testing.T) {
	root, g := trackedBank(t)
	want := snapshot(t, root)
	fulls := g.fulls
	for i := range 10 {
		if rep := call(t, g, "quiet"+string(rune('a'+i)), "true"); rep.Blocked() {
			t.Fatalf("a quiet call was blocked: %+v", rep.Undone)
		}
	}
	if rep := call(t, g, "evil", "printf 'x=1' > memory-bank/details/run.sh"); !rep.Blocked() {
		t.Fatal("a shell write was not undone")
	}
	sameTree(t, want, snapshot(t, root))
	if g.fulls != fulls {
		t.Errorf("%d full walks after warm-up, want none", g.fulls-fulls)
	}
}

// What only an inode watch sees: a hard link made from outside the bank, and a write
// through such a link (no event reaches the bank's folder watches for either).
func TestTrackedSeesHardLinksFromOutside(t *testing.T) {
	for name, script := range map[string]string{
		"link":          "ln memory-bank/details/progress.md ../outside",
		"write through": "ln memory-bank/details/progress.md ../outside && printf 'evil\\n' >> ../outside && rm ../outside",
		"in a new dir":  "mkdir memory-bank/n && printf 'a' > memory-bank/n/a.md && ln memory-bank/n/a.md ../o2 && printf b >> ../o2",
	} {
		t.Run(name, func(t *testing.T) {
			root, g := trackedBank(t)
			want := snapshot(t, root)
			fulls := g.fulls
			rep := call(t, g, "c1", script)
			if !rep.Blocked() {
				t.Fatal("nothing was undone")
			}
			sameTree(t, want, snapshot(t, root))
			if g.fulls != fulls {
				t.Errorf("the check walked the whole bank; want it found through the tracker")
			}
		})
	}
}

// A write made through a link that a person made between calls (and that was kept, and
// reported) is undone like any other.
func TestTrackedSeesWritesThroughAKeptLink(t *testing.T) {
	root, g := trackedBank(t)
	// a person links a bank file elsewhere between calls: kept, and reported
	if err := os.Link(filepath.Join(root, "memory-bank/details/patterns.md"), filepath.Join(root, "../pat-link")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(filepath.Join(root, "../pat-link")) })
	call(t, g, "absorb", "")
	rep := call(t, g, "evil", "printf 'evil\\n' >> ../pat-link")
	if !rep.Blocked() {
		t.Fatal("a write through the outside link was not undone")
	}
	// the known-good bytes come back as a fresh file (the link is broken)
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/details/patterns.md")); string(b) != "# Patterns\nuse tables\n" {
		t.Errorf("patterns.md = %q", b)
	}
}

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
