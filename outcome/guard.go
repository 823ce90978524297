package outcome

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/state"
)

// StaleAfter is how long a call may stay between its pre and post check before it counts as
// lost (the host crashed or never sent the post): its changes are then judged by the next check.
const StaleAfter = 10 * time.Minute

// maxHashed bounds the files read to compare bytes; a larger changed file is judged by its
// stat alone (and fails the size rule anyway).
const maxHashed = 16 << 20

// Options tune a Guard.
type Options struct {
	Rules Rules
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// StaleAfter overrides StaleAfter (tests).
	StaleAfter time.Duration
	// Quiet, when set, returns a counter of file-system events under memory-bank/ and whether
	// it can be trusted (a running watcher). A pre check whose counter has not moved since the
	// last walk skips its own walk; the post check always walks.
	Quiet func() (uint64, bool)
	// Serial reports whether a host runs one tool call at a time: its next pre event of the
	// same session then closes the window of a call whose post never came.
	Serial func(host string) bool
	// Protected are the repository-relative paths of mbguard's configuration and installed
	// hooks (gating.ProtectedPaths; a trailing slash names a folder): a change to them after
	// a call is undone like a bank write (see protected.go).
	Protected []string
	// UserProtected are absolute paths of user-level hook files: a change during a call is
	// reported, not undone.
	UserProtected []string
	// Deadline bounds how long one check settles changes (PostDeadline, or DeadlineEnv, when
	// 0). What is left then is finished in the background (Background, else Finisher) while
	// the call's record stays open; the next check waits for it (as long again at most) and
	// refuses its call with a BusyError if it is not done.
	Deadline time.Duration
	// Background, when set, replaces Finisher: it must make Finish run soon (tests).
	Background func()
	// Fold, when set, reports whether the bank's file system folds case (Windows, a Mac's
	// default disks): a call's allowed paths, canonical and so in lower case there, then name
	// the listing's files whatever their case (MEMORY.md is memory-bank/memory.md).
	Fold func() bool
}

// Guard keeps one repository's memory bank at its known-good state. Its methods are safe for
// concurrent use, also across processes: every check holds a file lock in the git directory.
type Guard struct {
	r   repo.Repo
	o   Options
	obj *objects
	mu  sync.Mutex
	// resident cache of the manifest, valid while the file's stat is unchanged
	cache     *manifest
	cacheStat Entry
	// quiet is the Quiet counter read before the last walk that left the manifest equal to the
	// disk; quietOK says it is valid.
	quiet   uint64
	quietOK bool
	// tracking (Track): the inotify tracker, the manifest its view is relative to, the paths
	// and trees to look at in the next check, and the paths the last diff found changed
	tr              *tracker
	trusted, looked *manifest
	pending, trees  map[string]bool
	changed         []string
	checks, fulls   int
	// key is the per-user MAC key; tampered the findings for the next report (integrity.go)
	key      []byte
	tampered []string
	// reopened: an undo made a folder readable again that the walk could not read
	reopened bool
	// until is the running check's deadline (zero: none); handedOn says it handed its rest
	// to the background (deadline.go)
	until    time.Time
	handedOn bool
}

// quietSince reports whether nothing under memory-bank/ changed since the last full walk.
func (g *Guard) quietSince() bool {
	if g.o.Quiet == nil || !g.quietOK {
		return false
	}
	n, ok := g.o.Quiet()
	return ok && n == g.quiet
}

// markWalk reads the Quiet counter before a walk; settled records it once the walk's result
// is the manifest.
func (g *Guard) markWalk() (uint64, bool) {
	g.quietOK = false
	if g.o.Quiet == nil {
		return 0, false
	}
	return g.o.Quiet()
}

func (g *Guard) settled(n uint64, ok bool) { g.quiet, g.quietOK = n, ok }

