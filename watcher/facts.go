package watcher

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/gitexec"
	"github.com/mbguard/mbguard/scanner"
)

// Facts is the file-system-backed gating.Facts for one repository. Everything is computed on
// first use: a PreToolUse decision for a code file touches no more than a few stats, and the
// gitleaks detector is built only when a write into memory-bank/ needs its content scanned.
type Facts struct {
	root    string
	secrets func() *scanner.Secrets

	bankOnce sync.Once
	bank     bool
	foldOnce sync.Once
	fold     bool
	// foldFn, when set, answers CaseInsensitive from the Service's once-per-process probe:
	// whether the file system folds case does not change between tool calls.
	foldFn func() bool
}

// NewFacts returns the facts for the repository at root (absolute, symlink-resolved).
// secrets returns the repository's detector; it is called only when content must be scanned.
func NewFacts(root string, secrets func() *scanner.Secrets) *Facts {
	return &Facts{root: root, secrets: secrets}
}

var _ gating.Facts = (*Facts)(nil)

// Root is the repository root.
func (f *Facts) Root() string { return f.root }

// BankExists reports whether memory-bank/ is a directory (a symlinked bank counts).
func (f *Facts) BankExists() bool {
	f.bankOnce.Do(func() {
		fi, err := os.Stat(filepath.Join(f.root, "memory-bank"))
		f.bank = err == nil && fi.IsDir()
	})
	return f.bank
}

// Resolve returns abs with symlinks resolved on its longest existing prefix; the part that
// does not exist yet (a file about to be created) is appended unchanged.
func (f *Facts) Resolve(abs string) string {
	abs = filepath.Clean(abs)
	if len(abs) > maxPath {
		return abs // no such path can exist; skip the system calls
	}
	// Inside the repository only the components below the (already resolved) root can be
	// links: start there, which is what a write decision pays on every tool call.
	if rel, ok := cutRoot(abs, f.root, f.CaseInsensitive()); ok {
		return resolveFrom(f.root, strings.Split(rel, string(filepath.Separator)))
	}
	// c:\x on Windows starts at its volume, not at \c:
	vol := filepath.VolumeName(abs)
	rest := strings.TrimPrefix(abs[len(vol):], string(filepath.Separator))
	return resolveFrom(vol+string(filepath.Separator), strings.Split(rest, string(filepath.Separator)))
}

// cutRoot returns abs relative to root when it lies below it. The volume (a drive letter, a
// share) is compared without case, as Windows does everywhere; the rest only when the file
// system folds case: c:\repo\x and C:\Repo\x are one file there.
func cutRoot(abs, root string, fold bool) (string, bool) {
	sep := string(filepath.Separator)
	vol := filepath.VolumeName(root)
	if len(abs) <= len(root) || !strings.EqualFold(abs[:len(vol)], vol) || abs[len(root):len(root)+1] != sep {
		return "", false
	}
	if a, r := abs[len(vol):len(root)], root[len(vol):]; a != r && !(fold && strings.EqualFold(a, r)) {
		return "", false
	}
	return abs[len(root)+1:], true
}

// maxLinks bounds link expansions, as the kernel's ELOOP does.
const maxLinks = 40

// resolveFrom walks parts below the resolved directory dir, following every symlink, dangling
// ones included: a write through a link to a missing directory lands at the link's target.
// Once a component is missing nothing below it can be a link, so the rest is joined as is.
func resolveFrom(dir string, parts []string) string {
	links := 0
	for i := 0; i < len(parts); i++ {
		part := parts[i]
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			dir = filepath.Dir(dir)
			continue
		}
		p := filepath.Join(dir, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return filepath.Join(append([]string{p}, parts[i+1:]...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			dir = p
			continue
		}
		target, err := os.Readlink(p)
		if links++; err != nil || links > maxLinks {
			return filepath.Join(append([]string{p}, parts[i+1:]...)...)
		}
		if filepath.IsAbs(target) {
			dir = string(filepath.Separator)
		}
		rest := append(strings.Split(filepath.Clean(target), string(filepath.Separator)), parts[i+1:]...)
		parts, i = rest, -1
	}
	return dir
}

// resolveSlow is the standard library's resolution on the longest existing prefix of abs; the
// tests hold Resolve to it wherever no dangling link is involved.
func (f *Facts) resolveSlow(abs string) string {
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	var rest []string
	for d := abs; ; {
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		rest = append(rest, filepath.Base(d))
		d = parent
		if r, err := filepath.EvalSymlinks(d); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r
		}
	}
}

// maxPath is the longest path the kernel resolves (PATH_MAX); a longer prefix cannot exist.
const maxPath = 4096

// CaseInsensitive reports whether the repository's file system folds case, detected once by
// looking up the root under a different case (see foldsCase).
func (f *Facts) CaseInsensitive() bool {
	if f.foldFn != nil {
		return f.foldFn()
	}
	f.foldOnce.Do(func() { f.fold = foldsCase(f.root) })
	return f.fold
}

