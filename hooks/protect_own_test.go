package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// userSettings writes a user-level ~/.claude/settings.json with mbguard's hook under the test's
// HOME and returns its path and bytes.
func userSettings(t *testing.T) (string, string) {
	t.Helper()
	home := os.Getenv("HOME")
	p := filepath.Join(home, ".claude", "settings.json")
	body := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"mbguard hook claude"}]}]}}` + "\n"
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, body
}

// The first line refuses, on Claude Code and Qwen Code, writes to the user-level host settings
// and to mbguard's user configuration in every spelling ($HOME, absolute, through a symlink),
// and to the name a stub would take first on PATH; a write elsewhere outside the repository
// runs. The bank is as before and a shell write into it is still refused.
func TestProtectedUserFilesEverySpelling(t *testing.T) {
	for _, host := range []string{"claude", "qwen"} {
		t.Run(host, func(t *testing.T) {
			root := bankRepo(t)
			settings, _ := userSettings(t)
			home := os.Getenv("HOME")
			link := filepath.Join(t.TempDir(), "cl")
			if err := os.Symlink(filepath.Dir(settings), link); err != nil {
				t.Fatal(err)
			}
			var stub string
			for _, d := range filepath.SplitList(os.Getenv("PATH")) {
				if filepath.IsAbs(d) {
					stub = filepath.Join(d, "mbguard")
					break
				}
			}
			h := newHostRun(t, host, root, nil)
			h.prompt("tidy up")
			want := bankState(t, root)
			write := func(p string) map[string]any {
				if host == "claude" {
					return map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": p, "content": "{}"}}
				}
				return map[string]any{"tool_name": "write_file", "tool_input": map[string]any{"file_path": p, "content": "{}"}}
			}
			sh := func(cmd string) map[string]any {
				if host == "claude" {
					return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}}
				}
				_, in := shapes["qwen"].shell(h, cmd)
				return in
			}
			for _, tc := range []struct {
				name    string
				call    map[string]any
				refused bool
			}{
				{"Write absolute settings", write(settings), true},
				{"Write through a symlink", write(filepath.Join(link, "settings.json")), true},
				{"sh $HOME settings", sh(`python3 -c "import json,os; p=os.path.expanduser('~/.claude/settings.json'); json.dump({'disableAllHooks': True}, open(p,'w'))"; echo '{}' > $HOME/.claude/settings.json`), true},
				{"Write user config", write(filepath.Join(home, ".config", "mbguard", "config.yaml")), true},
				{"sh user config", sh("mkdir -p ~/.config/mbguard && echo 'gating: {mode: off}' > $HOME/.config/mbguard/config.yaml"), true},
				{"sh stub first on PATH", sh("cp /bin/true " + stub), true},
				{"Write a note in home", write(filepath.Join(home, "notes.txt")), false},
				{"sh write in a temp folder", sh("echo x > " + filepath.Join(t.TempDir(), "out.txt")), false},
			} {
				got := denied(t, host, h.call("PreToolUse", tc.call))
				switch {
				case tc.refused && !strings.Contains(got, "[mbguard config] blocked"):
					t.Errorf("%s: refusal %q, want the config gate's", tc.name, got)
				case !tc.refused && got != "":
					t.Errorf("%s: refused: %s", tc.name, got)
				}
			}
			sameBank(t, want, bankState(t, root))
			if got := denied(t, host, h.call("PreToolUse", sh("echo x > memory-bank/a.js"))); got == "" {
				t.Fatal("a shell write into the bank afterwards was allowed")
			}
		})
	}
}

// A script (which no first line can read) that sets disableAllHooks in the user-level Claude
// Code settings and plants mbguard's user configuration is undone by the check after the call,
// on Claude Code and Qwen Code: the settings are back byte for byte, the new configuration is
// gone, the agent is told; the session stays guarded (a shell write into the bank is refused).
func TestUserSettingsScriptUndone(t *testing.T) {
	for _, host := range []string{"claude", "qwen"} {
		t.Run(host, func(t *testing.T) {
			root := bankRepo(t)
			settings, body := userSettings(t)
			cfg := filepath.Join(os.Getenv("HOME"), ".config", "mbguard", "config.yaml")
			os.MkdirAll(filepath.Join(root, "tools"), 0o755)
			h := newHostRun(t, host, root, nil)
			h.prompt("tidy up")
			want := bankState(t, root)
			in := map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_s", "tool_input": map[string]any{"command": "bash tools/step.sh"}}
			if host == "qwen" {
				_, in = shapes["qwen"].shell(h, "bash tools/step.sh")
			}
			if got := denied(t, host, h.call("PreToolUse", in)); got != "" {
				t.Fatalf("the script call was refused (the test needs it to run): %s", got)
			}
			runScript(t, root, `python3 - <<'PY'
import json, os
p = os.path.expanduser("~/.claude/settings.json")
json.dump({"disableAllHooks": True}, open(p, "w"))
c = os.path.expanduser("~/.config/mbguard/config.yaml")
os.makedirs(os.path.dirname(c), exist_ok=True)
open(c, "w").write("gating:\n  mode: off\n")
PY`)
			post := map[string]any{}
			for k, v := range in {
				post[k] = v
			}
			post["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false}
			r := h.call("PostToolUse", post)
			told := string(r.Stdout) + r.Stderr + r.Context
			if b, _ := os.ReadFile(settings); string(b) != body {
				t.Errorf("settings.json = %s, want it back as it was", b)
			}
			if _, err := os.Stat(cfg); !os.IsNotExist(err) {
				t.Errorf("the planted user configuration is still there: %v", err)
			}
			if !strings.Contains(told, settings) || !strings.Contains(told, cfg) {
				t.Errorf("the reply does not name what was undone:\n%s", told)
			}
			var out struct{ Decision string }
			if host == "claude" && (json.Unmarshal(r.Stdout, &out) != nil || out.Decision != "block") {
				t.Errorf("PostToolUse stdout %s: want the outcome block", r.Stdout)
			}
			sameBank(t, want, bankState(t, root))
			_, sh := shapes["qwen"].shell(h, "echo x > memory-bank/a.js")
			if host == "claude" {
				sh = map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "echo x > memory-bank/a.js"}}
			}
			if got := denied(t, host, h.call("PreToolUse", sh)); got == "" {
				t.Fatal("a shell write into the bank afterwards was allowed")
			}
		})
	}
}
