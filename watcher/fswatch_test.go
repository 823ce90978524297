package watcher

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// fakeClock moves only when told to.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []fakeWaiter
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{c.now.Add(d), ch})
	return ch
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waiters = kept
}

// recSink records what the watcher reports.
type recSink struct {
	mu          sync.Mutex
	findings    []Finding
	invalidated int
}

func (s *recSink) AddFinding(f Finding) {
	s.mu.Lock()
	s.findings = append(s.findings, f)
	s.mu.Unlock()
}

func (s *recSink) InvalidateContext() {
	s.mu.Lock()
	s.invalidated++
	s.mu.Unlock()
}

func (s *recSink) rules() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, f := range s.findings {
		if !f.Resolved { // resolutions are tested in findings_resolve_test.go
			out = append(out, f.Path+" "+f.Rule)
		}
	}
	return out
}

func (s *recSink) invalidations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.invalidated
}

const goodMemory = "# Memory\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\nfocus\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\nmine\n<!-- USER_BLOCK_END -->\n"

// harness drives the event loop through a channel and a fake clock. Every send is followed
// by a zero event: the loop takes the next event only after it has finished the previous one,
// so when step returns, everything before it has been handled.
type harness struct {
	t      *testing.T
	r      repo.Repo
	w      *Watcher
	clk    *fakeClock
	sink   *recSink
	events chan fsnotify.Event
	added  []string
	scans  []string
	done   chan error
}

func newHarness(t *testing.T, files map[string]string, addErr error) *harness {
	t.Helper()
	root := testgit.New(t)
	for name, body := range files {
		testgit.Write(t, root, name, body)
	}
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{RepoRoot: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, r: r, clk: newFakeClock(), sink: &recSink{}, events: make(chan fsnotify.Event), done: make(chan error, 1)}
	h.w = NewWatcher(r, cfg, h.sink, WatchOptions{Clock: h.clk, OnScan: func(rel string, _ []Finding) { h.scans = append(h.scans, rel) }})
	add := func(dir string) error {
		if addErr != nil && dir != root {
			return addErr
		}
		h.added = append(h.added, dir)
		return nil
	}
	if err := h.w.start(add); err != nil {
		h.done <- err
		return h
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { h.done <- h.w.loop(ctx, h.events, nil) }()
	t.Cleanup(func() { cancel(); <-h.done })
	return h
}

func (h *harness) send(evs ...fsnotify.Event) {
	for _, ev := range evs {
		h.events <- ev
	}
	h.events <- fsnotify.Event{}
}

func (h *harness) advance(d time.Duration) {
	h.clk.Advance(d)
	h.events <- fsnotify.Event{}
	h.events <- fsnotify.Event{}
}

func (h *harness) path(rel string) string { return filepath.Join(h.r.Root, filepath.FromSlash(rel)) }

func (h *harness) write(rel, body string) fsnotify.Event {
	h.t.Helper()
	testgit.Write(h.t, h.r.Root, rel, body)
	return fsnotify.Event{Name: h.path(rel), Op: fsnotify.Write}
}

func TestLoopDebounce(t *testing.T) {
	h := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory, "memory-bank/details/tech.md": "# tech\n"}, nil)
	ev := h.write("memory-bank/details/tech.md", "# tech\nmore\n")
	for range 20 {
		h.send(ev)
		h.advance(10 * time.Millisecond) // each write restarts the debounce
	}
	if len(h.scans) != 0 {
		t.Fatalf("scanned during a burst: %v", h.scans)
	}
	h.advance(DefaultDebounce)
	if !slices.Equal(h.scans, []string{"memory-bank/details/tech.md"}) {
		t.Fatalf("scans = %v, want one of tech.md", h.scans)
	}
	if got := h.sink.rules(); len(got) != 0 {
		t.Fatalf("findings for a clean file: %v", got)
	}
}

