//go:build !unix

package state

import (
	"fmt"
	"os"
	"time"
)

// Lock is an exclusive lock on one session. Without flock, it is a lock file created
// exclusively; a stale one older than a minute is broken.
type Lock struct{ path string }

// Lock takes the session's lock, waiting for other processes that hold it.
func (s *Store) Lock(session string) (*Lock, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("locking session state: %w", err)
	}
	p := s.lockPath(session)
	for i := 0; ; i++ {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return &Lock{path: p}, nil
		}
		if fi, serr := os.Stat(p); serr == nil && s.now().Sub(fi.ModTime()) > time.Minute {
			os.Remove(p)
			continue
		}
		if i > 500 {
			return nil, fmt.Errorf("locking session state: %s is held (remove it if no agent is running)", p)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Unlock releases the lock. It is safe on a nil Lock.
func (l *Lock) Unlock() {
	if l != nil && l.path != "" {
		os.Remove(l.path)
		l.path = ""
	}
}
