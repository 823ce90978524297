// Package flock is mbguard's one advisory file lock: flock(2) on unix, LockFileEx on Windows.
// Both are released by the kernel when the holder exits, so a killed hook never wedges a lock.
package flock

import (
	"errors"
	"os"
)

// ErrHeld reports that a non-blocking lock is held by another open file.
var ErrHeld = errors.New("lock is held by another process")

// Lock takes an exclusive lock on f, waiting for its holder.
func Lock(f *os.File) error { return lock(f, true, true) }

// TryLock takes an exclusive lock on f without waiting; ErrHeld when another holds it.
func TryLock(f *os.File) error { return lock(f, true, false) }

// TryShared takes a shared lock on f without waiting; ErrHeld when an exclusive lock is held.
func TryShared(f *os.File) error { return lock(f, false, false) }

// Unlock releases f's lock. Closing f releases it too.
func Unlock(f *os.File) error { return unlock(f) }

// Held reports whether some process holds an exclusive lock on path.
func Held(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := TryShared(f); err != nil {
		return errors.Is(err, ErrHeld)
	}
	Unlock(f)
	return false
}
