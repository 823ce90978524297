package watcher

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/scanner"
)

// A tool.after asked with Redact answers with the secrets of the bank files the call named and
// a notice of where they are; without Redact (the hook adapters, which redact themselves) it
// adds nothing, so the model is not told twice.
func TestServiceRedactsBankReads(t *testing.T) {
	secret := "ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo" // split: this file holds no token
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Write(t, root, "memory-bank/details/tech.md", "# Tech\ntoken: "+secret+"\n")
	r, _ := repo.Find(root)
	cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	svc := NewService(r, cfg, ServiceOptions{})
	defer svc.Close()
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"filePath": "memory-bank/details/tech.md"}},
		{"bash", map[string]any{"command": "cat -n memory-bank/details/tech.md"}},
	} {
		ev := gating.Event{Kind: gating.EvToolAfter, Host: "opencode", Session: "s", Tool: tc.tool, Args: tc.args, Cwd: root}
		resp := svc.Handle(context.Background(), Request{Op: "event", Event: &ev, Redact: true})
		if !slices.Equal(resp.Redact, scanner.SecretForms(secret)) {
			t.Errorf("%s: redact %d secrets, want the one in tech.md", tc.tool, len(resp.Redact))
		}
		if !strings.Contains(resp.Notice, "memory-bank/details/tech.md line 2 holds a secret (gitleaks rule github-pat)") || strings.Contains(resp.Notice, secret) {
			t.Errorf("%s: notice %q: want where the secret is, never the secret", tc.tool, resp.Notice)
		}
		resp = svc.Handle(context.Background(), Request{Op: "event", Event: &ev})
		if len(resp.Redact) != 0 || strings.Contains(resp.Notice, "holds a secret") {
			t.Errorf("%s without Redact: redact %d, notice %q", tc.tool, len(resp.Redact), resp.Notice)
		}
	}
}

// A search of a directory that holds the bank or lies in it (`grep -r` at the root, OpenCode's
// grep tool with no path, any shell command: it runs in a directory) is redacted by the bank
// secrets its output shows, and only those: a secret the output does not show is neither
// replaced nor reported, and without the output nothing is known.
func TestServiceRedactsSearchesAboveTheBank(t *testing.T) {
	shown := "ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo" // split: this file holds no token
	hidden := "ghp_" + "Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXcVbNm"
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Write(t, root, "memory-bank/details/tech.md", "# Tech\ntoken: "+shown+"\n")
	testgit.Write(t, root, "memory-bank/details/ops.md", "# Ops\nother: "+hidden+"\n")
	r, _ := repo.Find(root)
	cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	svc := NewService(r, cfg, ServiceOptions{})
	defer svc.Close()
	out := "memory-bank/details/tech.md:2:token: " + shown + "\n"
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"grep -rn at the root", "bash", map[string]any{"command": "grep -rn token ."}},
		{"grep tool, no path", "grep", map[string]any{"pattern": "token"}},
		{"grep tool, the root", "grep", map[string]any{"pattern": "token", "path": root}},
		{"grep -r in the bank", "bash", map[string]any{"command": "grep -rn token memory-bank/details"}},
	} {
		ev := gating.Event{Kind: gating.EvToolAfter, Host: "opencode", Session: "s", Tool: tc.tool, Args: tc.args, Cwd: root}
		resp := svc.Handle(context.Background(), Request{Op: "event", Event: &ev, Redact: true, Output: out})
		if !slices.Equal(resp.Redact, scanner.SecretForms(shown)) {
			t.Errorf("%s: redact %d secrets, want the one the output shows", tc.name, len(resp.Redact))
		}
		if !strings.Contains(resp.Notice, "memory-bank/details/tech.md line 2") || strings.Contains(resp.Notice, "ops.md") ||
			strings.Contains(resp.Notice, shown) || strings.Contains(resp.Notice, hidden) {
			t.Errorf("%s: notice %q: want tech.md only, never a secret", tc.name, resp.Notice)
		}
		resp = svc.Handle(context.Background(), Request{Op: "event", Event: &ev, Redact: true})
		if len(resp.Redact) != 0 {
			t.Errorf("%s without the output: redact %d secrets", tc.name, len(resp.Redact))
		}
	}
	// a shell command runs in the root, which holds the bank: whatever it prints is judged
	ev := gating.Event{Kind: gating.EvToolAfter, Host: "opencode", Session: "s", Tool: "bash", Args: map[string]any{"command": "cat build.log"}, Cwd: root}
	if resp := svc.Handle(context.Background(), Request{Op: "event", Event: &ev, Redact: true, Output: "copied: " + shown}); !slices.Equal(resp.Redact, scanner.SecretForms(shown)) {
		t.Errorf("cat build.log showing a bank secret: redact %d secrets, want 1", len(resp.Redact))
	}
	if resp := svc.Handle(context.Background(), Request{Op: "event", Event: &ev, Redact: true, Output: "build ok"}); len(resp.Redact) != 0 || strings.Contains(resp.Notice, "holds a secret") {
		t.Errorf("cat build.log showing no secret: redact %d, notice %q", len(resp.Redact), resp.Notice)
	}
}
