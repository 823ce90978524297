package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/mbguard/mbguard/internal/testgit"
)

// treeRepo is a repository with nested folders, a file beside a folder of the same stem
// (git's tree order puts "a.md" before "a/" but "a-b" after "a/"), and an executable.
func treeRepo(t *testing.T) string {
	t.Helper()
	root := testgit.New(t)
	for _, f := range []string{"a.md", "a/x.md", "a/y/z.md", "a-b", "b/c/d.md", "b/e.md", "top.md"} {
		testgit.Write(t, root, f, f+"\n")
	}
	os.Chmod(filepath.Join(root, "top.md"), 0o755)
	testgit.Commit(t, root, "start")
	return root
}

// TestEditTreeMatchesGit applies the same changes with editTree and with the git CLI
// (git mv / git rm / git add, then git write-tree) and wants the same tree hash.
func TestEditTreeMatchesGit(t *testing.T) {
	tests := []struct {
		name  string
		edits func(t *testing.T, root string, hash func(string) (plumbing.Hash, filemode.FileMode)) []treeEdit
	}{
		{"move into a new nested folder", func(t *testing.T, root string, hash func(string) (plumbing.Hash, filemode.FileMode)) []treeEdit {
			h, m := hash("a/x.md")
			return []treeEdit{{Path: "a/x.md"}, {Path: "n/e/w/x.md", Hash: h, Mode: m}}
		}},
		{"empty the folders", func(t *testing.T, root string, hash func(string) (plumbing.Hash, filemode.FileMode)) []treeEdit {
			return []treeEdit{{Path: "a/x.md"}, {Path: "a/y/z.md"}}
		}},
		{"executable kept and folder renamed", func(t *testing.T, root string, hash func(string) (plumbing.Hash, filemode.FileMode)) []treeEdit {
			h, m := hash("top.md")
			h2, m2 := hash("b/c/d.md")
			return []treeEdit{{Path: "top.md"}, {Path: "a/top.md", Hash: h, Mode: m}, {Path: "b/c/d.md"}, {Path: "a-b/d.md"}, {Path: "a-c/d.md", Hash: h2, Mode: m2}}
		}},
		{"nothing removed that is not there", func(t *testing.T, root string, hash func(string) (plumbing.Hash, filemode.FileMode)) []treeEdit {
			return []treeEdit{{Path: "missing/file.md"}, {Path: "b/missing.md"}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := treeRepo(t)
			r, err := open(root)
			if err != nil {
				t.Fatal(err)
			}
			headTree := plumbing.NewHash(testgit.Git(t, root, "rev-parse", "HEAD^{tree}"))
			hash := func(p string) (plumbing.Hash, filemode.FileMode) {
				f := strings.Fields(testgit.Git(t, root, "ls-tree", "HEAD", "--", p))
				m, err := filemode.New(f[0])
				if err != nil {
					t.Fatal(err)
				}
				return plumbing.NewHash(f[2]), m
			}
			edits := tc.edits(t, root, hash)
			got, err := editTree(r.Storer, headTree, edits)
			if err != nil {
				t.Fatal(err)
			}
			// the same changes through git's own index
			for _, e := range edits {
				if e.Hash.IsZero() {
					testgit.Git(t, root, "rm", "-q", "--cached", "--ignore-unmatch", "--", e.Path)
				} else {
					testgit.Git(t, root, "update-index", "--add", "--cacheinfo", e.Mode.String()[1:]+","+e.Hash.String()+","+e.Path)
				}
			}
			want := testgit.Git(t, root, "write-tree")
			if got.String() != want {
				t.Errorf("editTree %s, git write-tree %s\n%s", got, want, testgit.Git(t, root, "ls-tree", "-r", "-t", want))
			}
			// and git can read what editTree stored
			testgit.Git(t, root, "ls-tree", "-r", got.String())
		})
	}
}

// TestGitIndexRoundTrip reads and rewrites real git indexes of each version and wants git to
// see the same entries and a clean work tree.
func TestGitIndexRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		setup   func(t *testing.T, root string)
	}{
		{"version 2", "2", nil},
		{"version 3 with an intent-to-add entry", "3", func(t *testing.T, root string) {
			testgit.Write(t, root, "new.md", "new\n")
			testgit.Git(t, root, "add", "-N", "new.md")
		}},
		{"version 4 (path prefixes)", "4", nil},
		{"long path", "2", func(t *testing.T, root string) {
			long := strings.Repeat("d/", 1100) + "f.md" // longer than the 12-bit name length
			testgit.Write(t, root, long, "deep\n")
			testgit.Commit(t, root, "long")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := treeRepo(t)
			if tc.setup != nil {
				tc.setup(t, root)
			}
			testgit.Git(t, root, "update-index", "--index-version", tc.version)
			before := testgit.Git(t, root, "ls-files", "-s", "--debug")
			status := testgit.Git(t, root, "status", "--porcelain")
			ix, err := readGitIndex(filepath.Join(root, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.write(); err != nil {
				t.Fatal(err)
			}
			if got := testgit.Git(t, root, "ls-files", "-s", "--debug"); got != before {
				t.Errorf("entries changed:\n%s\nwant\n%s", got, before)
			}
			if got := testgit.Git(t, root, "status", "--porcelain"); got != status {
				t.Errorf("status %q, want %q", got, status)
			}
		})
	}
}

func TestGitIndexRenameAndDrop(t *testing.T) {
	root := treeRepo(t)
	testgit.Git(t, root, "mv", "a/x.md", "moved.md") // the disk as the migration leaves it
	testgit.Git(t, root, "reset", "-q")              // and the index as it was
	ix, err := readGitIndex(filepath.Join(root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	by := ix.byName()
	e := by["a/x.md"]
	e.setName("moved.md")
	fi, err := os.Lstat(filepath.Join(root, "moved.md"))
	if err != nil {
		t.Fatal(err)
	}
	e.setStat(fi)
	os.Remove(filepath.Join(root, "b", "e.md"))
	ix.drop(map[string]bool{"b/e.md": true})
	if err := ix.write(); err != nil {
		t.Fatal(err)
	}
	if st := testgit.Git(t, root, "diff", "--name-status", "-M"); st != "" {
		t.Errorf("work tree differs from the index: %q", st)
	}
	if st := testgit.Git(t, root, "diff", "--cached", "--name-status", "-M"); st != "D\tb/e.md\nR100\ta/x.md\tmoved.md" {
		t.Errorf("index against HEAD: %q", st)
	}
}

func TestGitIndexRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
	}{
		{"split index", func(t *testing.T, root string) { testgit.Git(t, root, "update-index", "--split-index") }},
		{"corrupt", func(t *testing.T, root string) {
			p := filepath.Join(root, ".git", "index")
			b, _ := os.ReadFile(p)
			b[20] ^= 0xff
			os.WriteFile(p, b, 0o644)
		}},
		{"not an index", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, ".git", "index"), []byte("hello"), 0o644)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := treeRepo(t)
			tc.setup(t, root)
			_, err := readGitIndex(filepath.Join(root, ".git", "index"))
			if !errors.Is(err, errIndexFormat) || !strings.Contains(err.Error(), "--git-cli") {
				t.Errorf("got %v, want an unsupported-index error naming --git-cli", err)
			}
		})
	}
}

func TestGitIndexLocked(t *testing.T) {
	root := treeRepo(t)
	ix, err := readGitIndex(filepath.Join(root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(root, ".git", "index.lock")
	os.WriteFile(lock, nil, 0o644)
	defer func(f func() (bool, bool)) { gitRunning = f }(gitRunning)
	gitRunning = func() (bool, bool) { return true, true } // the lock's owner is still at work
	if err := ix.write(); err == nil || !strings.Contains(err.Error(), "another git command") {
		t.Errorf("got %v, want a lock error", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Error("the other process's lock was removed")
	}
}