// New returns the Guard for repository r.
func New(r repo.Repo, o Options) *Guard {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.StaleAfter == 0 {
		o.StaleAfter = StaleAfter
	}
	if o.Deadline <= 0 {
		o.Deadline = deadlineFromEnv()
	}
	g := &Guard{r: r, o: o, obj: newObjects(r.Root, r.CommonDir)}
	g.obj.outside = g.outsideObjects()
	return g
}

// Ref is the private ref that holds the known-good blobs, so `git gc` keeps them. Linked
// worktrees share the object store and the refs, so each gets its own.
func (g *Guard) Ref() string {
	if g.r.GitDir == g.r.CommonDir || g.r.CommonDir == "" {
		return "refs/mbguard/known-good"
	}
	return "refs/mbguard/known-good-" + filepath.Base(g.r.GitDir)
}

func (g *Guard) manifestPath() string { return filepath.Join(g.r.StateDir(), "known-good.idx") }

// legacyManifestPath is the JSON manifest of mbguard versions before known-good.idx: read
// when there is no .idx yet, removed once the .idx is written.
func (g *Guard) legacyManifestPath() string { return filepath.Join(g.r.StateDir(), "known-good.json") }
func (g *Guard) inflightPath() string       { return filepath.Join(g.r.StateDir(), "inflight.log") }

// QuarantineDir is where undone bytes go.
func QuarantineDir(r repo.Repo) string { return filepath.Join(r.StateDir(), "quarantine") }

func (g *Guard) lock() (*state.Lock, error) {
	st := state.New(g.r.StateDir(), 0, nil)
	lk, err := st.Lock("outcome")
	if err == nil {
		return lk, nil
	}
	// A command can make the lock unusable (a directory in its place, the state folder
	// made unreadable) to switch the check off: repair what mbguard owns and try once more.
	dir := g.r.StateDir()
	if fi, serr := os.Lstat(dir); serr == nil && (!fi.IsDir() || fi.Mode().Perm()&0o700 != 0o700) {
		if fi.IsDir() {
			os.Chmod(dir, 0o755)
		} else {
			os.Remove(dir)
		}
	}
	for _, n := range []string{"outcome.lock", ".outcome.lock"} {
		p := filepath.Join(dir, n)
		if fi, serr := os.Lstat(p); serr == nil && !fi.Mode().IsRegular() {
			os.RemoveAll(p)
		}
	}
	lk, err = st.Lock("outcome")
	return lk, g.stateErr(err)
}

// Report says what one check did.
type Report struct {
	Call Call
	// Undone are the entries put back to their known-good state.
	Undone []Undone
	// Quarantine is the id of the quarantine entry holding the agent's bytes ("" when none).
	Quarantine string
	// Accepted are paths whose new state became known-good.
	Accepted []string
	// Noticed are rules broken by changes made between tool calls: kept, and reported.
	Noticed []Problem
	// Settled are earlier calls whose post check never came, judged by this check.
	Settled []Call
	// Unguarded are user-level hook files changed during an agent's call: mbguard does not
	// undo them, the user must look.
	Unguarded []string
	// Tampered are findings that mbguard's own state was changed by something other than
	// mbguard (a forged manifest, ref or in-flight record), and what was done about it.
	Tampered []string
	// Background says the check ran out of time: what it did not settle is being finished
	// in the background, and the next call waits for it.
	Background bool
	// Finished are the messages of checks finished in the background since this session's
	// last check (what they undid): the agent hears them now.
	Finished []string
}

// Undone is one entry put back.
type Undone struct {
	Path   string
	Change string // created, changed, deleted, mode changed, linked, replaced
	Why    []Problem
}

