package outcome

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// replayInOrder is the in-flight log's meaning, record by record from the oldest: an add moves
// its call to the end, an end removes it, a record that does not decode is skipped.
func replayInOrder(recs [][]byte) inflight {
	var in inflight
	for _, line := range recs {
		var r inflightRecord
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		switch {
		case r.Op == "add" && r.Call != nil:
			in.Calls = slices.DeleteFunc(in.Calls, func(c Call) bool { return c.ID == r.Call.ID })
			in.Calls = append(in.Calls, *r.Call)
		case r.Op == "end":
			in.Calls = slices.DeleteFunc(in.Calls, func(c Call) bool { return c.ID == r.ID })
		}
	}
	return in
}

// replayInflight, which reads from the newest record and skims the overridden ones, leaves
// the same calls in the same order as reading every record from the oldest, on random logs
// with repeated adds, ends, torn lines and records of other shapes.
func TestReplayInflightMatchesInOrderReplay(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 29))
	for n := range 3000 {
		var recs [][]byte
		for range r.IntN(30) {
			id := fmt.Sprintf("c%d", r.IntN(5))
			var line []byte
			switch k := r.IntN(10); {
			case k < 6:
				line, _ = json.Marshal(inflightRecord{Op: "add", Call: &Call{ID: id, Session: "s", Tool: "Edit", Start: int64(r.IntN(1000)), Post: int64(r.IntN(2))}})
			case k < 8:
				line, _ = json.Marshal(inflightRecord{Op: "end", ID: id})
			case k == 8:
				full, _ := json.Marshal(inflightRecord{Op: "add", Call: &Call{ID: id, Start: 5}})
				line = full[:r.IntN(len(full))] // torn by a crash
			default:
				line = []byte([]string{`{"op":"add"}`, `{"op":"add","call":null}`, `{"op":"other","id":"` + id + `"}`, `{"op":"add","call":{"id":"` + id + `","start":"x"}}`, `[]`}[r.IntN(5)])
			}
			recs = append(recs, line)
		}
		want, got := replayInOrder(recs), replayInflight(recs)
		if len(want.Calls) == 0 && len(got.Calls) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("log %d:\n%s\nreplayInflight = %+v\nin order      = %+v", n, slices.Concat(recs...), got.Calls, want.Calls)
		}
	}
}
