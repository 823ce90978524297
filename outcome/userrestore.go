package outcome

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// The user-level files the hooks depend on — every host's user settings, mbguard's user
// configuration, the executable the hooks run and the names a stub would take before it on
// PATH (Options.UserProtected) — are put back after an agent's call changed them, from what
// mbguard kept when the person's state was taken: the bytes of a small file in the known-good
// state, a copy of a large one (the executable) in the user's state folder, named by its
// sha256 and checked against it before it is used. A file the agent created where there was
// none (a stub on PATH) goes to the quarantine. Only what cannot be put back leaves the
// session unguarded (protEnforce).

// userKept is the known-good form of one user-level file.
type userKept struct {
	Data []byte `json:"data,omitempty"` // a small file's bytes
	Mode uint32 `json:"mode,omitempty"`
	Copy string `json:"copy,omitempty"` // a large file's sha256: its copy in copyDir
}

// copyDir is where copies of large user-level files are kept: the user's state folder, which
// no agent may read or write (gating's first line refuses calls naming it).
func copyDir() string {
	if b := stateBase(); b != "" {
		return filepath.Join(b, "copies")
	}
	return ""
}

// keepUser records p's current form as known-good in s: its bytes, or a copy in copyDir.
// A file that does not exist is kept as absent.
func keepUser(s *protSnap, p string) {
	if s.Kept == nil {
		s.Kept = map[string]userKept{}
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		delete(s.Kept, p)
		return
	}
	k := userKept{Mode: uint32(fi.Mode().Perm())}
	if fi.Size() <= maxProtectedFile {
		if b, err := os.ReadFile(p); err == nil {
			k.Data = b
			s.Kept[p] = k
		}
		return
	}
	if sum, err := keepCopy(p); err == nil {
		k.Copy = sum
		s.Kept[p] = k
	} else {
		delete(s.Kept, p)
	}
}

// keepCopy copies p into copyDir under its sha256 (once per content) and returns the sum.
func keepCopy(p string) (string, error) {
	dir := copyDir()
	if dir == "" {
		return "", errors.New("no user state folder")
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sum, err := hashReader(f) // the copy is of the bytes hashed: one open file for both
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, sum)
	if ok, _ := copyIntact(dst, sum); ok {
		return sum, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	if err := fsutil.WriteFrom(dst, f, 0o600, fsutil.Options{}); err != nil {
		return "", err
	}
	return sum, nil
}

// copyIntact reports whether the file at p holds bytes whose sha256 is sum.
func copyIntact(p, sum string) (bool, error) {
	got, err := hashFile(p)
	return err == nil && got == sum, err
}

var userWhy = []Problem{{Rule: RuleProtected, Text: "is a user-level file mbguard's hooks depend on, which only the user may change"}}

// restoreUser puts p back as s keeps it, the agent's bytes kept in q; it reports what it did,
// or an error when p cannot be put back (the session is then unguarded).
func restoreUser(s *protSnap, p string, q *quarantine) (string, error) {
	k, kept := s.Kept[p]
	agent, rerr := os.ReadFile(p)
	switch {
	case s.User[p] == "":
		// there was none: a stub earlier on PATH, a new settings file
		if rerr == nil {
			q.keep(p, "created", agent, userWhy)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		return "removed", nil
	case !kept:
		return "", errors.New("mbguard keeps no copy of it")
	}
	if rerr == nil && len(agent) <= maxProtectedFile {
		q.keep(p, "modified", agent, userWhy)
	}
	mode := os.FileMode(k.Mode)
	if k.Copy == "" {
		if err := fsutil.WriteFileAtomic(p, k.Data, mode); err != nil {
			return "", err
		}
		return "restored", nil
	}
	src := filepath.Join(copyDir(), k.Copy)
	if ok, err := copyIntact(src, k.Copy); !ok {
		return "", fmt.Errorf("the kept copy %s is missing or damaged (%v)", src, err)
	}
	f, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	if err := fsutil.WriteFrom(p, f, mode, fsutil.Options{}); err != nil {
		return "", err
	}
	return "restored", nil
}
