package state

import (
	"fmt"
	"os"

	"github.com/mbguard/mbguard/internal/flock"
)

// Lock is an exclusive advisory lock on one session, held across load, decide and save so
// concurrent hook processes of the same session do not lose each other's reads.
type Lock struct{ f *os.File }

// Lock takes the session's lock, waiting for other processes that hold it. The lock is
// released by Unlock or when the process exits, so a killed hook never wedges a session.
func (s *Store) Lock(session string) (*Lock, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("locking session state: %w", err)
	}
	f, err := os.OpenFile(s.lockPath(session), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking session state: %w", err)
	}
	if err := flock.Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking session state: %w", err)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. It is safe on a nil Lock.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	flock.Unlock(l.f)
	l.f.Close()
	l.f = nil
}
