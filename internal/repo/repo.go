// Package repo finds the repository a command runs in: its work-tree root and its git
// directories, without starting git (hooks run on every agent tool call).
package repo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Repo is a located repository.
type Repo struct {
	// Root is the absolute, symlink-resolved work-tree root.
	Root string
	// GitDir is the repository's private git directory (for a linked worktree, its own dir).
	GitDir string
	// CommonDir is the git directory shared by all worktrees (equal to GitDir otherwise).
	CommonDir string
}

// ErrNotRepo is returned when no .git is found above the start directory.
var ErrNotRepo = errors.New("not inside a git repository")

// Find walks up from dir to the first directory holding .git (a directory or a gitdir file).
func Find(dir string) (Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, fmt.Errorf("locating repository: %w", err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	for d := abs; ; {
		dot := filepath.Join(d, ".git")
		fi, err := os.Lstat(dot)
		if err == nil {
			if fi.IsDir() {
				return Repo{Root: d, GitDir: dot, CommonDir: dot}, nil
			}
			return fromGitFile(d, dot)
		}
		parent := filepath.Dir(d)
		if parent == d {
			if bare := bareAbove(abs); bare != "" {
				return Repo{}, &BareError{Dir: bare}
			}
			return Repo{}, fmt.Errorf("%s: %w (run mbguard inside a git work tree)", abs, ErrNotRepo)
		}
		d = parent
	}
}

// BareError says the directory is (inside) a bare repository: it has no work tree to guard.
// It is also an ErrNotRepo.
type BareError struct{ Dir string }

func (e *BareError) Error() string {
	return e.Dir + " is a bare repository: mbguard guards a work tree: run it in a clone with a work tree"
}

// Is makes a BareError an ErrNotRepo for callers that only ask whether there is a work tree.
func (e *BareError) Is(target error) bool { return target == ErrNotRepo }

// bareAbove returns the first of dir and its parents that looks like a git directory (HEAD,
// objects/ and refs/ in it): a bare repository, since no .git was found above dir.
func bareAbove(dir string) string {
	for d := dir; ; {
		if isFile(filepath.Join(d, "HEAD")) && isDir(filepath.Join(d, "objects")) && isDir(filepath.Join(d, "refs")) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func isFile(p string) bool { fi, err := os.Stat(p); return err == nil && fi.Mode().IsRegular() }
func isDir(p string) bool  { fi, err := os.Stat(p); return err == nil && fi.IsDir() }

func fromGitFile(root, dot string) (Repo, error) {
	b, err := os.ReadFile(dot)
	if err != nil {
		return Repo{}, fmt.Errorf("reading %s: %w", dot, err)
	}
	line := strings.TrimSpace(string(b))
	gd, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return Repo{}, fmt.Errorf("%s: not a gitdir file", dot)
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(root, gd)
	}
	r := Repo{Root: root, GitDir: filepath.Clean(gd), CommonDir: filepath.Clean(gd)}
	if c, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gd, cd)
		}
		r.CommonDir = filepath.Clean(cd)
	}
	return r, nil
}

// StateDir is where mbguard keeps its own files for this repository: sessions, the decision
// log, backups, journals. It lives under the git directory so it is never committed.
func (r Repo) StateDir() string { return filepath.Join(r.GitDir, "mbguard") }

// BankDir is the absolute path of memory-bank/.
func (r Repo) BankDir() string { return filepath.Join(r.Root, "memory-bank") }
