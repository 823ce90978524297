package outcome

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// primedBank is a committed repository with a bank of n files and no known-good store.
func primedBank(t *testing.T, n int) (string, repo.Repo) {
	return bankFiles(t, n, true)
}

// bankFiles is primedBank, its files committed or not.
func bankFiles(t *testing.T, n int, commit bool) (string, repo.Repo) {
	t.Helper()
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	for i := 1; i < n; i++ {
		testgit.Write(t, root, fmt.Sprintf("memory-bank/details/d%d/f%03d.md", i%5, i), fmt.Sprintf("# Note %d\n", i))
	}
	if commit {
		testgit.Commit(t, root, "bank")
	}
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, r
}

// After Prime (init, install, migrate, watch, serve), the first check of a per-call hook
// finds the manifest, compares by stat and hashes no bank file; without Prime it hashes them
// all (the store is built then), which is what this test guards against.
func TestPrimeFirstCheckHashesNothing(t *testing.T) {
	const n = 40
	first := func(r repo.Repo) (*Guard, Report) {
		g := New(r, Options{Rules: rulesFor(r.Root)})
		c := Call{ID: "c1", Session: "s", Tool: "Bash"}
		if _, err := g.Before(c); err != nil {
			t.Fatal(err)
		}
		rep, err := g.After(c)
		if err != nil {
			t.Fatal(err)
		}
		return g, rep
	}

	_, cold := primedBank(t, n)
	if g, _ := first(cold); g.obj.hashed.Load() < n {
		t.Fatalf("without Prime the first check hashed %d files, want the whole bank (%d): the test no longer shows what Prime saves", g.obj.hashed.Load(), n)
	}

	root, r := primedBank(t, n)
	if err := Prime(r); err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(r.StateDir(), "known-good.idx")
	before, err := os.Stat(mp)
	if err != nil {
		t.Fatalf("Prime wrote no manifest: %v", err)
	}
	g, rep := first(r)
	if g.obj.hashed.Load() != 0 || len(rep.Undone) != 0 || len(rep.Accepted) != 0 {
		t.Fatalf("first check after Prime hashed %d objects, undid %v, accepted %v; want none", g.obj.hashed.Load(), rep.Undone, rep.Accepted)
	}
	if after, err := os.Stat(mp); err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the first check rewrote the manifest Prime built (%v)", err)
	}

	// the primed store is the real one: a stray write is undone from its blobs
	p := filepath.Join(root, "memory-bank", "details", "d1", "f001.md")
	c := Call{ID: "c2", Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := g.After(c); err != nil || len(rep.Undone) != 1 {
		t.Fatalf("after a stray write: %v, undone %v", err, rep.Undone)
	}
	if b, _ := os.ReadFile(p); string(b) != "# Note 1\n" {
		t.Fatalf("not put back from the primed store: %q", b)
	}

	// a second Prime leaves the store alone
	g2 := New(r, Options{})
	if err := g2.prime(); err != nil || g2.obj.hashed.Load() != 0 {
		t.Fatalf("Prime of a primed repository: %v, hashed %d", err, g2.obj.hashed.Load())
	}
}

// A bank larger than bigBank that nothing primed is built over several checks, each within
// hookBudget: the calls before it is complete are not recorded (nothing to compare with, as
// before any store existed), the first one after it is checked against the whole bank.
func TestUnprimedBigBankIsBuiltWithinBudget(t *testing.T) {
	defer func(b time.Duration, n int) { hookBudget, bigBank = b, n }(hookBudget, bigBank)
	hookBudget, bigBank = time.Nanosecond, 10 // one new blob per check
	root, r := bankFiles(t, 21, false)        // no blob of it in the object store yet
	mp := filepath.Join(r.StateDir(), "known-good.idx")
	calls := 0
	for ; calls < 40; calls++ {
		if _, err := os.Stat(mp); err == nil {
			break
		}
		g := New(r, Options{Rules: rulesFor(root)})
		c := Call{ID: fmt.Sprint("c", calls), Session: "s", Tool: "Bash"}
		if _, err := g.Before(c); err != nil {
			t.Fatal(err)
		}
		c.Check = true
		if rep, err := g.After(c); err != nil || len(rep.Undone) != 0 {
			t.Fatalf("call %d while the store is built: %v, undone %v", calls, err, rep.Undone)
		}
	}
	if calls < 2 || calls >= 40 {
		t.Fatalf("the store took %d checks; want it spread over several (budget) and finished", calls)
	}
	g := New(r, Options{Rules: rulesFor(root)})
	p := filepath.Join(root, "memory-bank", "details", "d3", "f013.md")
	c := Call{ID: "after", Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := g.After(c); err != nil || len(rep.Undone) != 1 {
		t.Fatalf("after the store was complete: %v, undone %v", err, rep.Undone)
	}
	if b, _ := os.ReadFile(p); string(b) != "# Note 13\n" {
		t.Fatalf("not put back from the incrementally built store: %q", b)
	}
}

// Prime of a bank git has packed (after a migration, a clone, a gc) writes no loose copy of
// what git has, and keeps the outside copies in one batch file; when git later loses the
// blobs (the branch rewritten, the ref deleted, gc --prune=now), a stray write is still undone
// from that batch.
func TestPrimePackedBankKeepsOutsideCopiesInABatch(t *testing.T) {
	const n = 30
	root, r := primedBank(t, n)
	testgit.Git(t, root, "gc", "-q")
	f := "memory-bank/details/d1/f001.md"
	blob := testgit.Git(t, root, "rev-parse", "HEAD:"+f)
	if err := Prime(r); err != nil {
		t.Fatal(err)
	}
	g := New(r, Options{Rules: rulesFor(root)})
	if _, err := os.Stat(g.obj.path(blob)); err == nil {
		t.Fatalf("Prime wrote a loose copy of %s, which git has packed", f)
	}
	batches, _ := os.ReadDir(filepath.Join(g.obj.outside, "batch"))
	if len(batches) != 1 {
		t.Fatalf("%d batch files outside the repository, want 1", len(batches))
	}
	if _, err := os.Stat(filepath.Join(g.obj.outside, blob[:2], blob[2:])); err == nil {
		t.Fatal("the outside copy was written loose as well")
	}

	sh(t, root, `git checkout -q --orphan other && git rm -rq --cached memory-bank && git commit -qm other
git branch -D -q main; git update-ref -d `+g.Ref()+`
git reflog expire --expire=now --all && git gc -q --prune=now`)
	if err := shErr("git cat-file -e "+blob, root); err == nil {
		t.Fatal("git still has the blob: the test no longer shows the outside copy at work")
	}
	c := Call{ID: "c", Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, filepath.FromSlash(f))
	if err := os.WriteFile(p, []byte("agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := fresh(t, root).After(c); err != nil || len(rep.Undone) != 1 {
		t.Fatalf("after a stray write: %v, %+v", err, rep)
	}
	if b, _ := os.ReadFile(p); string(b) != "# Note 1\n" {
		t.Fatalf("not put back from the outside batch: %q", b)
	}
}
