package outcome

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mbguard/mbguard/internal/repo"
)

// The user's state directory keeps, per repository, files named by a hash of its git
// directory (known-good/<key>.idx, signatures/<key>.mac, objects/<key>/). A hash cannot say
// which repository it was, so repos/<key> records the git directory in plain text: pruning
// reads it to find the state of repositories that no longer exist. State written by an
// mbguard before the record has none and is left alone until its repository is checked again.

// stateKinds are the per-repository entries of the user's state directory, as (folder,
// suffix) pairs: <folder>/<key><suffix>.
var stateKinds = [][2]string{{"known-good", ".idx"}, {"signatures", ".mac"}, {"objects", ""}, {"repos", ""}}

// recordPath is repos/<key>, the git directory this repository's state belongs to.
func (g *Guard) recordPath() string {
	base, key := stateBase(), g.repoKey()
	if base == "" || key == "" {
		return ""
	}
	return filepath.Join(base, "repos", key)
}

// saveRecord writes repos/<key> once (the git directory of a key never changes).
func (g *Guard) saveRecord() {
	p := g.recordPath()
	if p == "" {
		return
	}
	if _, err := os.Lstat(p); err == nil {
		return
	}
	gd, err := filepath.Abs(g.r.GitDir)
	if err != nil || os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	_ = writeFile(p, []byte(gd+"\n"), 0o644, false)
}

// removeUserState removes the entries named key from the user's state directory.
func removeUserState(base, key string) error {
	var errs []error
	for _, k := range stateKinds {
		if err := os.RemoveAll(filepath.Join(base, k[0], key+k[1])); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ForgetState removes everything mbguard keeps for r: .git/mbguard/ (sessions, logs, the
// manifest, the quarantine), the private ref and this repository's files in the user's state
// directory. It is `mbguard uninstall`'s, run by the person.
func ForgetState(r repo.Repo) error {
	if err := ResetKnownGood(r); err != nil {
		return err
	}
	if err := os.RemoveAll(r.StateDir()); err != nil {
		return fmt.Errorf("removing %s: %w", r.StateDir(), err)
	}
	g := New(r, Options{})
	if base, key := stateBase(), g.repoKey(); base != "" && key != "" {
		if err := removeUserState(base, key); err != nil {
			return fmt.Errorf("removing mbguard's state for this repository under %s: %w", base, err)
		}
	}
	return nil
}

// Orphan is the state of a repository that no longer exists.
type Orphan struct {
	Key    string // the hash its files are named by
	GitDir string // the git directory it recorded
}

// OrphanState lists the state kept for repositories whose git directory is gone.
func OrphanState() ([]Orphan, error) {
	base := stateBase()
	if base == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(filepath.Join(base, "repos"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading mbguard's state directory: %w", err)
	}
	var out []Orphan
	for _, e := range ents {
		key := e.Name()
		if !validKey(key) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(base, "repos", key))
		if err != nil {
			continue
		}
		gd := strings.TrimSpace(string(b))
		if !filepath.IsAbs(gd) {
			continue
		}
		// only a git directory that is certainly gone: not one we may not read
		if _, err := os.Lstat(gd); errors.Is(err, fs.ErrNotExist) {
			out = append(out, Orphan{Key: key, GitDir: gd})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GitDir < out[j].GitDir })
	return out, nil
}

// PruneState removes the state of repositories that no longer exist and returns them.
func PruneState() ([]Orphan, error) {
	orphans, err := OrphanState()
	if err != nil {
		return nil, err
	}
	base := stateBase()
	for i, o := range orphans {
		if err := removeUserState(base, o.Key); err != nil {
			return orphans[:i], fmt.Errorf("pruning the state of %s: %w", o.GitDir, err)
		}
	}
	return orphans, nil
}

// validKey reports whether name is a repoKey (hex), so a stray file never makes pruning
// remove anything else.
func validKey(name string) bool {
	if len(name) != 24 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