func (g *Guard) loadManifest() (*manifest, error) {
	p := g.manifestPath()
	fi, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		g.cache = nil
		return g.loadLegacyManifest(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	st := entryOf(fi)
	if g.cache != nil && g.cacheStat == st {
		return g.cache, nil
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil, nil
	}
	// Only an authentic manifest is used (integrity.go): a forged one is replaced by its
	// authentic copy, a forged ref is reset; with neither, the caller recovers.
	m := g.trustManifest(raw)
	if m == nil {
		return nil, nil
	}
	if fi, err := os.Stat(p); err == nil {
		st = entryOf(fi)
	}
	g.cache, g.cacheStat = m, st
	return m, nil
}

// loadLegacyManifest reads known-good.json, when an older mbguard left one.
func (g *Guard) loadLegacyManifest() *manifest {
	var m manifest
	if ok, err := readJSON(g.legacyManifestPath(), &m); !ok || err != nil {
		return nil
	}
	if m.Entries == nil {
		m.Entries = map[string]Entry{}
	}
	// converted at once, so that the next check reads the compact form
	if writeFile(g.manifestPath(), encodeManifest(&m), 0o644, true) == nil {
		g.saveMirrorRaw(encodeManifest(&m))
		os.Remove(g.legacyManifestPath())
	}
	return &m
}

func (g *Guard) saveManifest(m *manifest, blobsChanged bool) error {
	if blobsChanged {
		tree, err := g.obj.writeTree(m.Entries)
		if err != nil {
			return err
		}
		if err := g.obj.setRef(g.Ref(), tree); err != nil {
			return err
		}
		m.Tree = tree
	}
	m.Version = manifestVersion
	// Only a manifest that accepted new bytes must survive a power loss (else an accepted
	// write would look like a stray one); stat refreshes are cheap to redo.
	if err := os.MkdirAll(g.r.StateDir(), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", g.manifestPath(), err)
	}
	if err := dirWritable(g.r.StateDir()); err != nil {
		// never vouch outside for a manifest that cannot be written here: the next check
		// would take the old one for a forgery
		return g.stateErr(fmt.Errorf("writing %s: %w", g.manifestPath(), err))
	}
	raw := encodeManifest(m)
	// the outside copy and its MAC first: a crash between the writes leaves an authentic
	// copy of the newer state, never a newer manifest nothing vouches for
	g.saveMirrorRaw(raw)
	if err := writeFile(g.manifestPath(), raw, 0o644, blobsChanged); err != nil {
		return err
	}
	if fi, err := os.Stat(g.manifestPath()); err == nil {
		g.cache, g.cacheStat = m, entryOf(fi)
	}
	return nil
}

func (g *Guard) stale(c Call, now time.Time) bool {
	if time.UnixMilli(c.Start).After(now.Add(time.Minute)) {
		// a start in the future was never written by a pre check (the clock it reads is
		// now): the record is forged or the clock jumped, and it bounds nothing
		g.note("an in-flight record with a start time in the future was judged at once")
		return true
	}
	if len(c.Procs) > 0 { // what a call left running: over when they are, or after StaleAfter
		return !running(c.Procs) || now.Sub(time.UnixMilli(c.Start)) > g.o.StaleAfter
	}
	return c.Ended || now.Sub(time.UnixMilli(c.Start)) > g.o.StaleAfter
}

// superseded reports whether call c's pre event closes x's window: x is of the same session
// on a host that runs tools one at a time, so x is over. Background jobs stay tracked.
func (g *Guard) superseded(x, c Call) bool {
	return g.o.Serial != nil && x.Session == c.Session && x.Host == c.Host && len(x.Procs) == 0 && g.o.Serial(c.Host)
}

// bgSuffix marks the in-flight record of the processes a call left running.
const bgSuffix = "#left-running"

// tail returns the record of the processes call c left running, if any. A background job
// (`(sleep 1; echo x > memory-bank/a.json) &`, or one a script starts) writes after the
// post check returned; without this record the next pre check would find no call in flight
// and accept its write as a human's.
func (g *Guard) tail(c Call, now time.Time) (Call, bool) {
	if !c.Spawns || c.Ticks == 0 {
		return Call{}, false
	}
	ps := leftBehind(c.Ticks, c.LastPID, g.r.Root)
	if len(ps) == 0 {
		return Call{}, false
	}
	return Call{ID: c.ID + bgSuffix, Session: c.Session, Host: c.Host, Tool: c.Tool, Start: now.UnixMilli(), Procs: ps, Ticks: c.Ticks}, true
}

// Before runs before a tool call that may write: it brings the known-good state up to date
// with changes made since the last call (when no other call is in flight they can only be
// someone else's: they are accepted, and reported when they break a rule), settles calls
// whose post check never came, and records c as in flight.
func (g *Guard) Before(c Call) (rep Report, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	lk, err := g.lockWithin(g.lockWait())
	if err != nil {
		return Report{Call: c}, err
	}
	defer lk.Unlock()
	g.looked = nil
	g.startClock()
	rep = Report{Call: c, Finished: g.takeFinished(c.Session)}
	defer g.takeNotes(&rep) // named results: the notes reach the returned report
	now := g.o.Now()
	if c.Start == 0 {
		c.Start = now.UnixMilli()
	}
	c.Ticks, c.LastPID = uptimeTicks(), lastPID()
	c.Git = g.gitMark()
	rep.Call = c
	m, err := g.loadManifest()
	if err != nil {
		return rep, err
	}
	prev := g.loadInflight()
	l := g.sortCalls(slices.Clone(prev.Calls), query{self: c.ID, hasSelf: true, now: now, next: &c})
	g.protectBefore(len(l.live) == 0 && len(l.settle) == 0, len(l.settle) > 0, &rep)
	if m == nil {
		// the manifest is gone or unreadable: its copy outside the repository, or the tree
		// under the ref, still names the bytes
		if m, err = g.recoverManifest(); errors.Is(err, ErrStoreLost) {
			return rep, err // never take the disk as known-good on the word of nothing
		}
	}
	if m, err = g.catchUp(m, l, prev, now, &rep); m == nil || err != nil {
		return rep, err
	}
	// commits made since the last check are the agent's while one of its calls or jobs was
	// in flight, else the person's (provenance.go)
	g.noteCommits(len(l.live) > 0 || len(l.jobs) > 0)
	g.keepPending(m)
	return rep, g.saveInflight(prev, inflight{Calls: append(l.live, c)})
}

// catchUp is the work of a pre check before it records its call: a bank never seen is taken
// as it is, lost calls are settled, what jobs left running wrote is judged, and with nothing
// in flight the changes since the last check are accepted. A nil manifest (and no error)
// says there is nothing to guard yet.
func (g *Guard) catchUp(m *manifest, l ledger, prev inflight, now time.Time, rep *Report) (*manifest, error) {
	switch {
	case m == nil:
		return g.firstManifest(rep)
	case len(l.settle) > 0:
		return m, g.settleLost(m, l, prev, now, rep)
	case l.windows == 0 && len(l.jobs) > 0:
		return m, g.judgeJobs(m, l.jobs, rep)
	case len(l.live) == 0 && (g.tr != nil || !g.quietSince()):
		n, ok := g.markWalk()
		disk, cands, err := g.look(m)
		if err != nil {
			return m, err
		}
		if err := g.absorb(m, disk, cands, rep); err != nil {
			return m, err
		}
		g.settled(n, ok)
	}
	return m, nil
}

// firstManifest takes the bank as known-good when no manifest was ever written.
func (g *Guard) firstManifest(rep *Report) (*manifest, error) {
	disk, err := walk(g.r.Root, bank.Dir)
	if err != nil || len(disk) == 0 {
		return nil, err // no memory-bank/, nothing to guard
	}
	if len(disk) > bigBank { // never primed: built over several checks (prime.go)
		// nil until the store is complete: the call is not recorded, and checked then
		m, err := g.build(disk, hookBudget)
		if m == nil {
			return nil, err
		}
		return m, nil // a manifest not saved is built again by the next check
	}
	m := &manifest{Entries: map[string]Entry{}}
	if err := g.absorb(m, disk, nil, rep); err != nil {
		return m, err
	}
	return m, nil
}

// settleLost settles, in a pre check, the calls whose post check never came.
func (g *Guard) settleLost(m *manifest, l ledger, prev inflight, now time.Time, rep *Report) error {
	markPost(l.settle, now)
	if err := g.settle(m, l.settle, l.live, rep); errors.Is(err, errDeadline) {
		// not done in time: the stale calls stay open for the background, and this call
		// is refused rather than run on a bank that is still being put back
		if err := g.handOnCalls(prev, append(l.live, l.settle...), rep); err != nil {
			return err
		}
		return &BusyError{Call: l.settle[0].ID}
	} else if err != nil {
		return err
	}
	rep.Settled = l.settle
	return nil
}

// handOnCalls keeps open the calls a check ran out of time for: the rest is finished in the
// background, and the next call waits for it.
func (g *Guard) handOnCalls(prev inflight, open []Call, rep *Report) error {
	if err := g.saveInflight(prev, inflight{Calls: open}); err != nil {
		return err
	}
	g.handOn()
	rep.Background = true
	return nil
}

// After runs after the tool call c ran: whatever changed under memory-bank/ is accepted when
// it lies in c's allowed paths and passes the rules, left alone when it lies in another
// in-flight call's allowed paths, and undone otherwise. Calls whose post check never came
// are judged alike.
func (g *Guard) After(c Call) (rep Report, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	rep = Report{Call: c}
	lk, err := g.lockWithin(g.lockWait())
	if err != nil {
		if busy := (*BusyError)(nil); errors.As(err, &busy) {
			// a background check holds the lock: this call's record is stamped, so the
			// check that next gets the lock settles it as its owner
			g.stampUnlocked(c.ID)
		}
		return rep, err
	}
	defer lk.Unlock()
	defer g.takeNotes(&rep)
	rep.Finished = g.takeFinished(c.Session)
	g.looked = nil
	g.startClock()
	now := g.o.Now()
	prev := g.loadInflight()
	l := g.sortCalls(prev.Calls, query{self: c.ID, hasSelf: true, now: now})
	owners, found := append([]Call{c}, l.settle...), l.self != nil
	if found {
		owners[0] = *l.self // the pre check's record holds the allowed paths
		rep.Call = *l.self
	}
	rep.Settled = l.settle
	if !found && len(rep.Settled) == 0 && !c.Check {
		return rep, nil // a call the pre check did not record (read-only, or no bank)
	}
	g.protectAfter(&rep)
	m, err := g.loadManifest()
	if err != nil {
		return rep, err
	}
	if m == nil {
		if m, err = g.recoverManifest(); m == nil {
			return rep, err // no known-good state at all: nothing to compare with
		}
	}
	if !found && len(rep.Settled) == 0 {
		// No pre check recorded this call. When that is because mbguard cannot write its state,
		// the changes since the last check it could save may be a person's: they are reported,
		// never undone as the agent's.
		if err := g.stateWritable(); err != nil {
			return g.reportOnly(m, &rep, err)
		}
	}
	if found {
		if prev, err = g.stampPost(prev, c.ID, now, owners); err != nil {
			return rep, err
		}
	}
	return rep, g.afterSettle(m, c, owners, l.live, prev, now, &rep)
}

// stampPost stamps call id's record before the post check's work: a hook killed from then on
// leaves it open and stamped, and the next check finishes the job (deadline.go). owners[0]
// takes the stamped record; the stamped list is the new prev.
func (g *Guard) stampPost(prev inflight, id string, now time.Time, owners []Call) (inflight, error) {
	marked := inflight{Calls: slices.Clone(prev.Calls)}
	for i := range marked.Calls {
		if marked.Calls[i].ID == id {
			markPost(marked.Calls[i:i+1], now)
			owners[0] = marked.Calls[i]
		}
	}
	if err := g.saveInflight(prev, marked); err != nil {
		return prev, err
	}
	return marked, nil
}

// afterSettle is the post check's work once c's record is stamped: settle its owners, and
// keep in flight what stays (and what c left running).
func (g *Guard) afterSettle(m *manifest, c Call, owners, live []Call, prev inflight, now time.Time, rep *Report) error {
	n, ok := g.markWalk()
	g.reopened = false
	err := g.settle(m, owners, live, rep)
	if err == nil && g.reopened { // what the unreadable folder held is judged now
		g.reopened = false
		err = g.settle(m, owners, live, rep)
	}
	if errors.Is(err, errDeadline) {
		// out of time: every owner stays open and stamped
		markPost(owners, now)
		return g.handOnCalls(prev, append(live, owners...), rep)
	}
	if err != nil {
		return err
	}
	if len(live) == 0 && len(rep.Undone) == 0 && len(rep.Accepted) == 0 {
		g.settled(n, ok) // the disk is the manifest, as of the counter read before the walk
	}
	g.keepPending(m)
	if t, ok := g.tail(Call{ID: c.ID, Session: c.Session, Host: c.Host, Tool: c.Tool, Ticks: rep.Call.Ticks, LastPID: rep.Call.LastPID, Spawns: c.Spawns}, now); ok {
		live = append(live, t)
	}
	return g.saveInflight(prev, inflight{Calls: live})
}

// Forget closes the windows of session's in-flight calls (see End).
func (g *Guard) Forget(session string) error {
	_, err := g.End(session, "", true)
	return err
}

// End closes the window of an in-flight call whose post check will not come: the host said
// the session moved on (a new user message, the turn stopped, the session ended) or that the
// call was refused (PermissionDenied). id "" closes every call of session but subagent
// windows (Call.Agent), which close by their own id. Background jobs a call left running
// stay tracked.
//
// A closed window claims nothing made after it closed: a person's edit after a refused call
// is the person's. What changed while the window was open is judged now, as the call's own
// post check would have (ran), or, for a call that never ran, left for the next check, which
// accepts it as made between calls.
func (g *Guard) End(session, id string, ran bool) (Report, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, err := os.Stat(g.inflightPath()); err != nil {
		return Report{}, nil
	}
	lk, err := g.lockWithin(g.lockWait())
	if busy := (*BusyError)(nil); errors.As(err, &busy) {
		return Report{}, nil // a background check runs; the windows close with a later check
	}
	if err != nil {
		return Report{}, err
	}
	defer lk.Unlock()
	g.looked = nil
	prev := g.loadInflight()
	l := g.sortCalls(prev.Calls, query{ends: func(x Call) bool {
		return x.Session == session && (id == "" && !x.Agent || x.ID == id)
	}})
	rep := Report{Settled: l.settle}
	if len(l.settle) == 0 {
		return rep, nil
	}
	rep.Call = l.settle[0]
	g.startClock()
	if ran {
		if done, err := g.settleEnded(l, prev, &rep); done || err != nil {
			return rep, err
		}
	}
	return rep, g.saveInflight(prev, inflight{Calls: l.live})
}

// settleEnded judges what changed in the windows End closes, as their post checks would
// have; done says it ran out of time and handed the rest on.
func (g *Guard) settleEnded(l ledger, prev inflight, rep *Report) (done bool, err error) {
	m, err := g.loadManifest()
	if err != nil {
		return false, err
	}
	if m == nil {
		if m, _ = g.recoverManifest(); m == nil {
			return false, nil
		}
	}
	if err := g.settle(m, l.settle, l.live, rep); errors.Is(err, errDeadline) {
		markPost(l.settle, g.o.Now())
		return true, g.handOnCalls(prev, append(l.live, l.settle...), rep)
	} else if err != nil {
		return false, err
	}
	g.keepPending(m)
	return false, nil
}

// change is one path whose disk state differs from the known-good one.
type change struct {
	path     string
	b, d     *Entry
	old, new []byte // file bytes (symlink target) when read
	newBlob  string
	// unread: a created file whose bytes diff left for settle to read if the verdict needs
	// them (a created file outside every allowed path is undone whatever it holds)
	unread bool
}

// readNew reads a created file diff left unread.
func (g *Guard) readNew(c *change) {
	if c.unread {
		c.unread = false
		_ = g.readDisk(c)
	}
}

func (c *change) what() string {
	switch {
	case c.b == nil:
		return "created"
	case c.d == nil:
		return "deleted"
	case c.b.Kind != c.d.Kind:
		return "replaced by a " + string(c.d.Kind)
	case c.b.Blob != "" && c.b.Blob == c.newBlob && c.d.Nlink > 1:
		return "hard-linked"
	case c.b.Blob != "" && c.b.Blob == c.newBlob:
		return "mode changed"
	case c.b.Kind == KindDir:
		return "mode changed"
	}
	return "changed"
}

// diff compares the known-good entries with the disk. Files whose stat changed are read and
// hashed; one whose bytes, mode and link count are unchanged only has its stat refreshed.
// cands are the manifest paths disk covers (nil: disk is the whole bank; empty: nothing).
func (g *Guard) diff(m *manifest, disk map[string]Entry, cands []string) ([]*change, bool, error) {
	return g.diffLazy(m, disk, cands, false)
}

// diffLazy is diff; with lazy, created regular files are not read (change.unread).
func (g *Guard) diffLazy(m *manifest, disk map[string]Entry, cands []string, lazy bool) ([]*change, bool, error) {
	var out []*change
	touched := false
	// map order: the changes are sorted at the end, and sorting every path of a large bank
	// twice per check costs more than the comparison itself
	for p, d := range disk {
		c, t, err := g.diffOne(m, p, d, lazy)
		if err != nil {
			return nil, false, err
		}
		if c != nil {
			out = append(out, c)
		}
		touched = touched || t
	}
	gone := func(p string) {
		if _, ok := disk[p]; !ok {
			if b, ok := m.Entries[p]; ok {
				out = append(out, &change{path: p, b: &b})
			}
		}
	}
	if cands == nil {
		for p := range m.Entries {
			gone(p)
		}
	}
	for _, p := range cands {
		gone(p)
	}
	slices.SortFunc(out, func(a, b *change) int { return strings.Compare(a.path, b.path) })
	for _, c := range out {
		g.changed = append(g.changed, c.path)
	}
	return out, touched, nil
}

// diffOne compares path p's known-good entry with its disk entry d: nil when they hold the
// same (touched: only the stat moved, as an atomic rewrite of the same bytes does, and m took
// the new one). With lazy, a created regular file is not read (change.unread).
func (g *Guard) diffOne(m *manifest, p string, d Entry, lazy bool) (*change, bool, error) {
	b, ok := m.Entries[p]
	if ok && b.sameStat(d) {
		return nil, false, nil
	}
	c := &change{path: p, d: &d}
	if ok {
		c.b = &b
	}
	if lazy && !ok && d.Kind == KindFile {
		c.unread = true
		return c, false, nil
	}
	if err := g.readDisk(c); err != nil {
		return nil, false, err
	}
	if ok && sameContent(b, d, c.newBlob) {
		d.Blob = b.Blob
		m.Entries[p] = d
		return nil, true, nil
	}
	return c, false, nil
}

// sameContent reports whether disk entry d (whose bytes hash to newBlob) holds what the
// known-good entry b does, unlinked: only its stat moved.
func sameContent(b, d Entry, newBlob string) bool {
	return b.Kind == d.Kind && b.Mode == d.Mode && b.Nlink <= 1 && d.Nlink <= 1 && (d.Kind == KindDir || b.Blob != "" && b.Blob == newBlob)
}

func (g *Guard) readDisk(c *change) error {
	abs := filepath.Join(g.r.Root, filepath.FromSlash(c.path))
	switch c.d.Kind {
	case KindFile:
		if c.d.Size > maxHashed {
			return nil
		}
		b, err := os.ReadFile(abs)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			// unreadable (permissions, a path longer than the system takes): judged as
			// changed, never an error that lets the call through; moved away by rename
			return nil
		}
		c.new, c.newBlob = b, g.obj.id("blob", b)
	case KindSymlink:
		t, err := os.Readlink(abs)
		if err == nil {
			c.new, c.newBlob = []byte(t), g.obj.id("blob", []byte(t))
		}
	}
	return nil
}

