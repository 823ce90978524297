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

// BenchmarkCanon: the path model on a POSIX root (the baseline: no Windows spelling is read
// there) against the same path on a Windows root in the spellings a Windows host sends.
func BenchmarkCanon(b *testing.B) {
	for _, c := range []struct{ name, root, raw string }{
		{"posix", "/repo", "/repo/memory-bank/details/progress.md"},
		{"windows", `C:\w\repo`, `c:\w\repo\memory-bank\details\progress.md`},
		{"windows-trailing-dot", `C:\w\repo`, `\\?\C:\w\repo\memory-bank.\details\progress.md`},
	} {
		b.Run(c.name, func(b *testing.B) {
			fx := newFacts(nil)
			fx.root = c.root
			for b.Loop() {
				Canon(c.raw, "", fx)
			}
		})
	}
}
