package hooks

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/watcher"
)

// BenchmarkAnswerHTTP is an http hook's PreToolUse Edit of code as the watcher answers it:
// its resident Service, the sender known (the work after the socket lookup).
func BenchmarkAnswerHTTP(b *testing.B) {
	root := bankRepo(b)
	h := &hookRun{root: root, sess: "bench-session", env: nil}
	h.t = &testing.T{}
	hk := httpHook(b, root)
	ctx := context.Background()
	send := func(p []byte) []byte {
		status, body := hk.AnswerHTTP(ctx, HTTPRequest{Payload: p, From: os.Getpid()})
		if status != 200 {
			b.Fatalf("%d %s", status, body)
		}
		return body
	}
	send(h.payload("UserPromptSubmit", map[string]any{"prompt": "p"}))
	send(h.payload("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": root + "/memory-bank/details/patterns.md"}}))
	p := h.payload("PreToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": root + "/src/app.go", "old_string": "a", "new_string": "b"}})
	b.ReportAllocs()
	for b.Loop() {
		send(p)
	}
}

// httpHook is the Hook the watcher's http server runs for the repository at root: its
// resident Service answers.
func httpHook(t testing.TB, root string) *Hook {
	t.Helper()
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{RepoRoot: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	svc := watcher.NewService(r, cfg, watcher.ServiceOptions{Resident: true})
	return &Hook{Host: "claude", Dir: root, Getenv: func(string) string { return "" }, Now: time.Now, Connect: ConnectOwn(svc, time.Now)}
}