// foldsCase probes whether the file system at root folds case: per volume, not per OS (a
// Mac's APFS and HFS+ fold by default and can be made not to; NTFS folds; ext4 folds in a
// casefold directory only, so the root's own lookups are what count). An entry of the root
// (.git, else memory-bank) is looked up with its case swapped; without one, the root itself
// under its parent.
func foldsCase(root string) bool {
	for _, n := range [...]string{".git", "memory-bank"} {
		if _, err := os.Lstat(filepath.Join(root, n)); err == nil {
			return sameFile(filepath.Join(root, n), filepath.Join(root, swapCase(n)))
		}
	}
	dir, name := filepath.Split(filepath.Clean(root))
	if swapped := swapCase(name); swapped != name {
		return sameFile(root, filepath.Join(dir, swapped))
	}
	return false
}

func sameFile(a, b string) bool {
	x, err := os.Lstat(a)
	if err != nil {
		return false
	}
	y, err := os.Lstat(b)
	return err == nil && os.SameFile(x, y)
}

// swapCase swaps the case of the ASCII letters of s.
func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c|0x20 >= 'a' && c|0x20 <= 'z' {
			b[i] = c ^ 0x20
		}
	}
	return string(b)
}

// Exists reports whether the canonical repository-relative path exists (a dangling symlink
// exists: deleting or overwriting it is still a write).
func (f *Facts) Exists(rel string) bool {
	_, err := os.Lstat(f.abs(rel))
	return err == nil
}

// maxRead bounds what the engine may read to compare an edit (markers, USER_BLOCK).
const maxRead = 32 << 20

// Read returns the content of a canonical repository-relative path.
func (f *Facts) Read(rel string) (string, bool) {
	p := f.abs(rel)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxRead {
		return "", false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// ReadAbs reads a file outside the repository that a shell command runs (a script the agent
// wrote to /tmp): regular files only, at most 256 KiB, so a pre check stays cheap.
func (f *Facts) ReadAbs(abs string) (string, bool) {
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 256<<10 {
		return "", false
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return "", false
	}
	return string(b), true
}

var _ gating.AbsReader = (*Facts)(nil)

// Env returns the variables a shell command of the agent sees with the hook's own values:
// the agent's shell and the hook share their environment, so `cp x "$TMPDIR/y"` is a copy
// to a known place, not to an unknown one.
func (f *Facts) Env() map[string]string {
	m := map[string]string{}
	for _, n := range gating.EnvVars {
		v, ok := os.LookupEnv(n)
		switch {
		case ok && filepath.IsAbs(v):
			m[n] = filepath.ToSlash(filepath.Clean(v))
		case !ok && n == "TMPDIR":
			m[n] = "" // unset: "$TMPDIR/x" is /x, and ${TMPDIR:-/tmp} is /tmp
		}
	}
	return m
}

var _ gating.EnvReader = (*Facts)(nil)

// BankChanges lists the memory-bank/ files with uncommitted work — changed in the work tree
// or the index, untracked, or ignored (git clean -x removes those) — as git sees them. Only
// memory-bank/ is looked at, so the cost does not grow with the repository; it is asked only
// when a command would rewrite the whole work tree (git reset --hard, git stash, git clean -f). ok is false when git cannot
// tell (no git, not a work tree, a timeout).
func (f *Facts) BankChanges() (files []string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	// a status must not take the index lock the agent's next git command needs
	out, err := gitexec.Cmd{Env: []string{"GIT_OPTIONAL_LOCKS=0"}}.Run(ctx, "-C", f.root, "status", "--porcelain=v1", "-z", "--untracked-files=all",
		"--ignored=traditional", "--no-renames", "--", "memory-bank")
	if err != nil {
		return nil, false
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) > 3 {
			files = append(files, string(rec[3:]))
		}
	}
	return files, true
}

var _ gating.BankStatuser = (*Facts)(nil)

// Secrets returns the gitleaks rule ids of secrets in content that would be written to rel.
// A detector that cannot run reports gating.ScanErrorRule: a bank write that cannot be checked
// is refused rather than waved through.
func (f *Facts) Secrets(rel, content string) []string {
	if f.secrets == nil || content == "" {
		return nil
	}
	fs, err := f.secrets().Scan(rel, []byte(content))
	if err != nil {
		return []string{gating.ScanErrorRule}
	}
	var ids []string
	for _, x := range fs {
		if !contains(ids, x.Rule) {
			ids = append(ids, x.Rule)
		}
	}
	return ids
}

func (f *Facts) abs(rel string) string {
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "..") {
		// never outside the repository: the engine passes canonical relative paths only
		return filepath.Join(f.root, ".mbguard-invalid-path")
	}
	return filepath.Join(f.root, filepath.FromSlash(rel))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