func (g *Guard) readOld(c *change) error {
	if c.b == nil || c.b.Blob == "" || c.old != nil {
		return nil
	}
	b, err := g.obj.readBlob(c.b.Blob)
	if err != nil {
		return err
	}
	c.old = b
	return nil
}

// absorb makes the disk the known-good state: changes made between tool calls are never
// undone. Those that break a rule are reported.
func (g *Guard) absorb(m *manifest, disk map[string]Entry, cands []string, rep *Report) error {
	changes, touched, err := g.diff(m, disk, cands)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		if touched {
			return g.saveManifest(m, false)
		}
		return nil
	}
	for _, c := range changes {
		_ = g.readOld(c) // a lost blob only weakens the comparison
		probs, err := g.o.Rules.judge(c.path, c.b, c.d, c.old, c.new)
		if err != nil {
			return err
		}
		rep.Noticed = append(rep.Noticed, probs...)
		if err := g.accept(m, c); err != nil {
			return err
		}
	}
	return g.saveManifest(m, true)
}

func (g *Guard) accept(m *manifest, c *change) error {
	if c.d == nil {
		delete(m.Entries, c.path)
		return nil
	}
	e := *c.d
	if (e.Kind == KindFile || e.Kind == KindSymlink) && c.new != nil {
		id, err := g.obj.write("blob", c.new)
		if err != nil {
			return err
		}
		e.Blob = id
	}
	m.Entries[c.path] = e
	return nil
}