func TestLoopFindings(t *testing.T) {
	tests := []struct {
		name    string
		rel     string
		body    string
		symlink bool
		want    []string
	}{
		{"non-md file", "memory-bank/notes.json", "{}", false, []string{"memory-bank/notes.json non-md"}},
		{"allowed gitkeep", "memory-bank/details/.gitkeep", "", false, nil},
		{"tool-owned gitignore", "memory-bank/.gitignore", "*.tmp\n", false, nil},
		{"unclosed marker", "memory-bank/details/patterns.md", "<!-- USER_BLOCK_START -->\nx\n", false, []string{"memory-bank/details/patterns.md marker-unclosed"}},
		{"marker order", "memory-bank/details/patterns.md", "<!-- USER_BLOCK_END -->\nx\n<!-- USER_BLOCK_START -->\n", false, []string{"memory-bank/details/patterns.md marker-order"}},
		{"malformed marker", "memory-bank/details/patterns.md", "<!--USER_BLOCK_STRAT-->\n", false, []string{"memory-bank/details/patterns.md marker-malformed"}},
		{"entry without user block", "memory-bank/MEMORY.md", "<!-- MACHINE_BLOCK_START -->\n<!-- MACHINE_BLOCK_END -->\n", false, []string{"memory-bank/MEMORY.md entry-missing-block", "memory-bank/MEMORY.md template-missing"}},
		{"user block changed", "memory-bank/MEMORY.md", strings.Replace(goodMemory, "mine", "theirs", 1), false, []string{"memory-bank/MEMORY.md user-block-changed"}},
		{"machine block changed", "memory-bank/MEMORY.md", strings.Replace(goodMemory, "focus", "new focus", 1), false, nil},
		{"markers in code are text", "memory-bank/details/design/a.md", "```\n<!-- USER_BLOCK_START -->\n```\n", false, nil},
		{"editor swap file", "memory-bank/.MEMORY.md.swp", "x", false, nil},
		{"secret", "memory-bank/details/tech.md", "token: ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo\n", false, []string{"memory-bank/details/tech.md secret:github-pat"}},
		{"symlink", "memory-bank/details/link.md", "", true, []string{"memory-bank/details/link.md symlink"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory, "memory-bank/details/patterns.md": "# p\n"}, nil)
			ev := fsnotify.Event{Name: h.path(tc.rel), Op: fsnotify.Create}
			if tc.symlink {
				if err := os.Symlink("/etc/hostname", h.path(tc.rel)); err != nil {
					t.Fatal(err)
				}
			} else {
				ev = h.write(tc.rel, tc.body)
			}
			h.send(ev)
			h.advance(DefaultDebounce)
			if got := h.sink.rules(); !slices.Equal(got, tc.want) {
				t.Fatalf("findings = %v, want %v", got, tc.want)
			}
			for _, f := range h.sink.findings {
				if strings.Contains(f.Message, "8x3KfTq2") {
					t.Fatalf("finding leaks the secret: %s", f.Message)
				}
			}
			// the same content saved again is not reported twice
			h.send(ev)
			h.advance(DefaultDebounce)
			if got := h.sink.rules(); len(got) != len(tc.want) {
				t.Fatalf("after a second save findings = %v, want %v", got, tc.want)
			}
			// and the findings were persisted for `mbguard status`
			fs, _, err := ReadFindings(FindingsPath(h.r), 0)
			if err != nil || len(fs) != len(tc.want) {
				t.Fatalf("persisted findings = %v, %v; want %d", fs, err, len(tc.want))
			}
		})
	}
}

func TestLoopMemoryInvalidatesContext(t *testing.T) {
	h := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory}, nil)
	h.send(h.write("memory-bank/MEMORY.md", goodMemory+"\n"))
	h.advance(DefaultDebounce)
	if h.sink.invalidations() != 1 {
		t.Fatalf("invalidations = %d, want 1", h.sink.invalidations())
	}
	h.send(h.write("memory-bank/details/tech.md", "# t\n"))
	h.advance(DefaultDebounce)
	if h.sink.invalidations() != 1 {
		t.Fatalf("a change to tech.md invalidated the context")
	}
}

func TestLoopIgnoreNext(t *testing.T) {
	h := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory}, nil)
	h.w.IgnoreNext("memory-bank/MEMORY.md")
	changed := strings.Replace(goodMemory, "mine", "upgraded", 1)
	h.send(h.write("memory-bank/MEMORY.md", changed))
	h.advance(DefaultDebounce)
	if got := h.sink.rules(); len(got) != 0 {
		t.Fatalf("our own write raised %v", got)
	}
	if h.sink.invalidations() != 1 {
		t.Fatalf("our own write to MEMORY.md must still invalidate the context")
	}
	// after the TTL, a user edit is seen against the new baseline
	h.advance(ownWriteTTL)
	h.send(h.write("memory-bank/MEMORY.md", strings.Replace(changed, "upgraded", "edited", 1)))
	h.advance(DefaultDebounce)
	if got := h.sink.rules(); !slices.Equal(got, []string{"memory-bank/MEMORY.md user-block-changed"}) {
		t.Fatalf("findings = %v", got)
	}
}

