package watcher

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// BenchmarkServeGate measures one PreToolUse-class decision through the real Service on a warm
// resident session: Handle alone, and Handle plus the JSON decode/encode serve adds.
func BenchmarkServeGate(b *testing.B) {
	dir := testgit.New(b)
	testgit.Write(b, dir, "memory-bank/MEMORY.md", "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
	testgit.Write(b, dir, "memory-bank/details/patterns.md", "# P\n")
	r, _ := repo.Find(dir)
	cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	svc := NewService(r, cfg, ServiceOptions{Resident: true})
	defer svc.Close()
	ctx := context.Background()
	dec := func(s string) Request {
		var q Request
		if err := json.Unmarshal([]byte(s), &q); err != nil {
			b.Fatal(err)
		}
		return q
	}
	svc.Handle(ctx, dec(`{"id":1,"op":"event","event":{"kind":"message","session":"s","message":"m"}}`))
	svc.Handle(ctx, dec(`{"id":2,"op":"event","event":{"kind":"tool.after","session":"s","message":"m","tool":"read","args":{"filePath":"memory-bank/details/patterns.md"}}}`))
	line := []byte(`{"id":3,"op":"event","event":{"kind":"tool.before","session":"s","message":"m","tool":"write","args":{"filePath":"src/app.ts","content":"x"}}}`)
	b.Run("handle", func(b *testing.B) {
		q := dec(string(line))
		for b.Loop() {
			svc.Handle(ctx, q)
		}
	})
	b.Run("decode+handle+encode", func(b *testing.B) {
		for b.Loop() {
			var q Request
			json.Unmarshal(line, &q)
			resp := svc.Handle(ctx, q)
			out, _ := json.Marshal(resp)
			io.Discard.Write(out)
		}
	})
}
