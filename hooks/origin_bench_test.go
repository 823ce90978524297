package hooks

import (
	"context"
	"testing"
)

// BenchmarkOriginCheck is the cost the ancestry check (outcome.FromCall) adds to a hook: one
// PreToolUse of a Read while another call is in flight (so the in-flight log is read and the
// parent chain walked), with the check ("on") and without it ("off", the baseline), in the
// same run. Compare the two ns/op.
func BenchmarkOriginCheck(b *testing.B) {
	root := bankRepo(b)
	h := &hookRun{root: root, sess: "bench-session", env: nil}
	h.t = &testing.T{}
	c := &Claude{Dir: root, Getenv: func(string) string { return "" }}
	ctx := context.Background()
	c.Handle(ctx, h.payload("UserPromptSubmit", map[string]any{"prompt": "p"}))
	// a call in flight: its record names this process's host
	if r := c.Handle(ctx, h.payload("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "sleep 1"}, "tool_use_id": "live"})); r.Exit != 0 {
		b.Fatal(r.Stderr)
	}
	p := h.payload("PreToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": root + "/src/app.go"}})
	for _, on := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "on"}[on]
		b.Run(name, func(b *testing.B) {
			checkOrigin = on
			defer func() { checkOrigin = true }()
			b.ReportAllocs()
			for b.Loop() {
				if r := c.Handle(ctx, p); r.Exit != 0 {
					b.Fatal(r.Stderr)
				}
			}
		})
	}
}