func TestLoopNewDirectoryScansContents(t *testing.T) {
	h := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory}, nil)
	// files created before the new directory's watch exists raise no events: the loop must
	// scan them itself
	testgit.Write(t, h.r.Root, "memory-bank/details/learnings/deep/a.txt", "x")
	testgit.Write(t, h.r.Root, "memory-bank/details/learnings/b.md", "ok\n")
	h.send(fsnotify.Event{Name: h.path("memory-bank/details/learnings"), Op: fsnotify.Create})
	if !slices.Contains(h.added, h.path("memory-bank/details/learnings/deep")) {
		t.Fatalf("nested directory not watched: %v", h.added)
	}
	h.advance(DefaultDebounce)
	if got := h.sink.rules(); !slices.Equal(got, []string{"memory-bank/details/learnings/deep/a.txt non-md"}) {
		t.Fatalf("findings = %v", got)
	}
}

func TestLoopBankRemovedAndBack(t *testing.T) {
	h := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory}, nil)
	h.send(h.write("memory-bank/details/tech.md", "# t\n"))
	if err := os.RemoveAll(h.r.BankDir()); err != nil {
		t.Fatal(err)
	}
	h.send(fsnotify.Event{Name: h.r.BankDir(), Op: fsnotify.Remove})
	h.advance(DefaultDebounce) // the pending scan of tech.md was dropped with the bank
	if got := h.sink.rules(); !slices.Equal(got, []string{"memory-bank bank-removed"}) {
		t.Fatalf("findings = %v", got)
	}
	// it comes back with a stray file and an edited USER_BLOCK
	testgit.Write(t, h.r.Root, "memory-bank/MEMORY.md", strings.Replace(goodMemory, "mine", "other", 1))
	testgit.Write(t, h.r.Root, "memory-bank/x.bin", "x")
	h.added = nil
	h.send(fsnotify.Event{Name: h.r.BankDir(), Op: fsnotify.Create})
	if !slices.Contains(h.added, h.r.BankDir()) {
		t.Fatalf("bank not watched again: %v", h.added)
	}
	h.advance(DefaultDebounce)
	want := []string{"memory-bank bank-removed", "memory-bank/MEMORY.md user-block-changed", "memory-bank/x.bin non-md"}
	if got := h.sink.rules(); !slices.Equal(got, want) {
		t.Fatalf("findings = %v, want %v", got, want)
	}
}

func TestLoopNoBankYet(t *testing.T) {
	h := newHarness(t, map[string]string{"README.md": "x"}, nil)
	h.send(fsnotify.Event{Name: h.path("README.md"), Op: fsnotify.Write})
	testgit.Write(t, h.r.Root, "memory-bank/MEMORY.md", goodMemory)
	h.send(fsnotify.Event{Name: h.r.BankDir(), Op: fsnotify.Create})
	h.advance(DefaultDebounce)
	if !slices.Equal(h.scans, []string{"memory-bank/MEMORY.md"}) || len(h.sink.rules()) != 0 {
		t.Fatalf("scans = %v findings = %v", h.scans, h.sink.rules())
	}
}

func TestStartWatchLimit(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	r, _ := repo.Find(root)
	w := NewWatcher(r, nil, &recSink{}, WatchOptions{})
	err := w.start(func(dir string) error {
		if dir == root {
			return nil
		}
		return &os.PathError{Op: "inotify_add_watch", Path: dir, Err: syscall.ENOSPC}
	})
	if err == nil || !strings.Contains(err.Error(), "fs.inotify.max_user_watches") {
		t.Fatalf("err = %v, want one naming fs.inotify.max_user_watches", err)
	}
	if !errors.Is(limitError("x", syscall.EMFILE), syscall.EMFILE) && !strings.Contains(limitError("x", syscall.EMFILE).Error(), "max_user_instances") {
		t.Fatal("EMFILE must name fs.inotify.max_user_instances")
	}
}

func TestIgnoredName(t *testing.T) {
	for name, want := range map[string]bool{
		"MEMORY.md": false, "notes.txt": false, ".MEMORY.md.swp": true, "MEMORY.md~": true, ".#MEMORY.md": true,
		"4913": true, ".MEMORY.md.tmp123456": true, "x.tmp": true, ".DS_Store": true, "#a.md#": true, ".gitkeep": false,
	} {
		t.Run(name, func(t *testing.T) {
			if got := ignoredName(name); got != want {
				t.Fatalf("ignoredName(%q) = %v, want %v", name, got, want)
			}
		})
	}
}
