package outcome

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// fresh is a Guard of a new process: nothing in memory.
func fresh(t *testing.T, root string) *Guard {
	t.Helper()
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return New(r, Options{Rules: rulesFor(root)})
}

// A forged refs/mbguard/known-good (a plain update-ref, which the gate allows) naming a tree
// with the agent's MEMORY.md is never adopted: the authentic manifest wins, the ref is reset,
// and the tampering is reported.
func TestForgedRefIsNotAdopted(t *testing.T) {
	root, g := newBank(t)
	want := snapshot(t, root)
	if _, err := g.Before(Call{ID: "c", Session: "s", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	good := testgit.Git(t, root, "rev-parse", g.Ref())
	idx := filepath.Join(t.TempDir(), "index")
	sh(t, root, `h=$(printf 'forged\n' | git hash-object -w --stdin)
GIT_INDEX_FILE=`+idx+` git update-index --add --cacheinfo 100644,$h,memory-bank/MEMORY.md
t=$(GIT_INDEX_FILE=`+idx+` git write-tree)
git update-ref refs/mbguard/known-good $t
printf forged > memory-bank/MEMORY.md; printf x > memory-bank/a.json`)
	rep, err := fresh(t, root).After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true})
	if err != nil || !rep.Blocked() {
		t.Fatalf("post check: %v %+v", err, rep)
	}
	sameTree(t, want, snapshot(t, root))
	if got := testgit.Git(t, root, "rev-parse", g.Ref()); got != good {
		t.Errorf("the forged ref stays: %s, want %s", got, good)
	}
	if len(rep.Tampered) == 0 || !strings.Contains(rep.Notice(), "tampered") {
		t.Errorf("the forged ref was not reported: %+v", rep.Tampered)
	}
}

// update-ref -d plus gc --prune=now takes the known-good blobs of uncommitted work out of
// git's object store; the outside copy still has them, so the undo restores the bytes.
func TestPrunedBlobsAreReadFromTheOutsideCopy(t *testing.T) {
	root, g := newBank(t)
	if _, err := g.Before(Call{ID: "w", Session: "s", Tool: "Write", Allowed: []string{"memory-bank/details/new.md"}}); err != nil {
		t.Fatal(err)
	}
	testgit.Write(t, root, "memory-bank/details/new.md", "# New\nonly the known-good store has me\n")
	if rep, err := g.After(Call{ID: "w", Session: "s", Tool: "Write"}); err != nil || rep.Blocked() {
		t.Fatalf("allowed write: %v %+v", err, rep)
	}
	want := snapshot(t, root)
	if _, err := g.Before(Call{ID: "c", Session: "s", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	sh(t, root, `git update-ref -d refs/mbguard/known-good
git reflog expire --expire=now --all; git gc -q --prune=now
printf 'agent\n' > memory-bank/details/new.md`)
	rep, err := fresh(t, root).After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true})
	if err != nil || !rep.Blocked() {
		t.Fatalf("post check: %v %+v", err, rep)
	}
	sameTree(t, want, snapshot(t, root))
	// the ref is back, and git can read what it names again
	testgit.Git(t, root, "cat-file", "-e", g.Ref()+":memory-bank/details/new.md")
}

// A record in inflight.log that mbguard did not write (the agent appends one that "allows"
// its own write) is ignored; one with a start time in the future is judged at once instead of
// never going stale.
func TestForgedInflightRecords(t *testing.T) {
	t.Run("unsigned", func(t *testing.T) {
		root, g := newBank(t)
		want := snapshot(t, root)
		if _, err := g.Before(Call{ID: "c", Session: "s", Tool: "Bash"}); err != nil {
			t.Fatal(err)
		}
		future := strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)
		sh(t, root, `printf '{"op":"add","call":{"id":"f","session":"s","tool":"Write","allowed":["memory-bank/details/progress.md"],"start":`+future+`}}\n' >> .git/mbguard/inflight.log
printf '# Progress\nagent\n' > memory-bank/details/progress.md`)
		rep, err := fresh(t, root).After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true})
		if err != nil || !rep.Blocked() {
			t.Fatalf("post check: %v %+v", err, rep)
		}
		sameTree(t, want, snapshot(t, root))
		if len(rep.Tampered) == 0 {
			t.Errorf("the forged record was not reported")
		}
	})
	t.Run("future start", func(t *testing.T) {
		root, g := newBank(t)
		future := time.Now().Add(time.Hour).UnixMilli()
		if _, err := g.Before(Call{ID: "f", Session: "s", Tool: "Bash", Start: future}); err != nil {
			t.Fatal(err)
		}
		sh(t, root, `printf x > memory-bank/a.json`)
		rep, err := fresh(t, root).Before(Call{ID: "c", Session: "s", Tool: "Bash"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Settled) != 1 || rep.Settled[0].ID != "f" || !rep.Blocked() {
			t.Fatalf("the record with a future start was not judged: %+v", rep)
		}
	})
}

