//go:build linux

package outcome

import (
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// deepTree makes depth nested folders named "deep" in dir and a file at the bottom, with
// *at calls (a shell loop takes minutes: every mkdir resolves the whole path).
func deepTree(t *testing.T, dir string, depth int) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < depth; i++ {
		if err := unix.Mkdirat(fd, "deep", 0o755); err != nil {
			t.Fatal(err)
		}
		nfd, err := unix.Openat(fd, "deep", unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = nfd
	}
	defer unix.Close(fd)
	f, err := unix.Openat(fd, "evil.json", unix.O_WRONLY|unix.O_CREAT, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	unix.Write(f, []byte("x"))
	unix.Close(f)
}

// A folder 1,500 levels deep (its paths far longer than any absolute path may be) is walked
// with openat-relative lookups and undone in one rename.
func TestDeepFolder(t *testing.T) {
	t.Run("1,500 levels", func(t *testing.T) {
		root, g := newBank(t)
		want := snapshot(t, root)
		if _, err := g.Before(Call{ID: "c", Session: "s", Tool: "Bash"}); err != nil {
			t.Fatal(err)
		}
		deepTree(t, filepath.Join(root, "memory-bank"), 1500)
		post := fresh(t, root)
		post.o.Deadline = time.Hour // about depth: on a loaded machine this check nears PostDeadline
		rep, err := post.After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true})
		if err != nil || !rep.Blocked() {
			t.Fatalf("post check: %.300v blocked=%v", err, rep.Blocked())
		}
		sameTree(t, want, snapshot(t, root))
		if len(rep.Undone) < 1501 || rep.Quarantine == "" {
			t.Errorf("undone %d paths, quarantine %q", len(rep.Undone), rep.Quarantine)
		}
	})
}
