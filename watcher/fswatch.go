package watcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/scanner"
)

// DefaultDebounce is how long a path must stay quiet before the watcher scans it: editors
// save in bursts (truncate, write, chmod, rename) and one scan per save is enough.
const DefaultDebounce = 150 * time.Millisecond

// ownWriteTTL is how long IgnoreNext shields a path: long enough for the events of one atomic
// write to arrive and be debounced, short enough that a later user edit is still seen.
const ownWriteTTL = 2 * time.Second

// SecretIdle is how long the gitleaks detector is kept after its last use. It weighs ~20 MB,
// and a watcher spends nearly all its life idle, so it is rebuilt on demand (tens of ms)
// rather than held for the life of an agent session.
const SecretIdle = 10 * time.Second

// Clock is the watcher's view of time, so tests drive the debounce without sleeping.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Sink receives what the watcher notices. *Service is one.
type Sink interface {
	AddFinding(Finding)
	InvalidateContext()
}

// WatchOptions tunes a Watcher.
type WatchOptions struct {
	// Debounce is the per-path quiet time before a scan (DefaultDebounce when zero).
	Debounce time.Duration
	// Clock is time.Now/time.After when nil.
	Clock Clock
	// Logf receives one line per notable event (bank removed, watch errors); silent when nil.
	Logf func(format string, a ...any)
	// FindingsFile is where findings are appended for `mbguard status`
	// (FindingsPath(repo) when empty; "-" disables persistence).
	FindingsFile string
	// OnScan is called after each scan of a file with its repository-relative path and the
	// findings it produced; tests and the benchmark use it to count scans.
	OnScan func(rel string, found []Finding)
}

// Watcher watches one repository's memory-bank/ and turns out-of-band changes into findings.
// Create it with NewWatcher, run it with Run (real fsnotify) and mark mbguard's own writes
// with IgnoreNext.
type Watcher struct {
	root, bankDir string
	cfg           *config.Config
	sink          Sink
	o             WatchOptions
	clock         Clock
	secrets       *scanner.Secrets

	mu     sync.Mutex
	ignore map[string]time.Time // absolute path → until when its events are ours

	// loop state, owned by the loop goroutine
	add      func(dir string) error
	pending  map[string]time.Time // absolute path → when it may be scanned
	timer    <-chan time.Time
	timerAt  time.Time
	release  <-chan time.Time      // drops the secret detector when it fires
	files    map[string]*fileState // repository-relative path → what we know
	bankGone bool
}

type fileState struct {
	userHash uint64
	hasUser  bool
	reported map[string]Finding // findings already reported for the file's current content, by key
}

// NewWatcher makes a watcher for r's memory bank that reports to sink.
func NewWatcher(r repo.Repo, cfg *config.Config, sink Sink, o WatchOptions) *Watcher {
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	clk := o.Clock
	if clk == nil {
		clk = realClock{}
	}
	if o.FindingsFile == "" {
		o.FindingsFile = FindingsPath(r)
	}
	return &Watcher{
		root:    r.Root,
		bankDir: r.BankDir(),
		cfg:     cfg,
		sink:    sink,
		o:       o,
		clock:   clk,
		ignore:  map[string]time.Time{},
		pending: map[string]time.Time{},
		files:   map[string]*fileState{},
	}
}

// IgnoreNext marks path (absolute, or relative to the repository root) as being written by
// mbguard itself: its events in the next couple of seconds raise no findings. The watcher still
// re-reads the file so that its remembered USER_BLOCK stays current, and a write to MEMORY.md
// still invalidates the cached context. Safe for concurrent use.
func (w *Watcher) IgnoreNext(path string) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.root, path)
	}
	w.mu.Lock()
	w.ignore[filepath.Clean(path)] = w.clock.Now().Add(ownWriteTTL)
	w.mu.Unlock()
}

func (w *Watcher) ours(abs string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	until, ok := w.ignore[abs]
	if !ok {
		return false
	}
	if w.clock.Now().After(until) {
		delete(w.ignore, abs)
		return false
	}
	return true
}

// Run watches with fsnotify until ctx ends. It returns an error only when watching cannot
// start: a missing memory-bank/ is waited for, not an error.
func (w *Watcher) Run(ctx context.Context) error {
	fw, err := w.Start()
	if err != nil {
		return err
	}
	return w.Loop(ctx, fw)
}

// Start creates the fsnotify watcher and watches the root and the bank; the caller runs
// loop on its channels. Split from Run so WatchBank can report a start error synchronously.
func (w *Watcher) Start() (*fsnotify.Watcher, error) {
	fw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, limitError("starting the file watcher", err)
	}
	if err := w.start(fw.Add); err != nil {
		fw.Close()
		return nil, err
	}
	return fw, nil
}

