package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/proctab"
)

// staleLockAge is how old an index.lock must be before it is called abandoned when mbguard
// cannot tell whether a git process is running: git holds it for the length of one command.
const staleLockAge = 10 * time.Minute

// gitRunning reports whether any git process is running, and whether it could tell (Linux's
// /proc). Tests replace it: other tests' git commands run on the same machine.
var gitRunning = func() (running, known bool) {
	tab := proctab.Local()
	pids, ok := tab.PIDs()
	if !ok {
		return false, false
	}
	for _, pid := range pids {
		if name, ok := tab.Comm(pid); ok && (name == "git" || strings.HasPrefix(name, "git-")) {
			return true, true
		}
	}
	return false, true
}

// checkIndexLock refuses when git's index.lock exists, saying whether it was left behind (a
// git command killed mid-way, e.g. an interrupted migrate) and must be removed, or belongs to
// a git command still running. A stale lock is never removed here: that is the user's call.
func checkIndexLock(gitDir string, now time.Time) error {
	lock := indexPath(gitDir) + ".lock"
	fi, err := os.Stat(lock)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking %s: %w", lock, err)
	}
	return refuse("%s", lockAdvice(lock, fi.ModTime(), now))
}

// lockAdvice says what to do about the index.lock at lock, last modified at mtime.
func lockAdvice(lock string, mtime, now time.Time) string {
	running, known := gitRunning()
	age := now.Sub(mtime).Round(time.Second)
	switch {
	case known && !running:
		return fmt.Sprintf("git's index lock %s was left behind by an interrupted git command: remove it (rm %s) — no git process is running — then run the command again", lock, lock)
	case age > staleLockAge:
		return fmt.Sprintf("git's index lock %s is %v old: if no git command is running in this repository, remove it (rm %s), then run the command again", lock, age, lock)
	default:
		return fmt.Sprintf("another git command holds %s: wait for it to finish, then run the command again", lock)
	}
}
