package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crushCall sends one Crush PreToolUse payload (HOSTS.md §7: no hook_event_name, no call id).
func crushCall(h *hostRun, tool string, input map[string]any) Reply {
	h.t.Helper()
	b, _ := json.Marshal(map[string]any{"event": "PreToolUse", "session_id": h.sess, "cwd": h.cwd, "tool_name": tool, "tool_input": input})
	return h.raw("", b)
}

func TestCrushGates(t *testing.T) {
	root := bankRepo(t)
	h := newHostRun(t, "crush", root, map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	cases := []struct {
		name  string
		tool  string
		input map[string]any
		want  string // in the refusal; "" = allowed
	}{
		{"non-md write into the bank", "write", map[string]any{"file_path": "memory-bank/x.json", "content": "{}"}, "[mbguard bank]"},
		{"shell redirect into the bank", "bash", map[string]any{"command": "echo hi > memory-bank/notes.md", "description": "x"}, "[mbguard bank]"},
		{"shell from a workdir inside the bank", "bash", map[string]any{"command": "echo hi > x.json", "working_dir": filepath.Join(root, "memory-bank")}, "[mbguard bank]"},
		{"high-risk write before reading", "write", map[string]any{"file_path": "go.mod", "content": "module x\n"}, "memory-bank/details/patterns.md"},
		{"view of patterns.md", "view", map[string]any{"file_path": "memory-bank/details/patterns.md"}, ""},
		// the view above counted as a read: there is no post event to wait for
		{"high-risk write after reading", "write", map[string]any{"file_path": "go.mod", "content": "module x\n"}, ""},
		{"md write into the bank", "edit", map[string]any{"file_path": "memory-bank/details/patterns.md", "old_string": "use the queue", "new_string": "use the retry queue"}, ""},
	}
	for _, tc := range cases {
		got := denied(t, "crush", crushCall(h, tc.tool, tc.input))
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Fatalf("%s: refusal %q, want %q", tc.name, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank/x.json")); err == nil {
		t.Fatal("the hook wrote the file itself")
	}
}

// A warning reaches Crush's model as {"context": …}, appended to the call's result.
func TestCrushWarningIsContext(t *testing.T) {
	h := newHostRun(t, "crush", bankRepo(t), nil) // warn mode
	r := crushCall(h, "write", map[string]any{"file_path": "go.mod", "content": "module x\n"})
	var out struct {
		Context  string `json:"context"`
		Decision string `json:"decision"`
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil || out.Decision != "" || !strings.Contains(out.Context, "patterns.md") {
		t.Fatalf("reply %s (%v): want a warning as context, no decision", r.Stdout, err)
	}
}

func TestInstallCrush(t *testing.T) {
	o := InstallOptions{Root: t.TempDir(), Binary: "/opt/bin/mbguard"}
	p := filepath.Join(o.Root, "crush.json")
	os.WriteFile(p, []byte(`{"options":{"debug":true},"hooks":{"PreToolUse":[{"name":"audit","matcher":"bash","command":"./audit.sh","timeout":5}]}}`), 0o644)
	if _, err := InstallCrush(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	for _, w := range []string{`"./audit.sh"`, `"debug": true`, `"command": "/opt/bin/mbguard hook crush"`, `"timeout": 30`, `"matcher": ""`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("missing %s in\n%s", w, b)
		}
	}
	o.Uninstall = true
	if _, err := InstallCrush(o); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(p)
	if strings.Contains(string(b), "hook crush") || !strings.Contains(string(b), "./audit.sh") {
		t.Fatalf("uninstall left\n%s", b)
	}
}
