package hooks

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// BenchmarkClaudeLargeWrite is one PreToolUse Write of a 50 MB file through the whole adapter
// (payload read, JSON decode, facts, bank checks), into the bank (refused: over the size a
// bank file may have, so never scanned) and into code. The baseline is the code write.
func BenchmarkClaudeLargeWrite(b *testing.B) {
	var body strings.Builder
	for i := 0; body.Len() < 50<<20; i++ {
		body.WriteString("- step ")
		body.WriteString(strings.Repeat("retry the payment queue with backoff; ", 2))
		body.WriteString("\n")
	}
	for _, target := range []string{"memory-bank/details/big.md", "src/big.go"} {
		b.Run(target, func(b *testing.B) {
			root := bankRepo(b)
			h := &hookRun{root: root, sess: "bench-session", t: &testing.T{}}
			c := &Claude{Dir: root, Getenv: func(string) string { return "" }}
			ctx := context.Background()
			c.Handle(ctx, h.payload("UserPromptSubmit", map[string]any{"prompt": "p"}))
			for _, a := range []string{"memory-bank/MEMORY.md", "memory-bank/details/patterns.md"} {
				c.Handle(ctx, h.payload("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": root + "/" + a},
					"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": root + "/" + a}}}))
			}
			p := h.payload("PreToolUse", map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": root + "/" + target, "content": body.String()}})
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				r := c.Run(ctx, bytes.NewReader(p))
				if want := strings.HasPrefix(target, "memory-bank/"); (r.Exit == 2) != want {
					b.Fatalf("exit %d: %s", r.Exit, r.Stderr)
				}
			}
		})
	}
}