// Loop runs the event loop on fw (from Start) until ctx ends, then closes fw.
func (w *Watcher) Loop(ctx context.Context, fw *fsnotify.Watcher) error {
	defer fw.Close()
	return w.loop(ctx, fw.Events, fw.Errors)
}

// start watches the root (not recursively, so that memory-bank/ appearing or coming back is
// seen) and every directory of the bank, and remembers each file's USER_BLOCK.
func (w *Watcher) start(add func(string) error) error {
	w.add = add
	if err := add(w.root); err != nil {
		return limitError("watching "+w.root, err)
	}
	w.remember()
	return w.addTree(w.bankDir, false)
}

// remember loads the findings an earlier watcher logged and nothing resolved yet, so that a
// fix made now resolves them too (status would list them forever otherwise).
func (w *Watcher) remember() {
	if w.o.FindingsFile == "-" {
		return
	}
	fs, _, err := ReadFindings(w.o.FindingsFile, 0)
	if err != nil {
		return
	}
	for _, f := range fs {
		st := w.files[f.Path]
		if st == nil {
			st = &fileState{}
			w.files[f.Path] = st
		}
		if st.reported == nil {
			st.reported = map[string]Finding{}
		}
		st.reported[f.Rule+"\x00"+f.Message] = f
	}
}

// loop is the event loop: events and errors come from fsnotify (or a test). It owns all loop
// state, so it needs no locks beyond IgnoreNext's.
func (w *Watcher) loop(ctx context.Context, events <-chan fsnotify.Event, errs <-chan error) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-w.timer:
			w.flush()
		case <-w.release:
			w.release = nil
			w.secrets = nil
			debug.FreeOSMemory()
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			if n, ok := w.sink.(bankNoticer); ok && (filepath.Clean(ev.Name) == w.bankDir || strings.HasPrefix(ev.Name, w.bankDir+string(filepath.Separator))) {
				n.bankChanged()
			}
			// A timer that fired before this event was sent is served first, so a test that
			// advances its clock and then sends an event sees the scan happen in that order.
			select {
			case <-w.timer:
				w.flush()
			default:
			}
			if err := w.handle(ev); err != nil {
				return err
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if n, ok := w.sink.(bankNoticer); ok {
				n.bankChanged() // events may be lost: the next outcome check must walk
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: rescan everything rather than miss a change.
				w.logf("file watcher queue overflowed; rescanning memory-bank/")
				w.queueTree(w.bankDir)
				continue
			}
			w.logf("file watcher: %v", err)
		}
	}
}

// handle files one fsnotify event. The zero Event is a no-op (tests use it as a barrier).
func (w *Watcher) handle(ev fsnotify.Event) error {
	if ev.Name == "" {
		return nil
	}
	abs := filepath.Clean(ev.Name)
	if abs == w.root {
		return nil
	}
	if filepath.Dir(abs) == w.root {
		if filepath.Base(abs) != bank.Dir {
			return nil // the rest of the root is not ours to watch
		}
		return w.bankEvent(ev)
	}
	if !strings.HasPrefix(abs, w.bankDir+string(filepath.Separator)) || ignoredName(filepath.Base(abs)) {
		return nil
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
			// A new directory: watch it and scan what is already inside (files created
			// before the watch was added raise no events of their own).
			return w.addTree(abs, true)
		}
	}
	if ev.Op == fsnotify.Chmod {
		return nil // metadata only: the content did not change
	}
	w.queue(abs)
	return nil
}

// bankEvent handles memory-bank/ itself appearing, disappearing or being replaced.
func (w *Watcher) bankEvent(ev fsnotify.Event) error {
	fi, err := os.Lstat(w.bankDir)
	if err != nil || !fi.IsDir() {
		if !w.bankGone {
			w.bankGone = true
			clear(w.pending)
			w.timer = nil
			w.sink.InvalidateContext()
			w.report(bank.Dir, []Finding{{Path: bank.Dir, Rule: "bank-removed", Message: "memory-bank/ was removed while watched; restore it (git checkout -- memory-bank) and the watcher picks it up again"}}, false)
			w.logf("memory-bank/ was removed; waiting for it to come back")
		}
		return nil
	}
	if !w.bankGone && !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
		return nil // a write or chmod of the directory entry itself
	}
	if w.bankGone {
		w.logf("memory-bank/ is back; watching it again")
	}
	w.bankGone = false
	w.report(bank.Dir, nil, false)
	w.sink.InvalidateContext()
	return w.addTree(w.bankDir, true)
}

