package outcome

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/flock"
)

// HookTimeout is the timeout `mbguard install` writes for every hook (Claude Code kills a
// hook that runs longer). The post check must finish, or hand its work on, well before it.
const HookTimeout = 30 * time.Second

// PostDeadline is how long one check may settle changes before it hands the rest to the
// background (Finisher) and answers: two thirds of HookTimeout, so the reply, the process
// start and a slow disk fit in what is left. MBGUARD_POST_DEADLINE (a Go duration) overrides
// it, for tests that make a big change settle in the background.
const PostDeadline = HookTimeout * 2 / 3

// DeadlineEnv names the environment variable that overrides PostDeadline.
const DeadlineEnv = "MBGUARD_POST_DEADLINE"

func deadlineFromEnv() time.Duration {
	if v := strings.TrimSpace(os.Getenv(DeadlineEnv)); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return PostDeadline
}

// errDeadline stops a settle that ran out of time at a point where what is done is
// consistent: the rest is judged again by the next check or the Finisher.
var errDeadline = errors.New("the check ran out of time")

// BusyError refuses a call while an earlier call's changes are still being undone: letting it
// run would let it build on (or be blamed for) a bank that is not yet back to its known-good
// state.
type BusyError struct{ Call string }

func (e *BusyError) Error() string {
	who := "an earlier call"
	if e.Call != "" {
		who = "call " + e.Call
	}
	return "mbguard is still undoing what " + who + " changed in memory-bank/; retry this call in a few seconds"
}

// Finisher, when set, starts a process that finishes in the background a check that ran out
// of time (Guard.Finish on root). The mbguard command sets it to SpawnSettle; a library user
// or a test leaves it nil, and the next check finishes the job.
var Finisher func(root string) error

// late reports whether the running check has passed its deadline (never when it has none).
func (g *Guard) late() bool { return !g.until.IsZero() && time.Now().After(g.until) }

// startClock gives the running check its deadline.
func (g *Guard) startClock() { g.until = time.Now().Add(g.o.Deadline) }

// handOn starts the Finisher for what a check could not settle in time.
func (g *Guard) handOn() {
	g.handedOn = true
	if g.o.Background != nil {
		g.o.Background()
		return
	}
	if Finisher != nil {
		_ = Finisher(g.r.Root) // without it, the next check finishes the job
	}
}

// lockWait is how long a check waits for another to release the lock: the deadline, but
// never so short that parallel calls' quick checks refuse each other.
func (g *Guard) lockWait() time.Duration { return max(g.o.Deadline, 2*time.Second) }

// lockWithin takes the check's lock, waiting at most d for another check (a Finisher still
// undoing a large change, say) to release it; after that the call is refused with a
// BusyError naming the call being settled.
func (g *Guard) lockWithin(d time.Duration) (unlocker, error) {
	p := filepath.Join(g.r.StateDir(), "outcome.lock")
	until := time.Now().Add(d)
	for wait := 2 * time.Millisecond; ; wait = min(wait*2, 100*time.Millisecond) {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return g.lock() // missing or damaged state folder: lock repairs it
		}
		err = flock.TryLock(f)
		if err == nil {
			return fileLock{f}, nil
		}
		f.Close()
		if !errors.Is(err, flock.ErrHeld) {
			return g.lock()
		}
		if time.Now().After(until) {
			busy := &BusyError{}
			for _, c := range g.loadInflight().Calls {
				if c.Post != 0 {
					busy.Call = c.ID
					break
				}
			}
			return nil, busy
		}
		time.Sleep(wait)
	}
}

type unlocker interface{ Unlock() }

type fileLock struct{ f *os.File }

func (l fileLock) Unlock() {
	flock.Unlock(l.f)
	l.f.Close()
}

// Finish settles the calls whose post check began but did not finish: one that ran out of
// time and handed its work on, or one whose hook was killed. It waits for the lock (it runs
// in the background) and has no deadline. The mbguard command runs it in a detached process.
func (g *Guard) Finish() (rep Report, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	lk, err := g.lock()
	if err != nil {
		return rep, err
	}
	defer lk.Unlock()
	defer g.takeNotes(&rep)
	g.looked, g.until = nil, time.Time{}
	prev := g.loadInflight()
	var owners, live []Call
	for _, x := range prev.Calls {
		if x.Post != 0 && len(x.Procs) == 0 {
			owners = append(owners, x)
		} else {
			live = append(live, x)
		}
	}
	if len(owners) == 0 {
		return rep, nil // a check took it over in the meantime
	}
	rep.Call, rep.Settled = owners[0], owners
	m, err := g.loadManifest()
	if err != nil {
		return rep, err
	}
	if m == nil {
		if m, err = g.recoverManifest(); m == nil {
			return rep, err
		}
	}
	if err := g.settle(m, owners, live, &rep); err != nil {
		return rep, fmt.Errorf("finishing the check of call %s: %w", owners[0].ID, err)
	}
	g.takeNotes(&rep)
	g.keepFinished(rep, rep.Call.Host)
	g.keepPending(m)
	return rep, g.saveInflight(prev, inflight{Calls: live})
}

// markPost stamps the calls whose post check starts now: until it saves its result, their
// records stay open, and a check that later finds a stamped record (its hook was killed, or
// it ran out of time) settles the call as its owner instead of leaving its window open.
func markPost(cs []Call, now time.Time) {
	for i := range cs {
		if cs[i].Post == 0 {
			cs[i].Post = now.UnixMilli()
		}
	}
}

// stampUnlocked stamps call id's record without the lock, when a background check holds it
// past the wait: one appended line (the log is append-only, each line with its MAC), so the
// call is settled as an owner by the next check instead of staying an open window.
func (g *Guard) stampUnlocked(id string) {
	for _, c := range g.loadInflight().Calls {
		if c.ID != id || c.Post != 0 {
			continue
		}
		c.Post = time.Now().UnixMilli()
		b, err := json.Marshal(inflightRecord{Op: "add", Call: &c})
		if err != nil {
			return
		}
		if m := g.mac(b); m != "" {
			b = append(append(b, '\t'), m...)
		}
		f, err := os.OpenFile(g.inflightPath(), os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return
		}
		f.Write(append(b, '\n'))
		f.Close()
		return
	}
}