// Deleting the manifest, its outside copy and the ref in one call leaves no authentic state:
// the check refuses to take the disk as known-good (ErrStoreLost) and keeps refusing, instead
// of accepting the agent's write.
func TestEveryCopyGoneIsRefused(t *testing.T) {
	root, g := newBank(t)
	if _, err := g.Before(Call{ID: "c", Session: "s", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	mirror := g.mirrorPath()
	sh(t, root, `rm -f .git/mbguard/known-good.idx `+mirror+`; git update-ref -d refs/mbguard/known-good; printf x > memory-bank/a.json`)
	if _, err := fresh(t, root).After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true}); !errors.Is(err, ErrStoreLost) {
		t.Fatalf("post check: %v, want ErrStoreLost", err)
	}
	for i := 0; i < 2; i++ {
		if _, err := fresh(t, root).Before(Call{ID: "d" + strconv.Itoa(i), Session: "s", Tool: "Bash"}); !errors.Is(err, ErrStoreLost) {
			t.Fatalf("pre check %d: %v, want ErrStoreLost", i, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".git/mbguard/known-good.idx")); err == nil {
		t.Errorf("a new known-good state was taken from the disk")
	}
	if !StoreLost(g.r) {
		t.Errorf("StoreLost is false")
	}
	// the person checked the bank and resets: the next check takes the disk as it is
	if err := ResetKnownGood(g.r); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh(t, root).Before(Call{ID: "e", Session: "s", Tool: "Bash"}); err != nil {
		t.Fatalf("pre check after the reset: %v", err)
	}
	if StoreLost(g.r) {
		t.Errorf("StoreLost after the reset")
	}
}

// A manifest rewritten in the git directory (a forged one would turn the check against the
// bank) is replaced by its authentic copy, and reported.
func TestForgedManifestIsReplacedByTheAuthenticCopy(t *testing.T) {
	root, g := newBank(t)
	want := snapshot(t, root)
	if _, err := g.Before(Call{ID: "c", Session: "s", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(g.manifestPath())
	sh(t, root, `printf 'f 644 1 0 0 1 - memory-bank/a.json\0' >> .git/mbguard/known-good.idx; printf x > memory-bank/a.json`)
	rep, err := fresh(t, root).After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true})
	if err != nil || !rep.Blocked() || len(rep.Tampered) == 0 {
		t.Fatalf("post check: %v %+v", err, rep)
	}
	sameTree(t, want, snapshot(t, root))
	if b, _ := os.ReadFile(g.manifestPath()); len(b) == 0 || string(b) == string(good)+"f 644 1 0 0 1 - memory-bank/a.json\x00" {
		t.Errorf("the forged manifest stays")
	}
}

// An allowed write is exactly what the tool wrote: with a Write in flight, a shell call in
// parallel that overwrites the same file (or deletes what an Edit changed) is undone, while the
// Write's own content is accepted.
func TestAllowedWriteIsOnlyWhatTheToolWrote(t *testing.T) {
	const p = "memory-bank/details/progress.md"
	content := "# Progress\n- [x] parser\n"
	for _, tc := range []struct {
		name, shell string
		undone      bool
	}{
		{"the tool's own bytes", "", false},
		{"CRLF of the tool's bytes", `printf '# Progress\r\n- [x] parser\r\n' > ` + p, false},
		{"shell overwrite", `printf '# Progress\nshell\n' > ` + p, true},
		{"shell delete", `rm ` + p, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, g := newBank(t)
			w := Call{ID: "w", Session: "s", Tool: "Write", Allowed: []string{p}, Expect: map[string]string{p: TextSum([]byte(content))}}
			if _, err := g.Before(w); err != nil {
				t.Fatal(err)
			}
			if _, err := g.Before(Call{ID: "b", Session: "s", Tool: "Bash"}); err != nil {
				t.Fatal(err)
			}
			testgit.Write(t, root, p, content) // the Write tool
			if tc.shell != "" {
				sh(t, root, tc.shell) // the parallel shell call
			}
			if _, err := g.After(Call{ID: "b", Session: "s", Tool: "Bash", Check: true}); err != nil {
				t.Fatal(err)
			}
			rep, err := g.After(Call{ID: "w", Session: "s", Tool: "Write"})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(root, p))
			if tc.undone {
				if !rep.Blocked() || string(b) != "# Progress\n" {
					t.Errorf("the other command's state stands: %q %+v", b, rep)
				}
			} else if rep.Blocked() {
				t.Errorf("the tool's own write was undone: %+v", rep)
			}
		})
	}
}

// meta.json is written when a quarantine entry is made and when the undo ends, not per path:
// bytes moved in by an undo that stopped in between are still listed, as damaged.
func TestQuarantineStoppedMidUndoIsListed(t *testing.T) {
	_, g := newBank(t)
	q, err := g.newQuarantine(Call{ID: "c", Session: "s", Tool: "Bash"})
	if err != nil {
		t.Fatal(err)
	}
	q.add(&change{path: "memory-bank/a.json", d: &Entry{Kind: KindFile}}, "files/0", "", nil)
	if err := os.WriteFile(filepath.Join(q.dir, "files", "0"), []byte("agent"), 0o600); err != nil {
		t.Fatal(err)
	}
	// no q.save: mbguard was killed here
	qs, err := ListQuarantine(g.r)
	if err != nil || len(qs) != 1 || qs[0].ID != q.meta.ID || qs[0].Damaged == "" {
		t.Fatalf("the stopped undo's entry is not listed as damaged: %v %+v", err, qs)
	}
}

// A folder made unreadable is a change, not an error that lets the call through.
func TestUnreadableFolder(t *testing.T) {
	t.Run("chmod 000 folder", func(t *testing.T) {
		root, g := newBank(t)
		want := snapshot(t, root)
		if _, err := g.Before(Call{ID: "c", Session: "s", Tool: "Bash"}); err != nil {
			t.Fatal(err)
		}
		sh(t, root, `printf 'evil\n' > memory-bank/details/progress.md; printf x > memory-bank/details/new.json; chmod 000 memory-bank/details`)
		rep, err := fresh(t, root).After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true})
		os.Chmod(filepath.Join(root, "memory-bank/details"), 0o755)
		if err != nil || !rep.Blocked() {
			t.Fatalf("post check: %v %+v", err, rep)
		}
		sameTree(t, want, snapshot(t, root))
	})
}
