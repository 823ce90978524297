package gating

import (
	"testing"
)

// BenchmarkHandleToolBefore measures the hot path: a warm session (context read, a bank write
// done) gating a low-risk edit outside memory-bank/.
func BenchmarkHandleToolBefore(b *testing.B) {
	e := New(DefaultPolicy())
	fx := newFacts(bankFiles())
	st := &State{}
	ev := func(kind EventKind, tool string, args map[string]any) Event {
		return Event{Kind: kind, Host: "opencode", Session: "s", Message: "m1", Tool: tool, Args: args, Cwd: testRoot, Now: 1}
	}
	e.Handle(st, ev(EvMessage, "", nil), fx)
	read := map[string]any{"filePath": "memory-bank/details/patterns.md"}
	e.Handle(st, ev(EvToolAfter, "read", read), fx)
	e.Handle(st, ev(EvToolBefore, "edit", map[string]any{"filePath": "memory-bank/details/progress.md", "oldString": "# Progress\n", "newString": "# Progress\n- x\n"}), fx)
	edit := ev(EvToolBefore, "edit", map[string]any{"filePath": "src/store/index.ts", "oldString": "redux", "newString": "zustand"})
	if d := e.Handle(st, edit, fx); d.Verdict != Allow {
		b.Fatalf("setup: %+v", d)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Handle(st, edit, fx)
	}
}
