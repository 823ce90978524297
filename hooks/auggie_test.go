package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallAuggie: the hooks take Auggie's units and matcher (milliseconds; a regular
// expression), the rule file is always applied and tells the agent to read MEMORY.md, a second
// run changes nothing, --uninstall removes both and leaves the user's settings, and a rule file
// mbguard did not write is never touched.
func TestInstallAuggie(t *testing.T) {
	root := t.TempDir()
	o := InstallOptions{Root: root, Home: t.TempDir(), Binary: "/opt/mbguard"}
	settings := filepath.Join(root, ".augment", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"model": "mine"}`), 0o644)
	if _, err := InstallAuggie(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(settings)
	for _, want := range []string{`"timeout": 30000`, `"matcher": ".*"`, "/opt/mbguard hook auggie", `"PromptSubmit"`, `"model": "mine"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings.json lacks %s:\n%s", want, b)
		}
	}
	rule, err := os.ReadFile(AuggieRulePath(o))
	if err != nil || !strings.HasPrefix(string(rule), "---\ntype: always_apply\n") || !strings.Contains(string(rule), "read memory-bank/MEMORY.md") {
		t.Fatalf("rule file (%v):\n%s", err, rule)
	}
	changes, err := InstallAuggie(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Action != "unchanged" {
			t.Errorf("second run: %s %s", c.Path, c.Action)
		}
	}
	o.Uninstall = true
	if _, err := InstallAuggie(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(settings); strings.Contains(string(b), "hook auggie") || !strings.Contains(string(b), "mine") {
		t.Errorf("after --uninstall:\n%s", b)
	}
	if _, err := os.Stat(AuggieRulePath(o)); err == nil {
		t.Errorf("--uninstall left the rule file")
	}
	os.WriteFile(AuggieRulePath(o), []byte("# my own rule\n"), 0o644)
	o.Uninstall = false
	changes, _ = InstallAuggie(o)
	if b, _ := os.ReadFile(AuggieRulePath(o)); string(b) != "# my own rule\n" || changes[len(changes)-1].Action != "skipped" {
		t.Errorf("a rule file of the user's was touched: %q %+v", b, changes)
	}
}

// TestAuggieToolsMapOntoTheEngine: each of Auggie's tools, with its own arguments (paths
// relative to the workspace), is the call the engine judges.
func TestAuggieToolsMapOntoTheEngine(t *testing.T) {
	cases := []struct {
		tool     string
		args     map[string]any
		want     string
		key, val string
	}{
		{"save-file", map[string]any{"path": "memory-bank/x.json", "file_content": "{}"}, "Write", "file_path", "memory-bank/x.json"},
		{"view", map[string]any{"path": "memory-bank/MEMORY.md", "type": "file"}, "Read", "file_path", "memory-bank/MEMORY.md"},
		{"launch-process", map[string]any{"command": "ls", "cwd": "src"}, "Bash", "workdir", "src"},
		{"remove-files", map[string]any{"file_paths": []any{"memory-bank/a.md", "it's.md"}}, "Bash", "command", `rm -f -- 'memory-bank/a.md' 'it'\''s.md'`},
		{"str-replace-editor", map[string]any{"command": "str_replace", "path": "memory-bank/MEMORY.md", "old_str_1": "a", "new_str_1": "b"}, "MultiEdit", "file_path", "memory-bank/MEMORY.md"},
	}
	for _, tc := range cases {
		tool, args := auggieTool(tc.tool, tc.args)
		if tool != tc.want || args[tc.key] != tc.val {
			t.Errorf("%s: %s %v, want %s with %s=%q", tc.tool, tool, args, tc.want, tc.key, tc.val)
		}
	}
	_, args := auggieTool("str-replace-editor", map[string]any{"path": "p.md", "old_str_1": "a", "new_str_1": "b", "old_str_2": "c", "new_str_2": "d",
		"insert_line_entries": []any{map[string]any{"insert_line": 1.0, "new_str": "e"}}})
	if edits, _ := args["edits"].([]any); len(edits) != 3 {
		t.Errorf("edits %v, want both replacements and the insertion", args["edits"])
	}
}
