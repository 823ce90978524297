package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallClaude(t *testing.T) {
	user := `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    ]
  },
  "permissions": {"allow": ["Bash(ls)"]}
}
`
	tests := []struct {
		name      string
		existing  string // "" = no file
		runs      int
		uninstall bool
		want      []string // substrings of the result
		wantNot   []string
		wantGone  bool
		wantErr   string
	}{
		{name: "creates settings", runs: 1, want: []string{`"PreToolUse"`, `"SessionEnd"`, `"/opt/bin/mbguard hook claude"`, `"matcher": "*"`}},
		{name: "keeps the user's hooks and keys, in order", existing: user, runs: 1,
			want: []string{`"./lint.sh"`, `"model": "opus"`, `"Bash(ls)"`, `"/opt/bin/mbguard hook claude"`}},
		{name: "idempotent", existing: user, runs: 3, want: []string{`"./lint.sh"`}},
		{name: "uninstall removes only ours", existing: user, runs: 1, uninstall: true,
			want: []string{`"./lint.sh"`, `"model": "opus"`}, wantNot: []string{"mbguard", "SessionEnd"}},
		{name: "uninstall of our own file removes it", runs: 1, uninstall: true, wantGone: true},
		{name: "invalid JSON is refused", existing: `{"hooks": [`, runs: 1, wantErr: "not a valid JSON object"},
		{name: "hooks not an object is refused", existing: `{"hooks": []}`, runs: 1, wantErr: `"hooks" is not a JSON object`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, ".claude", "settings.json")
			if tc.existing != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(tc.existing), 0o644)
			}
			o := InstallOptions{Root: root, Binary: "/opt/bin/mbguard"}
			var err error
			for i := 0; i < tc.runs; i++ {
				_, err = InstallClaude(o)
			}
			if tc.uninstall && err == nil {
				_, err = InstallClaude(InstallOptions{Root: root, Binary: "/other/mbguard", Uninstall: true})
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if b, _ := os.ReadFile(path); string(b) != tc.existing {
					t.Fatalf("file changed on error: %s", b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if tc.wantGone {
				if !os.IsNotExist(err) {
					t.Fatalf("settings still there: %s", b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("result is not JSON: %v\n%s", err, b)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("missing %s in\n%s", w, b)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(string(b), w) {
					t.Errorf("unexpected %s in\n%s", w, b)
				}
			}
			if n := strings.Count(string(b), "hook claude"); !tc.uninstall && n != len(ClaudeEvents) {
				t.Errorf("%d mbguard entries, want one per event (%d)\n%s", n, len(ClaudeEvents), b)
			}
			if tc.existing == user && !tc.uninstall && strings.Index(string(b), `"model"`) > strings.Index(string(b), `"permissions"`) {
				t.Errorf("key order changed:\n%s", b)
			}
		})
	}
}

func TestClaudeCommandQuotes(t *testing.T) {
	if got := (InstallOptions{Binary: "/home/a b/mbguard"}).hookCommand("claude"); got != `'/home/a b/mbguard' hook claude` {
		t.Fatalf("got %s", got)
	}
	if !isOurGroup(ourGroup((InstallOptions{Binary: "/home/a b/mbguard"}).hookCommand("claude"), 30, true), " hook claude") {
		t.Fatal("a quoted command is not recognised as ours")
	}
}
