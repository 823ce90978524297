package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/watcher"
)

// watchLog is the detached watcher's log, beside its pid file (watcher.PIDFile) in the
// repository's state directory.
const watchLog = "watch.log"

// maxWatchLog is the size past which a detached start moves the old log to watch.log.old.
const maxWatchLog = 1 << 20

// detachWait bounds how long watch --detach waits for the watcher to hold its lock.
const detachWait = 10 * time.Second

// detachWatch starts `mbguard watch` for r as a process of its own, its output appended to
// .git/mbguard/watch.log, and returns once the watcher holds its lock (pid file, socket).
func (e *env) detachWatch(r repo.Repo, debounce time.Duration) int {
	if pid, _, ok := watcher.Running(r); ok {
		fmt.Fprintf(e.stderr, "mbguard: a watcher already runs for this repository (pid %d); stop it with mbguard watch --stop\n", pid)
		return exitFindings
	}
	self, err := os.Executable()
	if err != nil {
		return e.fail(fmt.Errorf("locating the mbguard binary: %w", err))
	}
	if err := os.MkdirAll(r.StateDir(), 0o755); err != nil {
		return e.fail(fmt.Errorf("creating %s: %w", r.StateDir(), err))
	}
	logPath := filepath.Join(r.StateDir(), watchLog)
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > maxWatchLog {
		_ = os.Rename(logPath, logPath+".old")
	}
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return e.fail(fmt.Errorf("opening the watcher's log: %w", err))
	}
	defer log.Close()
	args := []string{"-C", r.Root}
	for _, s := range e.sets {
		args = append(args, "--set", s)
	}
	args = append(args, "watch", "--debounce", debounce.String())
	cmd := exec.Command(self, args...)
	cmd.Dir = r.Root
	cmd.Stdout, cmd.Stderr = log, log // nothing of the caller's terminal or pipes is kept
	cmd.SysProcAttr = detachedAttr()
	if err := cmd.Start(); err != nil {
		return e.fail(fmt.Errorf("starting the watcher: %w", err))
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(detachWait)
	for {
		// the socket's path is known once the watcher listens (it writes watch.addr after the
		// lock): until then the line would name no socket, and a client could not dial it yet
		if pid, sock, ok := watcher.Running(r); ok && pid == cmd.Process.Pid && sock != "" {
			fmt.Fprintf(e.stderr, "mbguard: watching %s (pid %d, socket %s, log %s); stop it with mbguard watch --stop\n",
				r.BankDir(), pid, sock, displayRel(r.Root, logPath))
			return exitOK
		}
		select {
		case err := <-exited:
			code := exitUsage
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == exitFindings {
				code = exitFindings // another watcher won the race
			}
			fmt.Fprintf(e.stderr, "mbguard: the watcher stopped at start: %s (see %s)\n", lastLine(logPath), displayRel(r.Root, logPath))
			return code
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return e.fail(fmt.Errorf("the watcher did not start within %s (see %s)", detachWait, logPath))
		}
	}
}

// watchStatus prints whether a watcher runs for r: exit 0 when one does, 1 when none does.
func (e *env) watchStatus(r repo.Repo) int {
	pid, sock, ok := watcher.Running(r)
	if !ok {
		fmt.Fprintln(e.stdout, "watcher: not running")
		fmt.Fprintln(e.stdout, "next: mbguard watch --detach")
		return exitFindings
	}
	fmt.Fprintf(e.stdout, "watcher: running (pid %d, socket %s, log %s)\n", pid, sock, displayRel(r.Root, filepath.Join(r.StateDir(), watchLog)))
	if why := e.watcherTrust(r); why != "" {
		// the hooks run the same check on every call (hooks.dialWatch)
		fmt.Fprintf(e.stdout, "hooks: mbguard does not ask the watcher for this repository: %s; hooks decide in process\n", why)
		fmt.Fprintln(e.stdout, "next: mbguard watch --stop, then mbguard watch --detach in a terminal (the person's, with the repository's configuration)")
		return exitFindings
	}
	fmt.Fprintln(e.stdout, "hooks: ask this watcher (same executable, the repository's configuration, started by a person)")
	return exitOK
}

// lastLine is the last non-empty line of the file at p (at most its last 4 KiB are read).
func lastLine(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return "no log"
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 4096 {
		_, _ = f.Seek(-4096, io.SeekEnd)
	}
	last := "no output"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = strings.TrimPrefix(l, "mbguard: ")
		}
	}
	return last
}
