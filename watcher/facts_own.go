package watcher

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
)

var _ gating.OwnFiler = (*Facts)(nil)

// OwnFiles are mbguard's own files outside the repository (gating.OwnFiler): the user
// configuration file (config.UserFile), the executable the hooks run (when it is named
// mbguard…, as installed) and its pair beside it (mbguard and mbguard-hook), and both names in
// every PATH directory searched before the one that holds them — each as given and with its
// symlinks resolved. Computed only when a call writes outside the
// repository.
func (f *Facts) OwnFiles() []string { return OwnFiles(os.Getenv) }

// OwnFiles is Facts.OwnFiles for an environment: the outcome check guards the same files
// after a call (a change to one marks the session unguarded).
func OwnFiles(getenv func(string) string) []string {
	s := ownSet{dirs: map[string]string{}}
	s.add(config.UserFile(getenv))
	exe, err := os.Executable()
	if err != nil {
		return s.out
	}
	if strings.HasPrefix(filepath.Base(exe), "mbguard") {
		s.add(exe) // the program the hooks name (a test binary or `go run` build is not)
		// and its pair, installed beside it: mbguard-hook answers the hooks and has mbguard
		// scan for it; mbguard installs hooks that run mbguard-hook
		for _, name := range ProgramNames() {
			s.add(filepath.Join(filepath.Dir(exe), name))
		}
	}
	// a hook line names "mbguard" (or "mbguard-hook") when it was on PATH at install: the
	// first PATH entry that holds one runs, so a new one in any directory before it takes its
	// place
	for _, name := range ProgramNames() {
		for _, dir := range filepath.SplitList(getenv("PATH")) {
			if dir == "" || !filepath.IsAbs(dir) {
				continue
			}
			p := filepath.Join(dir, name)
			s.add(p)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				break // the one that runs: directories after it cannot shadow it
			}
		}
	}
	return s.out
}

// ownSet collects OwnFiles' paths, each as given and resolved, once.
type ownSet struct {
	out  []string
	dirs map[string]string // each folder resolved once: PATH holds many, each named twice
}

func (s *ownSet) add(p string) {
	if p == "" || !filepath.IsAbs(p) {
		return
	}
	p = filepath.Clean(p)
	for _, q := range []string{p, s.resolve(p)} {
		if q = filepath.ToSlash(q); !slices.Contains(s.out, q) {
			s.out = append(s.out, q)
		}
	}
}

// resolve is resolvePath(p), resolving p's folder through the cache.
func (s *ownSet) resolve(p string) string {
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return resolvePath(p)
	}
	dir, base := filepath.Split(p)
	r, ok := s.dirs[dir]
	if !ok {
		r = resolvePath(dir)
		s.dirs[dir] = r
	}
	return filepath.Join(r, base)
}

// resolvePath is p with its symlinks resolved for its longest existing prefix.
func resolvePath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == p || dir == "" {
		return p
	}
	return filepath.Join(resolvePath(filepath.Clean(dir)), base)
}

// ProgramNames are the file names of mbguard's two programs on this system: mbguard and
// mbguard-hook (on Windows with .exe, and without it, which PATHEXT completes).
func ProgramNames() []string {
	if runtime.GOOS == "windows" {
		return []string{"mbguard.exe", "mbguard-hook.exe", "mbguard", "mbguard-hook"}
	}
	return []string{"mbguard", "mbguard-hook"}
}
