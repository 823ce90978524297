package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/watcher"
)

// Payloads as droid exec 0.225.2 sent them headless (docs/hosts/droid.md): Claude Code's
// fields, Droid's tool names, absolute paths, no tool_use_id.
func TestDroidGates(t *testing.T) {
	root := bankRepo(t)
	h := newHostRun(t, "droid", root, map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	abs := func(rel string) string { return filepath.Join(root, rel) }
	cases := []struct {
		name  string
		tool  string
		input map[string]any
		want  string // in the refusal; "" = allowed
	}{
		{"Create of a non-md bank file", "Create", map[string]any{"file_path": abs("memory-bank/x.json"), "content": "{}"}, "[mbguard bank]"},
		{"Execute redirect into the bank", "Execute", map[string]any{"command": "echo hi > memory-bank/notes.json", "summary": "x", "riskLevel": "low", "riskLevelReason": "x"}, "[mbguard bank]"},
		{"Edit removing a block marker", "Edit", map[string]any{"file_path": abs("memory-bank/MEMORY.md"), "old_str": "<!-- USER_BLOCK_START -->", "new_str": ""}, "[mbguard bank]"},
		{"Execute writing the hook settings", "Execute", map[string]any{"command": "echo '{}' > .factory/settings.json", "summary": "x"}, "[mbguard config]"},
		{"high-risk Create before reading", "Create", map[string]any{"file_path": abs("go.mod"), "content": "module x\n"}, "memory-bank/details/patterns.md"},
		{"Read of patterns.md", "Read", map[string]any{"file_path": abs("memory-bank/details/patterns.md")}, ""},
	}
	for _, tc := range cases {
		r := h.call("PreToolUse", map[string]any{"tool_name": tc.tool, "tool_input": tc.input, "permission_mode": "auto-high"})
		got := denied(t, "droid", r)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Fatalf("%s: refusal %q, want %q", tc.name, got, tc.want)
		}
	}
	// the Read counts at its PostToolUse, whose tool_response is the file's text
	h.call("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": abs("memory-bank/details/patterns.md")},
		"tool_response": "# Patterns\nuse the queue\n"})
	if got := denied(t, "droid", h.write("go.mod", "module x\n")); got != "" {
		t.Fatalf("Create after reading refused: %s", got)
	}
	if _, err := os.Stat(abs("memory-bank/x.json")); err == nil {
		t.Fatal("the hook wrote the file itself")
	}
}

// Droid's edit arguments become the engine's: an allowed Edit of a bank .md stays allowed.
func TestDroidEditArguments(t *testing.T) {
	tool, args := droidTool("Edit", map[string]any{"file_path": "/r/a.md", "old_str": "a", "new_str": "b", "change_all": true})
	if tool != "Edit" || args["old_string"] != "a" || args["new_string"] != "b" || args["replace_all"] != true {
		t.Fatalf("Edit mapped to %s %v", tool, args)
	}
	for in, want := range map[string]string{"Create": "Write", "Execute": "Bash", "Read": "Read", "LS": "LS", "ApplyPatch": "apply_patch"} {
		if got, _ := droidTool(in, nil); got != want {
			t.Errorf("%s mapped to %s, want %s", in, got, want)
		}
	}
}

// PostToolUse's decision/reason never reached Droid's model; additionalContext did: an undo is
// told there. A refusal is exit 2, its stderr given to the model as "Error: <reason>".
func TestDroidUndoToldInAdditionalContext(t *testing.T) {
	const msg = "[mbguard outcome] undone: memory-bank/x.json was written by a shell command"
	root := bankRepo(t)
	hk := &Hook{Host: "droid", Dir: root, Connect: func(repo.Repo, *config.Config) (Doer, func(), error) {
		return func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
			return watcher.Response{Decision: &gating.Decision{Verdict: gating.Block, Gate: gating.GateOutcome, Message: msg}}, nil
		}, func() {}, nil
	}}
	p, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": "s", "cwd": root, "permission_mode": "auto-high",
		"tool_name": "Execute", "tool_input": map[string]any{"command": "sh x.sh"}, "tool_response": "ok\n\n\n[Process exited with code 0]"})
	r := hk.Handle(context.Background(), p)
	if r.Exit != 0 || !strings.HasPrefix(contextOf(t, "droid", r), msg) || strings.Contains(string(r.Stdout), `"decision"`) {
		t.Fatalf("exit %d, stdout %s: want the undo in additionalContext only", r.Exit, r.Stdout)
	}
}

func TestDroidSessionStartContext(t *testing.T) {
	h := newHostRun(t, "droid", bankRepo(t), nil)
	ctx := contextOf(t, "droid", h.call("SessionStart", map[string]any{"source": "startup", "permission_mode": "off"}))
	if !strings.HasPrefix(ctx, gating.ContextSentinel) || !strings.Contains(ctx, "ship the payment retry queue") {
		t.Fatalf("context %q: want the memory-bank block with MEMORY.md", ctx)
	}
}

func TestInstallDroid(t *testing.T) {
	o := InstallOptions{Root: t.TempDir(), Binary: "/opt/bin/mbguard"}
	p := filepath.Join(o.Root, ".factory", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	user := `{"customModels":[{"model":"fake","baseUrl":"http://127.0.0.1:1/v1","apiKey":"sk-x","provider":"generic-chat-completion-api"}],` +
		`"hooks":{"PreToolUse":[{"matcher":"Execute","hooks":[{"type":"command","command":"./audit.sh"}]}]}}`
	os.WriteFile(p, []byte(user), 0o644)
	if _, err := InstallDroid(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	for _, w := range []string{`"customModels"`, `"./audit.sh"`, `"command": "/opt/bin/mbguard hook droid"`, `"matcher": "*"`, `"SessionStart"`, `"Stop"`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("missing %s in\n%s", w, b)
		}
	}
	o.Uninstall = true
	if _, err := InstallDroid(o); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(p)
	if strings.Contains(string(b), "hook droid") || !strings.Contains(string(b), "./audit.sh") || !strings.Contains(string(b), "customModels") {
		t.Fatalf("uninstall left\n%s", b)
	}
	if _, err := InstallDroid(InstallOptions{Global: true}); err == nil {
		t.Fatal("--global without HOME: want an error")
	}
}
