package watcher

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

func newDaemonRepo(t *testing.T, root string) (repo.Repo, *Service) {
	t.Helper()
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{RepoRoot: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return r, NewService(r, cfg, ServiceOptions{Resident: true})
}

func startDaemon(t *testing.T, svc *Service) *Daemon {
	t.Helper()
	d, err := StartDaemon(context.Background(), svc, WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestDaemonLifecycle(t *testing.T) {
	r, svc := newDaemonRepo(t, testgit.New(t))
	if _, err := Dial(r); !errors.Is(err, ErrNoWatcher) {
		t.Fatalf("Dial with no watcher: %v, want ErrNoWatcher", err)
	}
	d := startDaemon(t, svc)
	if d.Socket() != filepath.Join(r.StateDir(), SocketFile) {
		t.Fatalf("socket %s, want it in the state directory", d.Socket())
	}

	t.Run("second watcher refuses and names the first", func(t *testing.T) {
		_, svc2 := newDaemonRepo(t, r.Root)
		_, err := StartDaemon(context.Background(), svc2, WatchOptions{})
		var re *RunningError
		if !errors.As(err, &re) || re.PID != os.Getpid() || re.Socket != d.Socket() {
			t.Fatalf("err = %v, want a RunningError naming pid %d and %s", err, os.Getpid(), d.Socket())
		}
		if !strings.Contains(err.Error(), "mbguard watch --stop") {
			t.Fatalf("message has no next step: %v", err)
		}
	})

	t.Run("requests over the socket", func(t *testing.T) {
		c, err := Dial(r)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		resp, err := c.Do(context.Background(), Request{Op: "ping"})
		if err != nil || resp.Error != "" || string(resp.ID) != "1" {
			t.Fatalf("ping: %+v, %v", resp, err)
		}
		resp, err = c.Do(context.Background(), Request{Op: "status"})
		if err != nil || resp.Status == nil || !resp.Status.Watching || resp.Status.PID != os.Getpid() {
			t.Fatalf("status: %+v, %v", resp, err)
		}
	})

	t.Run("malformed line gets an error with its id", func(t *testing.T) {
		conn, err := net.Dial("unix", d.Socket())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte("{\"id\":7,\"op\":42}\nnot json\n"))
		rd := bufio.NewReader(conn)
		for _, want := range []string{`"id":7`, `"error":"malformed`} {
			line, err := rd.ReadString('\n')
			if err != nil || !strings.Contains(line, want) || !strings.Contains(line, "malformed") {
				t.Fatalf("line %q (%v), want it to contain %s", line, err, want)
			}
		}
	})

	t.Run("stop", func(t *testing.T) {
		pid, err := Stop(r, 5*time.Second)
		if err != nil || pid != os.Getpid() {
			t.Fatalf("Stop = %d, %v", pid, err)
		}
		if err := d.Wait(); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{d.Socket(), filepath.Join(r.StateDir(), AddrFile)} {
			if _, err := os.Lstat(f); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s left behind after stop", f)
			}
		}
		if _, _, ok := Running(r); ok {
			t.Fatal("lock still held after stop")
		}
		if pid, err := Stop(r, time.Second); pid != 0 || err != nil {
			t.Fatalf("Stop with none running = %d, %v", pid, err)
		}
	})
}

func TestDaemonStaleSocket(t *testing.T) {
	r, svc := newDaemonRepo(t, testgit.New(t))
	// a watcher killed with SIGKILL leaves its socket file and addr file, but not its lock
	sock := SocketPath(r)
	os.MkdirAll(r.StateDir(), 0o755)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	os.WriteFile(filepath.Join(r.StateDir(), AddrFile), []byte(sock+"\n"), 0o644)
	os.WriteFile(filepath.Join(r.StateDir(), PIDFile), []byte("999999\n"+sock+"\n"), 0o644)

	if _, err := Dial(r); !errors.Is(err, ErrNoWatcher) {
		t.Fatalf("Dial on a stale socket: %v, want ErrNoWatcher", err)
	}
	if _, _, ok := Running(r); ok {
		t.Fatal("a stale pid file counts as running")
	}
	startDaemon(t, svc)
	c, err := Dial(r)
	if err != nil {
		t.Fatalf("the stale socket was not replaced: %v", err)
	}
	defer c.Close()
	if resp, err := c.Do(context.Background(), Request{Op: "ping"}); err != nil || resp.Error != "" {
		t.Fatalf("ping: %+v, %v", resp, err)
	}
}

func TestDaemonLongPath(t *testing.T) {
	root := testgit.New(t)
	deep := filepath.Join(root, strings.Repeat("d", 60), strings.Repeat("e", 60))
	testgit.Git(t, root, "init", "-q", deep)
	r, svc := newDaemonRepo(t, deep)
	if len(filepath.Join(r.StateDir(), SocketFile)) <= maxSunPath {
		t.Fatal("test repository path is not long enough")
	}
	d := startDaemon(t, svc)
	if !strings.HasPrefix(d.Socket(), os.TempDir()) {
		t.Fatalf("socket %s, want the fallback under %s", d.Socket(), os.TempDir())
	}
	c, err := Dial(r)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if resp, err := c.Do(context.Background(), Request{Op: "ping"}); err != nil || resp.Error != "" {
		t.Fatalf("ping: %+v, %v", resp, err)
	}
}
