package hooks

import (
	"context"
	"testing"

	"github.com/mbguard/mbguard/scanner"
)

// BenchmarkClaudePreToolUse is mbguard's own work for one PreToolUse in a per-call process:
// find the repository, load the configuration, lock/load the session, decide. Compare with
// bench/hook/run.sh, which adds process start and package init.
func BenchmarkClaudePreToolUse(b *testing.B) {
	root := bankRepo(b)
	h := &hookRun{root: root, sess: "bench-session", env: nil}
	h.t = &testing.T{}
	c := &Claude{Dir: root, Getenv: func(string) string { return "" }}
	ctx := context.Background()
	c.Handle(ctx, h.payload("UserPromptSubmit", map[string]any{"prompt": "p"}))
	c.Handle(ctx, h.payload("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": root + "/memory-bank/details/patterns.md"}}))
	p := h.payload("PreToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": root + "/src/app.go", "old_string": "a", "new_string": "b"}})
	b.ReportAllocs()
	for b.Loop() {
		if r := c.Handle(ctx, p); r.Exit != 0 {
			b.Fatal(r.Stderr)
		}
	}
}

// BenchmarkClaudeSessionStart is a session's start in a hook process's pipeline (no watcher):
// the context block from MEMORY.md, its scan cached, the session's state.
func BenchmarkClaudeSessionStart(b *testing.B) {
	defer scanner.SetBankSettle(0)() // the bank was written just now; a user's is older
	root := bankRepo(b)
	h := &hookRun{root: root, sess: "bench-session", env: nil}
	h.t = &testing.T{}
	c := &Claude{Dir: root, Getenv: func(string) string { return "" }}
	ctx := context.Background()
	p := h.payload("SessionStart", map[string]any{"source": "startup"})
	c.Handle(ctx, p)
	b.ReportAllocs()
	for b.Loop() {
		if r := c.Handle(ctx, p); r.Exit != 0 {
			b.Fatal(r.Stderr)
		}
	}
}
