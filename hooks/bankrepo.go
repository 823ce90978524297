package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// findBankRepo finds the repository whose memory bank a path belongs to: the nearest directory at
// or above path that is a git work tree (a .git directory holding HEAD, or a gitdir file) and
// has a memory-bank/ directory. Symlinks in the existing part of path are resolved first, so a
// link into the repository leads to it. A nested repository without a bank, and a .git that is
// not a repository (an empty folder an agent made), are passed over: neither may switch the
// guard off for the bank of the repository around them.
func findBankRepo(path string, known ...repo.Repo) (repo.Repo, bool) {
	if path == "" || !filepath.IsAbs(path) {
		return repo.Repo{}, false
	}
	path = filepath.Clean(path)
	d := ""
	for _, k := range known {
		if under, ok := plainBelow(path, k.Root); ok {
			d = under // no symlink between the known root and path: no need to resolve it all
			break
		}
	}
	if d == "" {
		d = resolveExisting(path)
	}
	for {
		for _, k := range known {
			if k.Root == d {
				return k, true // already found from another path of this call
			}
		}
		if r, ok := bankWorkTree(d); ok {
			return r, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return repo.Repo{}, false
		}
		d = parent
	}
}

// bankWorkTree reports whether d (symlink-resolved) is a git work tree with a memory-bank/
// directory: a .git directory holding HEAD, or a .git file pointing at a git directory.
func bankWorkTree(d string) (repo.Repo, bool) {
	dot := filepath.Join(d, ".git")
	fi, err := os.Stat(dot)
	if err != nil {
		return repo.Repo{}, false
	}
	bi, err := os.Stat(filepath.Join(d, "memory-bank"))
	hasBank := err == nil && bi.IsDir()
	var r repo.Repo
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(dot, "HEAD")); err != nil {
			return repo.Repo{}, false
		}
		r = repo.Repo{Root: d, GitDir: dot, CommonDir: dot}
	} else {
		var err error
		r, err = repo.Find(d)
		if err != nil || r.Root != d {
			return repo.Repo{}, false
		}
		if _, err := os.Stat(filepath.Join(r.GitDir, "HEAD")); err != nil {
			return repo.Repo{}, false
		}
	}
	// a bank that a command removed or renamed away is still this repository's bank: the
	// post check must put it back
	if !hasBank && !outcome.HasKnownGood(r) {
		return repo.Repo{}, false
	}
	return r, true
}

// plainBelow reports whether path lies below root with no symlink in between (as far as it
// exists), checking only the components below root; it returns path then.
func plainBelow(path, root string) (string, bool) {
	rel, ok := strings.CutPrefix(path, root+string(filepath.Separator))
	if !ok {
		return "", false
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return path, true // the rest does not exist yet: it cannot be a link
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", false
		}
	}
	return path, true
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
