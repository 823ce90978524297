package flock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Two open files of one path stand in for two processes: flock and LockFileEx locks belong to
// the open file, not the process.
func TestExclusiveExcludesOthersUntilUnlocked(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pid")
	a, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	if Held(p) {
		t.Fatal("Held before any lock")
	}
	if err := TryLock(a); err != nil {
		t.Fatalf("first TryLock: %v", err)
	}
	if !Held(p) {
		t.Fatal("Held is false while a holds the lock")
	}
	if err := TryLock(b); !errors.Is(err, ErrHeld) {
		t.Fatalf("second TryLock = %v, want ErrHeld", err)
	}
	if err := TryShared(b); !errors.Is(err, ErrHeld) {
		t.Fatalf("TryShared under an exclusive lock = %v, want ErrHeld", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := Lock(b); err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	if err := TryLock(a); !errors.Is(err, ErrHeld) {
		t.Fatalf("TryLock while b holds = %v, want ErrHeld", err)
	}
	b.Close()
	if Held(p) {
		t.Fatal("closing the holder did not release the lock")
	}
}

func TestHeldOnMissingFile(t *testing.T) {
	if Held(filepath.Join(t.TempDir(), "none")) {
		t.Fatal("a missing file is reported held")
	}
}
