package outcome

import "time"

// The ledger sorts the in-flight records one check finds: Before, After and End each read
// the same list and ask the same question of every record (is it this check's own call, a
// window the check settles, one that stays open, or what a call left running?). classify is
// the one answer; each check only decides what to do with the piles.

// slot is where classify puts one in-flight record.
type slot int

const (
	slotLive       slot = iota // an open window: its own post check (or a later check) judges it
	slotSelf                   // the record of the call this check is about
	slotUnfinished             // a post check began and never saved its result (killed, or handed on)
	slotStale                  // a window that is over: lost, superseded, or closed by End
	slotJobLive                // what a call left running, still running: evidence, not a window
	slotJobOver                // what a call left running, over (or past StaleAfter)
)

// query says which check classifies: its own call's id (self), the clock, the call whose pre
// event may close a serial host's window (next, Before only), and for End the windows it
// closes (ends; every other record then stays as it is).
type query struct {
	self    string
	hasSelf bool
	now     time.Time
	next    *Call
	ends    func(Call) bool
}

// classify puts one in-flight record x in its slot for check q.
func (g *Guard) classify(x Call, q query) slot {
	switch {
	case q.ends != nil:
		if len(x.Procs) == 0 && q.ends(x) {
			return slotStale
		}
		return slotLive
	case q.hasSelf && x.ID == q.self:
		return slotSelf
	case x.Post != 0 && len(x.Procs) == 0:
		return slotUnfinished
	case len(x.Procs) > 0:
		if g.stale(x, q.now) {
			return slotJobOver
		}
		return slotJobLive
	case g.stale(x, q.now), q.next != nil && g.superseded(x, *q.next):
		return slotStale
	}
	return slotLive
}

// ledger is the in-flight list sorted by classify, each pile in the list's order.
type ledger struct {
	self    *Call  // this check's own record, when the list holds it
	settle  []Call // windows this check settles (slotUnfinished, slotStale)
	live    []Call // records that stay in flight: open windows and running jobs
	jobs    []Call // every record of what a call left running, running or over
	windows int    // open windows among live
}

// sortCalls classifies every record of calls for check q.
func (g *Guard) sortCalls(calls []Call, q query) ledger {
	var l ledger
	for i, x := range calls {
		switch g.classify(x, q) {
		case slotSelf:
			l.self = &calls[i]
		case slotUnfinished, slotStale:
			l.settle = append(l.settle, x)
		case slotJobLive:
			l.jobs = append(l.jobs, x)
			l.live = append(l.live, x)
		case slotJobOver:
			l.jobs = append(l.jobs, x)
		default:
			l.live = append(l.live, x)
			l.windows++
		}
	}
	return l
}
