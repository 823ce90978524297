package lifecycle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
)

// A migrate killed early can leave git's index.lock. Both --apply and --rollback must then
// refuse before touching anything and say exactly what to do about the lock.
func TestMigrateStaleIndexLock(t *testing.T) {
	tests := []struct {
		name    string
		running bool
		known   bool
		age     time.Duration
		want    string
	}{
		{"no git process", false, true, time.Second, "left behind by an interrupted git command: remove it (rm "},
		{"git running, fresh lock", true, true, time.Second, "another git command holds"},
		{"unknown, old lock", false, false, time.Hour, "old: if no git command is running in this repository, remove it"}, // its age in seconds grows with the load
	}
	defer func(f func() (bool, bool)) { gitRunning = f }(gitRunning)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gitRunning = func() (bool, bool) { return tc.running, tc.known }
			root := legacyRepo(t)
			o := opts(root)
			lock := filepath.Join(root, ".git", "index.lock")
			os.WriteFile(lock, nil, 0o644)
			then := time.Now().Add(-tc.age)
			os.Chtimes(lock, then, then)
			before := testgit.Git(t, root, "ls-files")

			_, err := Migrate(context.Background(), o)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), lock) {
				t.Fatalf("apply: got %v, want a refusal naming %s with %q", err, lock, tc.want)
			}
			if _, err := os.Stat(filepath.Join(root, "memory-bank", "brief.md")); err != nil {
				t.Fatalf("apply moved files despite the lock: %v", err)
			}
			o.Rollback = true
			_, err = Migrate(context.Background(), o)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "nothing to roll back") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("rollback: got %v, want 'nothing to roll back' and %q", err, tc.want)
			}
			os.Remove(lock)
			if got := testgit.Git(t, root, "ls-files"); got != before {
				t.Fatal("the index changed")
			}
		})
	}
}
