package watcher

import (
	"context"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
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
		if len(resp.Redact) != 1 || resp.Redact[0] != secret {
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
