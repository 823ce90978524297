// Package fsutil holds file plumbing: atomic writes and advisory locks.
package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteFileAtomic writes data to a temporary file beside name, syncs it and renames it over
// name, so a reader sees the old or the new content and never half of it, even if the process
// is killed mid-write.
func WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+tempMark+"*")
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
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	ok = true
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

// isTemp reports whether name is a WriteFileAtomic temporary: ".x.tmp123".
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
