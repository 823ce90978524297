package outcome

import (
	"testing"
	"time"
)

// TestClassify pins the one reading of the in-flight list that Before, After and End share.
func TestClassify(t *testing.T) {
	now := time.UnixMilli(1_000_000_000)
	g := &Guard{o: Options{StaleAfter: time.Minute, Serial: func(h string) bool { return h == "serial" }}}
	fresh, old := now.Add(-time.Second).UnixMilli(), now.Add(-time.Hour).UnixMilli()
	next := Call{ID: "c", Session: "s", Host: "serial"}
	gone := []Proc{{PID: 1 << 30, Start: 1}} // no such process
	cases := []struct {
		name string
		x    Call
		q    query
		want slot
	}{
		{"own record", Call{ID: "c", Start: fresh}, query{self: "c", hasSelf: true, now: now}, slotSelf},
		{"open window", Call{ID: "x", Start: fresh}, query{self: "c", hasSelf: true, now: now}, slotLive},
		{"lost window", Call{ID: "x", Start: old}, query{self: "c", hasSelf: true, now: now}, slotStale},
		{"ended by the host", Call{ID: "x", Start: fresh, Ended: true}, query{self: "c", hasSelf: true, now: now}, slotStale},
		{"start in the future", Call{ID: "x", Start: now.Add(time.Hour).UnixMilli()}, query{now: now}, slotStale},
		{"post check never finished", Call{ID: "x", Start: fresh, Post: fresh}, query{self: "c", hasSelf: true, now: now}, slotUnfinished},
		{"job over", Call{ID: "x" + bgSuffix, Start: fresh, Procs: gone}, query{now: now}, slotJobOver},
		{"superseded on a serial host", Call{ID: "x", Session: "s", Host: "serial", Start: fresh}, query{self: "c", hasSelf: true, now: now, next: &next}, slotStale},
		{"another session on a serial host", Call{ID: "x", Session: "t", Host: "serial", Start: fresh}, query{self: "c", hasSelf: true, now: now, next: &next}, slotLive},
		{"not superseded after the call", Call{ID: "x", Session: "s", Host: "serial", Start: fresh}, query{self: "c", hasSelf: true, now: now}, slotLive},
		{"End closes it", Call{ID: "x", Session: "s", Start: old}, query{ends: func(x Call) bool { return x.Session == "s" }}, slotStale},
		{"End keeps another", Call{ID: "x", Session: "t", Start: old}, query{ends: func(x Call) bool { return x.Session == "s" }}, slotLive},
		{"End keeps a job", Call{ID: "x", Session: "s", Procs: gone}, query{ends: func(x Call) bool { return true }}, slotLive},
	}
	for _, c := range cases {
		if got := g.classify(c.x, c.q); got != c.want {
			t.Errorf("%s: slot %d, want %d", c.name, got, c.want)
		}
	}
	l := g.sortCalls([]Call{
		{ID: "c", Start: fresh}, {ID: "a", Start: fresh}, {ID: "b", Start: old}, {ID: "j", Start: fresh, Procs: gone},
	}, query{self: "c", hasSelf: true, now: now})
	if l.self == nil || l.self.ID != "c" || len(l.settle) != 1 || l.settle[0].ID != "b" || len(l.live) != 1 || l.live[0].ID != "a" || len(l.jobs) != 1 || l.windows != 1 {
		t.Errorf("ledger = %+v", l)
	}
}
