package watcher

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// TestRealFSNotify runs the watcher on real inotify events in a temporary repository. The
// debounce is long (so a slow machine still sees a burst as one) and the test waits for scans
// to be reported, never for a time to pass.
func TestRealFSNotify(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# patterns\n")
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{RepoRoot: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	type scan struct {
		rel   string
		rules []string
	}
	scans := make(chan scan, 100)
	sink := &recSink{}
	w := NewWatcher(r, cfg, sink, WatchOptions{Debounce: 300 * time.Millisecond, OnScan: func(rel string, fs []Finding) {
		var rules []string
		for _, f := range fs {
			rules = append(rules, f.Rule)
		}
		scans <- scan{rel, rules}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	fw, err := w.Start()
	if err != nil {
		t.Fatal(err)
	}
	go func() { defer fw.Close(); done <- w.loop(ctx, fw.Events, fw.Errors) }()
	t.Cleanup(func() { cancel(); <-done })

	// next waits for the next scan; a scan that never comes fails the test after a generous
	// deadline (this bounds a hang, it measures nothing)
	next := func(t *testing.T) scan {
		t.Helper()
		select {
		case s := <-scans:
			return s
		case <-time.After(20 * time.Second):
			t.Fatal("no scan reported")
			return scan{}
		}
	}
	// drainUntil reads scans until rel's arrives and returns every scan seen on the way
	drainUntil := func(t *testing.T, rel string) []scan {
		t.Helper()
		var seen []scan
		for {
			s := next(t)
			seen = append(seen, s)
			if s.rel == rel {
				return seen
			}
		}
	}
	write := func(t *testing.T, rel, body string) {
		t.Helper()
		testgit.Write(t, root, rel, body)
	}

	t.Run("burst collapsed", func(t *testing.T) {
		for i := range 30 {
			write(t, "memory-bank/details/tech.md", "# tech "+strings.Repeat("x", i)+"\n")
		}
		write(t, "memory-bank/details/progress.md", "# sentinel\n") // scanned after the burst settles
		seen := drainUntil(t, "memory-bank/details/progress.md")
		n := 0
		for _, s := range seen {
			if s.rel == "memory-bank/details/tech.md" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("30 writes gave %d scans of tech.md, want 1 (%v)", n, seen)
		}
	})

	t.Run("atomic rename save", func(t *testing.T) {
		tmp := filepath.Join(root, "memory-bank/details/.patterns.md.tmp4711")
		if err := os.WriteFile(tmp, []byte("<!-- USER_BLOCK_START -->\nunclosed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(root, "memory-bank/details/patterns.md")); err != nil {
			t.Fatal(err)
		}
		seen := drainUntil(t, "memory-bank/details/patterns.md")
		for _, s := range seen {
			if strings.Contains(s.rel, ".tmp") {
				t.Fatalf("the temp file was scanned: %v", seen)
			}
		}
		if got := seen[len(seen)-1].rules; !slices.Equal(got, []string{"marker-unclosed"}) {
			t.Fatalf("rules = %v, want marker-unclosed", got)
		}
	})

	t.Run("new directory with a file created at once", func(t *testing.T) {
		dir := filepath.Join(root, "memory-bank/details/design/sub")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "diagram.png"), []byte("png"), 0o644); err != nil {
			t.Fatal(err)
		}
		seen := drainUntil(t, "memory-bank/details/design/sub/diagram.png")
		if got := seen[len(seen)-1].rules; !slices.Equal(got, []string{"non-md"}) {
			t.Fatalf("rules = %v, want non-md", got)
		}
		// and the new directory is watched: a later file in it is seen too
		write(t, "memory-bank/details/design/sub/later.md", "<!-- MACHINE_BLOCK_END -->\n")
		seen = drainUntil(t, "memory-bank/details/design/sub/later.md")
		if got := seen[len(seen)-1].rules; !slices.Equal(got, []string{"marker-unclosed"}) {
			t.Fatalf("rules = %v, want marker-unclosed", got)
		}
	})

	t.Run("user block changed and context invalidated", func(t *testing.T) {
		before := sink.invalidations()
		write(t, "memory-bank/MEMORY.md", strings.Replace(goodMemory, "mine", "changed by someone", 1))
		seen := drainUntil(t, "memory-bank/MEMORY.md")
		if got := seen[len(seen)-1].rules; !slices.Equal(got, []string{"user-block-changed"}) {
			t.Fatalf("rules = %v, want user-block-changed", got)
		}
		if sink.invalidations() <= before {
			t.Fatal("a change to MEMORY.md did not invalidate the context")
		}
	})

	t.Run("bank removed and restored", func(t *testing.T) {
		if err := os.RemoveAll(r.BankDir()); err != nil {
			t.Fatal(err)
		}
		// wait until the removal is noticed (otherwise the bank is simply replaced)
		for deadline := time.Now().Add(20 * time.Second); !slices.Contains(sink.rules(), "memory-bank bank-removed"); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("removal not reported: %v", sink.rules())
			}
		}
		write(t, "memory-bank/MEMORY.md", goodMemory)
		write(t, "memory-bank/stray.yaml", "a: 1")
		seen := drainUntil(t, "memory-bank/stray.yaml")
		if got := seen[len(seen)-1].rules; !slices.Equal(got, []string{"non-md"}) {
			t.Fatalf("rules = %v, want non-md", got)
		}
	})
}
