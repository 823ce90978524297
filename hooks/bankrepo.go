package hooks

import (
	"os"
	"path/filepath"

	"github.com/mbguard/mbguard/internal/repo"
)

// findBankRepo finds the repository whose memory bank a path belongs to: the nearest directory at
// or above path that is a git work tree (a .git directory holding HEAD, or a gitdir file) and
// has a memory-bank/ directory. Symlinks in the existing part of path are resolved first, so a
// link into the repository leads to it. A nested repository without a bank, and a .git that is
// not a repository (an empty folder an agent made), are passed over: neither may switch the
// guard off for the bank of the repository around them.
func findBankRepo(path string) (repo.Repo, bool) {
	if path == "" || !filepath.IsAbs(path) {
		return repo.Repo{}, false
	}
	d := resolveExisting(filepath.Clean(path))
	for {
		if isWorkTree(d) {
			if fi, err := os.Stat(filepath.Join(d, "memory-bank")); err == nil && fi.IsDir() {
				if r, err := repo.Find(d); err == nil && r.Root == d {
					return r, true
				}
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return repo.Repo{}, false
		}
		d = parent
	}
}

// resolveExisting resolves symlinks in the longest existing prefix of p and appends the rest.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// isWorkTree reports whether d has a .git that is a repository: a directory with HEAD, or a
// file pointing at one (a linked worktree or submodule).
func isWorkTree(d string) bool {
	dot := filepath.Join(d, ".git")
	fi, err := os.Stat(dot)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		_, err := os.Stat(filepath.Join(dot, "HEAD"))
		return err == nil
	}
	r, err := repo.Find(d)
	if err != nil || r.Root != d {
		return false
	}
	_, err = os.Stat(filepath.Join(r.GitDir, "HEAD"))
	return err == nil
}
