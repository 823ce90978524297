package repo

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

func TestFindFromSubdirectory(t *testing.T) {
	root := testgit.New(t)
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Find(sub)
	if err != nil {
		t.Fatal(err)
	}
	if r.Root != root || r.GitDir != filepath.Join(root, ".git") || r.CommonDir != r.GitDir {
		t.Errorf("Find = %+v, want root %s", r, root)
	}
	if r.StateDir() != filepath.Join(root, ".git", "mbguard") {
		t.Errorf("StateDir = %s", r.StateDir())
	}
}

func TestFindLinkedWorktree(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "f", "x")
	testgit.Commit(t, root, "init")
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Git(t, root, "worktree", "add", "-q", wt)
	r, err := Find(wt)
	if err != nil {
		t.Fatal(err)
	}
	wantGit := testgit.Git(t, wt, "rev-parse", "--absolute-git-dir")
	if r.GitDir != wantGit {
		t.Errorf("GitDir = %s, want %s", r.GitDir, wantGit)
	}
	if r.CommonDir != filepath.Join(root, ".git") {
		t.Errorf("CommonDir = %s, want %s", r.CommonDir, filepath.Join(root, ".git"))
	}
}

func TestFindOutsideRepository(t *testing.T) {
	_, err := Find(t.TempDir())
	if !errors.Is(err, ErrNotRepo) {
		t.Fatalf("err = %v, want ErrNotRepo", err)
	}
}

func TestFindBadGitFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("nonsense"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(dir); err == nil {
		t.Fatal("a .git file without gitdir: must be an error")
	}
}

// A bare repository (or a folder inside one) is named as bare, not "not inside a git
// repository", and is still an ErrNotRepo for callers that only ask for a work tree.
func TestFindBareRepository(t *testing.T) {
	bare := filepath.Join(t.TempDir(), "b.git")
	testgit.Git(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	for _, dir := range []string{bare, filepath.Join(bare, "refs", "heads")} {
		_, err := Find(dir)
		var be *BareError
		if !errors.As(err, &be) || !errors.Is(err, ErrNotRepo) {
			t.Fatalf("Find(%s) err = %v, want a BareError that is an ErrNotRepo", dir, err)
		}
		if want, _ := filepath.EvalSymlinks(bare); be.Dir != want {
			t.Errorf("BareError.Dir = %s, want %s", be.Dir, want)
		}
	}
}
