// Package fsutil holds file plumbing: atomic writes and advisory locks.
package fsutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteFileAtomic writes data to a temporary file beside name, syncs it and renames it over
// name, so a reader sees the old or the new content and never half of it, even if the process
// is killed mid-write.
func WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	return WriteFile(name, data, perm, Options{})
}

// Options tunes WriteFile. The zero value is WriteFileAtomic: synced, replacing.
type Options struct {
	// NoSync skips the fsync before the rename. Readers still never see half a file, but a
	// power loss may leave the old content or an empty file: for content that is rebuilt when
	// lost and written so often that a sync would show (a state file written on every tool
	// call, files restored by the hundred).
	NoSync bool
	// Exclusive creates name only if nothing is there yet (not even a dangling symlink): the
	// temporary file is hard-linked into place, which fails rather than replaces. WriteFile
	// then returns an error matching fs.ErrExist. Where the file system has no hard links it
	// falls back to a rename after a last check, which a racing writer can still lose.
	Exclusive bool
	// TempPrefix names the temporary file "<TempPrefix><digits>" in name's folder instead of
	// ".<name>.tmp<digits>": git's loose objects use "tmp_obj_", which git fsck ignores and git
	// prune removes, where a file of another name is "bad sha1 file" for ever.
	TempPrefix string
}

// BeforePlace, when set, runs once the temporary file is written and closed and before it is
// put in place. Only tests set it: the kill-anywhere test of migrate stops the process there.
var BeforePlace func(tmp string)

// WriteFile writes data to name through a temporary file beside it (".<name>.tmp<digits>",
// which RemoveStaleTemps cleans when a process dies mid-write) set to exactly perm, so a
// reader sees the old or the new content, never half of it, and any hard link to the old file
// keeps the old content. It is the one atomic writer: every file mbguard writes whole goes
// through it.
func WriteFile(name string, data []byte, perm os.FileMode, o Options) error {
	return WriteFrom(name, bytes.NewReader(data), perm, o)
}

// WriteFrom is WriteFile streaming what r holds, for content too large to hold in memory at
// once (a copy of mbguard's own executable).
func WriteFrom(name string, r io.Reader, perm os.FileMode, o Options) error {
	if o.Exclusive {
		if _, err := os.Lstat(name); err == nil {
			return fmt.Errorf("writing %s: %w", name, fs.ErrExist)
		}
	}
	dir := filepath.Dir(name)
	prefix := o.TempPrefix
	if prefix == "" {
		prefix = "." + filepath.Base(name) + tempMark
	}
	f, err := os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := io.Copy(f, r); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if !o.NoSync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if BeforePlace != nil {
		BeforePlace(tmp)
	}
	if o.Exclusive {
		ok = true // link removes tmp whatever happens
		return link(tmp, name)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	ok = true
	return nil
}

// link puts the finished temporary file tmp in place at name unless something is there, and
// removes tmp's own name.
func link(tmp, name string) error {
	err := os.Link(tmp, name)
	if err == nil {
		os.Remove(tmp)
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", name, fs.ErrExist)
	}
	// file systems without hard links: a rename after a last check
	if _, serr := os.Lstat(name); serr == nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", name, fs.ErrExist)
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// tempMark sits between the target's name and CreateTemp's random digits in a temporary
// file's name: ".<name>.tmp<digits>".
const tempMark = ".tmp"

// StaleTemp is how old a temporary file of WriteFileAtomic must be before RemoveStaleTemps
// takes it for the leftover of a killed process: a write in progress touches its file within
// milliseconds, the largest state file within a second.
const StaleTemp = 10 * time.Minute

// RemoveStaleTemps removes the temporary files WriteFileAtomic leaves in dir when its process
// is killed between create and rename (".<name>.tmp<digits>"), if they were last modified
// before now-olderThan, so one still being written is never touched. It returns how many it
// removed; a missing dir is not an error.
func RemoveStaleTemps(dir string, olderThan time.Duration, now time.Time) (int, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cleaning temporary files: %w", err)
	}
	n := 0
	cut := now.Add(-olderThan)
	for _, e := range ents {
		if !isTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.ModTime().Before(cut) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n, nil
}

// IsTemp reports whether name is a WriteFileAtomic temporary: ".x.tmp123".
func IsTemp(name string) bool { return isTemp(name) }

func isTemp(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(name, tempMark)
	if i <= 1 {
		return false
	}
	for _, c := range name[i+len(tempMark):] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(name) > i+len(tempMark)
}

// WithoutPath drops the path from an *fs.PathError, for messages that name the file already.
func WithoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
