package outcome

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testhost"
)

// trackAll is set for the second run of this package's tests (TestMain): every Guard made by
// newBank then uses the inotify tracker, warmed up by one call so that its checks lstat only
// what changed. Every attack, parallel-call, crash and human-edit test thus holds for both
// ways of looking at the bank.
var trackAll bool

func TestMain(m *testing.M) {
	// the known-good key and outside copies go to a state folder of this run, not the
	// person's ~/.local/state (where they would show as repositories gone)
	// (a child this test binary starts for a killed call inherits its parent's folder: the key
	// that signs the in-flight records must be the same)
	state := os.Getenv("XDG_STATE_HOME")
	if filepath.Base(state) == "" || !strings.HasPrefix(filepath.Base(state), "mbguard-outcome-state") {
		dir, err := os.MkdirTemp("", "mbguard-outcome-state")
		if err != nil {
			panic(err)
		}
		os.Setenv("XDG_STATE_HOME", dir)
		state = dir
	} else {
		state = "" // the parent's: the parent removes it
	}
	code := m.Run()
	if code != 0 || !trackSupported {
		removeState(state)
		os.Exit(code)
	}
	trackAll = true
	code = m.Run()
	removeState(state)
	os.Exit(code)
}

func removeState(dir string) {
	if dir != "" {
		os.RemoveAll(dir)
	}
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
		testhost.Missing(t, "inotify", "a Linux kernel with inotify")
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

// A tracked Guard and a walking one judge the same random sequences of changes alike: the
// same paths undone (and how), accepted and reported, and the same bank afterwards.
func TestTrackedAgreesWithTheWalk(t *testing.T) {
	files := []string{"memory-bank/MEMORY.md", "memory-bank/details/patterns.md", "memory-bank/details/progress.md",
		"memory-bank/details/new.md", "memory-bank/x/y.md", "memory-bank/x/z/deep.md", "memory-bank/run.sh"}
	ops := []func(r *rand.Rand) string{
		func(r *rand.Rand) string {
			f := pick(r, files)
			return "mkdir -p $(dirname " + f + ") && printf 'more\\n' >> " + f
		},
		func(r *rand.Rand) string {
			f := pick(r, files)
			return "mkdir -p $(dirname " + f + ") && printf '# T\\n' > " + f
		},
		func(r *rand.Rand) string { return "rm -f " + pick(r, files) },
		func(r *rand.Rand) string {
			f := pick(r, files)
			return "[ -f " + f + " ] && chmod 600 " + f + " || true"
		},
		func(r *rand.Rand) string {
			f, g := pick(r, files), pick(r, files)
			return "[ -f " + f + " ] && mkdir -p $(dirname " + g + ") && mv " + f + " " + g + " || true"
		},
		func(r *rand.Rand) string {
			f := pick(r, files)
			return "[ -f " + f + " ] && ln -f " + f + " \"$PWD.out\" || true"
		},
		func(r *rand.Rand) string {
			return "[ -f \"$PWD.out\" ] && printf 'via link\\n' >> \"$PWD.out\" || true"
		},
		func(r *rand.Rand) string { return "mkdir -p memory-bank/x && ln -sfn ../MEMORY.md memory-bank/x/l.md" },
		func(r *rand.Rand) string { return "rm -rf memory-bank/x" },
		func(r *rand.Rand) string {
			return "[ -d memory-bank/details ] && mv memory-bank/details memory-bank/d2 || true"
		},
		func(r *rand.Rand) string {
			return "[ -d memory-bank/d2 ] && mv memory-bank/d2 memory-bank/details || true"
		},
		func(r *rand.Rand) string {
			return "[ -f memory-bank/MEMORY.md ] && sed -i 's/mine/theirs/' memory-bank/MEMORY.md || true"
		},
		func(r *rand.Rand) string { return "chmod 700 memory-bank/details 2>/dev/null || true" },
	}
	for seed := range int64(3) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			walkRoot, walker := newBank(t)
			if walker.Tracking() {
				walker.Close()
			}
			trackRoot, tracker := trackedBank(t)
			r := rand.New(rand.NewSource(seed))
			fulls := tracker.fulls
			const rounds = 30
			for round := range rounds {
				script := ops[r.Intn(len(ops))](r)
				if r.Intn(3) == 0 {
					script += " && " + ops[r.Intn(len(ops))](r)
				}
				var allowed []string
				mode := r.Intn(3)
				if mode == 2 {
					allowed = []string{pick(r, files)}
					script = "mkdir -p $(dirname " + allowed[0] + ") && printf '# Written\\n' > " + allowed[0]
				}
				id := fmt.Sprint("c", round)
				var reps [2]Report
				for i, side := range []struct {
					root string
					g    *Guard
				}{{walkRoot, walker}, {trackRoot, tracker}} {
					c := Call{ID: id, Session: "s", Tool: "Bash", Allowed: allowed}
					if mode == 0 { // a person, between calls
						sh(t, side.root, script+" || true")
					}
					pre, err := side.g.Before(c)
					if err != nil {
						t.Fatal(err)
					}
					if mode != 0 {
						sh(t, side.root, script+" || true")
					}
					post, err := side.g.After(c)
					if err != nil {
						t.Fatal(err)
					}
					post.Noticed = append(post.Noticed, pre.Noticed...)
					post.Accepted = append(post.Accepted, pre.Accepted...)
					reps[i] = post
				}
				if a, b := summary(reps[0]), summary(reps[1]); a != b {
					t.Fatalf("round %d (%q): the walk says\n%s\nthe tracker says\n%s", round, script, a, b)
				}
				sameTree(t, snapshot(t, walkRoot), snapshot(t, trackRoot))
				if t.Failed() {
					t.Fatalf("round %d (%q): the banks differ", round, script)
				}
			}
			// the agreement must come from the tracker, not from its fallback walks
			if n := tracker.fulls - fulls; n > rounds/3 {
				t.Errorf("%d full walks in %d rounds", n, rounds)
			}
		})
	}
}

func pick(r *rand.Rand, from []string) string { return from[r.Intn(len(from))] }

func summary(rep Report) string {
	var out []string
	for _, u := range rep.Undone {
		out = append(out, "undone "+u.Path+" "+u.Change)
	}
	for _, p := range rep.Accepted {
		out = append(out, "accepted "+p)
	}
	for _, p := range rep.Noticed {
		out = append(out, "noticed "+p.Path+" "+p.Rule)
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}