// changesSince walks the bank and lists what differs from m; when nothing does but a walk refreshed
// entries (a touch that changed no byte), the manifest is saved.
// touched says a walk refreshed entries without a change, for a caller that saves later.
func (g *Guard) changesSince(m *manifest) (changes []*change, touched bool, err error) {
	return g.changesSinceLazy(m, false)
}

func (g *Guard) changesSinceLazy(m *manifest, lazy bool) (changes []*change, touched bool, err error) {
	disk, cands, err := g.look(m)
	if err != nil {
		return nil, false, err
	}
	changes, touched, err = g.diffLazy(m, disk, cands, lazy)
	if err != nil {
		return nil, false, err
	}
	if len(changes) == 0 && touched {
		return nil, touched, g.saveManifest(m, false)
	}
	return changes, touched, nil
}

// toolMode reports whether d's permission bits could be what a write tool leaves: it never
// makes a file executable (a tool that rewrites in place keeps the mode; one that writes a new
// file and renames it takes the umask's, so other bits may change). A shell that chmods or
// renames an executable file onto the path the Write is about to write is caught.
func toolMode(b, d *Entry) bool {
	var was os.FileMode
	if b != nil && b.Kind == KindFile {
		was = b.Mode & 0o111
	}
	return d.Mode&0o111&^was == 0
}

// wholeTreeAbove is the number of undone paths above which new folders move whole.
const wholeTreeAbove = 1000

// parentOf is the slash path's parent ("" at the top).
func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return ""
}

// writeExact writes a fresh file (a new inode: any hard link is broken) with exactly mode.
// Restores come by the hundred and are checked against the manifest afterwards: no fsync.
func writeExact(p string, b []byte, mode os.FileMode) error {
	return fsutil.WriteFile(p, b, mode, fsutil.Options{NoSync: true})
}

var _ = bytes.Equal