// addTree watches dir and every directory below it. With scan, every file found is queued
// (the bank or the directory is new); without, files only set the baseline silently.
func (w *Watcher) addTree(dir string, scan bool) error {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		if dir == w.bankDir {
			w.bankGone = true
		}
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // vanished while walking: its own events tell the rest
		}
		if d.IsDir() {
			if err := w.add(p); err != nil {
				if errors.Is(err, syscall.ENOENT) {
					return filepath.SkipDir
				}
				return limitError("watching "+p, err)
			}
			return nil
		}
		if ignoredName(d.Name()) {
			return nil
		}
		if scan {
			w.queue(p)
		} else {
			w.baseline(p)
		}
		return nil
	})
}

// queueTree queues every file under dir for a scan.
func (w *Watcher) queueTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !ignoredName(d.Name()) {
			w.queue(p)
		}
		return nil
	})
}

// queue (re)starts abs's debounce. Deadlines only grow, so one timer for the earliest is enough.
func (w *Watcher) queue(abs string) {
	w.pending[abs] = w.clock.Now().Add(w.o.Debounce)
	w.arm()
}

// arm makes sure a timer runs for the earliest pending deadline.
func (w *Watcher) arm() {
	if w.timer != nil || len(w.pending) == 0 {
		return
	}
	var first time.Time
	for _, at := range w.pending {
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	w.timerAt = first
	w.timer = w.clock.After(first.Sub(w.clock.Now()))
}

// flush scans every path whose debounce has run out and re-arms for the rest.
func (w *Watcher) flush() {
	w.timer = nil
	now := w.clock.Now()
	var due []string
	for p, at := range w.pending {
		if !at.After(now) {
			due = append(due, p)
		}
	}
	// oldest first, so scans follow the order the changes settled in
	sort.Slice(due, func(i, j int) bool {
		a, b := w.pending[due[i]], w.pending[due[j]]
		return a.Before(b) || a.Equal(b) && due[i] < due[j]
	})
	for _, p := range due {
		delete(w.pending, p)
		w.scan(p)
	}
	w.arm()
}

// baseline remembers a file's USER_BLOCK without reporting anything.
func (w *Watcher) baseline(abs string) {
	rel := w.rel(abs)
	if !strings.HasSuffix(rel, ".md") {
		return
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return
	}
	if h, ok := userHash(b); ok {
		w.files[rel] = &fileState{userHash: h, hasUser: true}
	}
}

// scan reads one changed path and reports what is wrong with it.
func (w *Watcher) scan(abs string) {
	rel := w.rel(abs)
	own := w.ours(abs)
	if rel == bank.Entry {
		w.sink.InvalidateContext()
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		// Gone (renamed away or deleted): forget what it had raised, keep its USER_BLOCK
		// baseline so a file that comes back with a different one is still noticed.
		var found []Finding
		if rel == bank.Entry && !own {
			found = []Finding{{Path: rel, Rule: "entry-missing", Message: "memory-bank/MEMORY.md was deleted outside the agent hooks; restore it with git checkout -- memory-bank/MEMORY.md"}}
		}
		w.report(rel, found, true)
		return
	}
	if fi.IsDir() {
		return
	}
	var found []Finding
	if fi.Mode()&fs.ModeSymlink != 0 {
		found = append(found, Finding{Path: rel, Rule: "symlink", Message: rel + " is a symlink; memory-bank/ holds only regular .md files (replace it with the file's content)"})
	} else if !strings.HasSuffix(rel, ".md") {
		if !w.allowed(filepath.Base(rel)) {
			found = append(found, Finding{Path: rel, Rule: "non-md", Message: rel + " is not a .md file; move it out of memory-bank/ (or allow it with check.allowed_files)"})
		}
	} else {
		b, err := os.ReadFile(abs)
		if err != nil {
			w.logf("reading %s: %v", rel, err)
			return
		}
		found = append(found, markerFindings(rel, b)...)
		st := w.files[rel]
		if h, ok := userHash(b); ok {
			if st == nil {
				st = &fileState{}
				w.files[rel] = st
			}
			if st.hasUser && st.userHash != h && !own {
				found = append(found, Finding{Path: rel, Rule: "user-block-changed", Message: "the USER_BLOCK of " + rel + " changed outside the agent hooks; if an agent did this, restore it with git checkout -p -- " + rel})
			}
			st.userHash, st.hasUser = h, true
		}
		found = append(found, w.secretFindings(rel, b)...)
	}
	if own {
		found = nil
	}
	for i := range found {
		found[i].Time = w.clock.Now().UnixMilli()
	}
	w.report(rel, found, false)
	if w.o.OnScan != nil {
		w.o.OnScan(rel, found)
	}
}

// report sends the findings of rel not already reported for it. Findings that went away (the
// file was fixed, or is gone) are resolved: a resolution record goes to the sink and the log,
// so status stops listing them, and the same problem coming back is reported again. A
// changed USER_BLOCK is an event, not a condition: it is resolved only when the file is gone.
func (w *Watcher) report(rel string, found []Finding, gone bool) {
	st := w.files[rel]
	if st == nil {
		if len(found) == 0 {
			return
		}
		st = &fileState{}
		w.files[rel] = st
	}
	next := map[string]Finding{}
	for _, f := range found {
		key := f.Rule + "\x00" + f.Message
		next[key] = f
		if _, ok := st.reported[key]; ok && f.Rule != "user-block-changed" {
			continue
		}
		w.send(f)
	}
	for key, f := range st.reported {
		if _, ok := next[key]; ok {
			continue
		}
		if f.Rule == "user-block-changed" && !gone {
			continue
		}
		f.Resolved, f.Time = true, w.clock.Now().UnixMilli()
		w.send(f)
	}
	st.reported = next
}

func (w *Watcher) send(f Finding) {
	if f.Time == 0 {
		f.Time = w.clock.Now().UnixMilli()
	}
	w.sink.AddFinding(f)
	if err := AppendFinding(w.o.FindingsFile, f); err != nil {
		w.logf("%v", err)
	}
}

func (w *Watcher) secretFindings(rel string, b []byte) []Finding {
	if w.secrets == nil {
		w.secrets = scanner.NewSecrets(w.root) // built on first use: gitleaks costs tens of ms
	}
	w.release = w.clock.After(SecretIdle)
	ss, err := w.secrets.Scan(rel, b)
	if err != nil {
		w.logf("scanning %s for secrets: %v", rel, err)
		return nil
	}
	var out []Finding
	for _, s := range ss {
		out = append(out, Finding{Path: rel, Line: s.Line, Rule: "secret:" + s.Rule, Message: fmt.Sprintf("%s:%d holds a secret (%s); remove it and rotate the credential (a false positive: add %s:%s:%d to .gitleaksignore)", rel, s.Line, s.Rule, rel, s.Rule, s.Line)})
	}
	return out
}

func (w *Watcher) allowed(name string) bool {
	var list []string
	if w.cfg != nil {
		list = w.cfg.Check.AllowedFiles
	}
	return scanner.Allowed(name, list)
}

func (w *Watcher) rel(abs string) string {
	r, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

func (w *Watcher) logf(format string, a ...any) {
	if w.o.Logf != nil {
		w.o.Logf(format, a...)
	}
}

// markerFindings reports broken block markers with `mbguard check`'s own rules (one parser,
// one rule set). The template minimum is left out: an old template is not an out-of-band
// change, and `mbguard doctor` reports it.
func markerFindings(rel string, b []byte) []Finding {
	var out []Finding
	for _, f := range scanner.CheckMarkdown(rel, b, rel == bank.Entry, bank.Version{}) {
		msg := f.Message
		if f.Line > 0 {
			msg = fmt.Sprintf("%s:%d: %s", rel, f.Line, msg)
		}
		if f.Fix != "" {
			msg += "; " + f.Fix
		}
		out = append(out, Finding{Path: rel, Line: f.Line, Rule: f.Rule, Message: msg})
	}
	return out
}

// userHash hashes the USER_BLOCK of b, when b has a well-formed one.
func userHash(b []byte) (uint64, bool) {
	u, ok := bank.UserBlock(b)
	if !ok {
		return 0, false
	}
	h := fnv.New64a()
	h.Write(u)
	return h.Sum64(), true
}

// ignoredName reports editor and tool temp files: vim swap and backup files and its 4913
// write test, emacs lock and autosave files, our own atomic-write temps (".name.tmp123"),
// and desktop litter.
func ignoredName(name string) bool {
	switch {
	case name == "4913", name == ".DS_Store", name == "Thumbs.db":
		return true
	case strings.HasSuffix(name, "~"), strings.HasSuffix(name, ".swp"), strings.HasSuffix(name, ".swx"),
		strings.HasSuffix(name, ".swo"), strings.HasSuffix(name, ".tmp"):
		return true
	case strings.HasPrefix(name, ".#"), strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"):
		return true
	case strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp"):
		return true
	}
	return false
}

// limitError turns inotify's resource errors into a message naming the sysctl to raise.
func limitError(what string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("%s: the inotify watch limit is reached; raise it with sudo sysctl fs.inotify.max_user_watches=524288", what)
	case errors.Is(err, syscall.EMFILE):
		return fmt.Errorf("%s: too many inotify instances; raise them with sudo sysctl fs.inotify.max_user_instances=1024", what)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// WatchBank starts the file watcher for s's repository in the background, reporting to s,
// until ctx ends or stop is called. `mbguard serve --stdio` and `mbguard watch` call it once
// after NewService. The error is a start failure (such as the inotify watch limit); stop waits
// for the loop to end. The Watcher's IgnoreNext marks mbguard's own writes.
func (s *Service) WatchBank(ctx context.Context, o WatchOptions) (w *Watcher, stop func(), err error) {
	w = NewWatcher(s.Repo, s.Cfg, s, o)
	fw, err := w.Start()
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	if !s.opts.NoOutcome {
		// the outcome check's own inotify tracker: its checks lstat only what changed
		// (without it, e.g. at the inotify watch limit, every check walks the bank)
		if err := s.guard().Track(); err != nil {
			w.logf("outcome check: tracking memory-bank/ changes: %v; every check walks the bank", err)
		}
	}
	s.watching.Store(true)
	go func() {
		defer close(done)
		defer s.watching.Store(false)
		defer s.bankChanged()
		if err := w.Loop(ctx, fw); err != nil {
			w.logf("file watcher stopped: %v", err)
		}
	}()
	var once sync.Once
	return w, func() {
		once.Do(func() {
			cancel()
			<-done
			if !s.opts.NoOutcome {
				s.guard().Close()
			}
		})
	}, nil
}

// FindingsFile is the name of the findings log inside the state directory.
const FindingsFile = "findings.jsonl"

// maxFindingsLog bounds the findings log: past it, the oldest half is dropped.
const maxFindingsLog = 1000

// FindingsPath is the findings log of r: one JSON line per finding, so `mbguard status`
// lists them without a running watcher.
func FindingsPath(r repo.Repo) string { return filepath.Join(r.StateDir(), FindingsFile) }

// AppendFinding appends f to the log at path ("-" does nothing). One write call on an
// O_APPEND file, so concurrent writers do not interleave.
func AppendFinding(path string, f Finding) error {
	if path == "-" {
		return nil
	}
	line, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("recording finding: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("recording finding: %w", err)
	}
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("recording finding: %w", err)
	}
	_, err = fh.Write(append(line, '\n'))
	fi, serr := fh.Stat()
	fh.Close()
	if err != nil {
		return fmt.Errorf("recording finding in %s: %w", path, err)
	}
	if serr == nil && fi.Size() > maxFindingsLog*256 {
		if all, _, err := ReadFindings(path, maxFindingsLog/2); err == nil {
			var b []byte
			for _, f := range all {
				l, _ := json.Marshal(f)
				b = append(append(b, l...), '\n')
			}
			return fsutil.WriteFileAtomic(path, b, 0o644)
		}
	}
	return nil
}

// ReadFindings returns the last limit findings of the log at path (all when limit <= 0),
// oldest first, without those a later record resolved, and how many lines could not be
// decoded. A missing log is empty.
func ReadFindings(path string, limit int) ([]Finding, int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("reading findings: %w", err)
	}
	var out []Finding
	bad := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var f Finding
		if json.Unmarshal([]byte(l), &f) != nil {
			bad++
			continue
		}
		if f.Resolved {
			out = slices.DeleteFunc(out, f.same)
			continue
		}
		out = append(out, f)
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, bad, nil
}

// CurrentFindings is ReadFindings of r's log (the last limit) without the findings whose path
// tells they are gone, for when no watcher saw the change: the file of a finding was deleted,
// or the MEMORY.md or memory-bank/ reported missing is back.
func CurrentFindings(r repo.Repo, limit int) ([]Finding, int, error) {
	all, bad, err := ReadFindings(FindingsPath(r), 0)
	if err != nil {
		return nil, bad, err
	}
	out := all[:0]
	for _, f := range all {
		_, serr := os.Lstat(filepath.Join(r.Root, filepath.FromSlash(f.Path)))
		exists := serr == nil
		if f.Rule == "entry-missing" || f.Rule == "bank-removed" {
			exists = !exists // the finding is the path's absence
		}
		if exists {
			out = append(out, f)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, bad, nil
}
