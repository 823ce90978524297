package watcher

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/outcome"
)

// mbguard's own state (the MAC key, the known-good copies) is no agent's to read or write: a
// call naming it, by any spelling the classifier resolves or in a shell command's text, is
// refused before it runs; calls near it are not.
func TestCallsNamingOwnStateAreRefused(t *testing.T) {
	root := testgit.New(t) // HOME is the test's own
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Commit(t, root, "init")
	base := outcome.UserStateDir()
	if base == "" || !strings.HasSuffix(base, filepath.Join(".local", "state", "mbguard")) {
		t.Fatalf("UserStateDir = %q", base)
	}
	r, _ := repo.Find(root)
	cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	svc := NewService(r, cfg, ServiceOptions{})
	defer svc.Close()
	key := filepath.Join(base, "key")
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		refused bool
	}{
		{"Read", map[string]any{"file_path": key}, true},
		{"Bash", map[string]any{"command": "cat ~/.local/state/mbguard/key"}, true},
		{"Bash", map[string]any{"command": `cat "$HOME/.local/state/mbguard/key"`}, true},
		{"Bash", map[string]any{"command": "cd ~/.local/state/mbguard && cat key"}, true},
		{"Bash", map[string]any{"command": "python3 -c 'print(open(\"" + key + "\").read())'"}, true},
		{"Bash", map[string]any{"command": "rm -rf $XDG_STATE_HOME/mbguard/protected"}, true},
		{"Write", map[string]any{"file_path": filepath.Join(base, "protected", "x.json"), "content": "{}"}, true},
		{"Bash", map[string]any{"command": "ls ~/.local/state"}, false},
		{"Bash", map[string]any{"command": "mbguard doctor"}, false},
		{"Write", map[string]any{"file_path": filepath.Join(root, "notes.txt"), "content": "see ~/.local/state/mbguard/key"}, false},
	} {
		ev := gating.Event{Kind: gating.EvToolBefore, Host: "claude", Session: "s", Tool: tc.tool, Args: tc.args, Cwd: root}
		resp := svc.Handle(context.Background(), Request{Op: "event", Event: &ev})
		d := resp.Decision
		refused := d != nil && d.Verdict == gating.Block
		if refused != tc.refused {
			t.Errorf("%s %v: refused = %v, want %v (%+v)", tc.tool, tc.args, refused, tc.refused, d)
			continue
		}
		if refused && (d.Gate != gating.GateConfig || !strings.Contains(d.Message, "mbguard's own state") || !strings.Contains(d.Message, "Next:")) {
			t.Errorf("%s %v: refusal %+v does not say why and what next", tc.tool, tc.args, d)
		}
	}
}
