package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallHosts(t *testing.T) {
	type installer func(InstallOptions) ([]Change, error)
	hosts := []struct {
		name    string
		install installer
		path    string // relative to the project
		user    string // a file with the user's own settings and hooks
		keep    []string
		ours    []string // in a fresh install
		events  []string
	}{
		{"codex", InstallCodex, ".codex/hooks.json",
			`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./audit.sh","timeout":5}]}]},"note":"mine"}`,
			[]string{`"./audit.sh"`, `"note": "mine"`},
			[]string{`"/opt/bin/mbguard hook codex"`, `"matcher": "*"`, `"timeout": 3`}, CodexEvents},
		{"gemini", InstallGemini, ".gemini/settings.json",
			`{"model":{"name":"gemini-2.5-pro"},"hooks":{"BeforeTool":[{"matcher":"write_file","hooks":[{"name":"lint","type":"command","command":"./lint.sh","timeout":5000}]}]}}`,
			[]string{`"./lint.sh"`, `"gemini-2.5-pro"`},
			[]string{`"/opt/bin/mbguard hook gemini"`, `"timeout": 30000`, `"name": "mbguard"`}, GeminiEvents},
		{"copilot", InstallCopilot, ".github/hooks/mbguard.json",
			`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./policy.sh","timeoutSec":10}]}}`,
			[]string{`"./policy.sh"`},
			[]string{`"/opt/bin/mbguard hook copilot preToolUse"`, `"/opt/bin/mbguard hook copilot preCompact"`, `"version": 1`, `"timeoutSec": 30`}, CopilotEvents},
		{"qwen", InstallQwen, ".qwen/settings.json",
			`{"security":{"auth":{"selectedType":"openai"}},"hooks":{"PreToolUse":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"./audit.sh","timeout":5000}]}]}}`,
			[]string{`"./audit.sh"`, `"selectedType": "openai"`},
			[]string{`"/opt/bin/mbguard hook qwen"`, `"matcher": "*"`, `"timeout": 30000`}, QwenEvents},
	}
	for _, hc := range hosts {
		t.Run(hc.name, func(t *testing.T) {
			o := InstallOptions{Binary: "/opt/bin/mbguard"}
			t.Run("creates", func(t *testing.T) {
				o.Root = t.TempDir()
				ch, err := hc.install(o)
				if err != nil || len(ch) != 1 || ch[0].Action != "created" || ch[0].Path != hc.path {
					t.Fatalf("changes %+v err %v", ch, err)
				}
				b, _ := os.ReadFile(filepath.Join(o.Root, hc.path))
				for _, w := range hc.ours {
					if !strings.Contains(string(b), w) {
						t.Errorf("missing %s in\n%s", w, b)
					}
				}
				var v struct {
					Hooks map[string][]json.RawMessage `json:"hooks"`
				}
				if err := json.Unmarshal(b, &v); err != nil || len(v.Hooks) != len(hc.events) {
					t.Fatalf("hooks for %d events (%v), want %d", len(v.Hooks), err, len(hc.events))
				}
			})
			t.Run("merges, idempotent, uninstall keeps the user's", func(t *testing.T) {
				o.Root = t.TempDir()
				p := filepath.Join(o.Root, hc.path)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(hc.user), 0o600)
				hc.install(o)
				first, _ := os.ReadFile(p)
				ch, err := hc.install(o)
				second, _ := os.ReadFile(p)
				if err != nil || ch[0].Action != "unchanged" || string(first) != string(second) {
					t.Fatalf("second run: %+v %v\n%s\n%s", ch, err, first, second)
				}
				for _, w := range append(hc.keep, hc.ours[0]) {
					if !strings.Contains(string(second), w) {
						t.Errorf("missing %s after install:\n%s", w, second)
					}
				}
				if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want the user's 0600 kept", fi.Mode().Perm())
				}
				// another binary path is still mbguard's entry
				if _, err := hc.install(InstallOptions{Root: o.Root, Binary: "mbguard", Uninstall: true}); err != nil {
					t.Fatal(err)
				}
				after, _ := os.ReadFile(p)
				if strings.Contains(string(after), "hook "+hc.name) {
					t.Fatalf("uninstall left mbguard's hooks:\n%s", after)
				}
				for _, w := range hc.keep {
					if !strings.Contains(string(after), w) {
						t.Errorf("uninstall dropped the user's %s:\n%s", w, after)
					}
				}
			})
			t.Run("uninstall of our own file removes it", func(t *testing.T) {
				o.Root = t.TempDir()
				hc.install(o)
				ch, err := hc.install(InstallOptions{Root: o.Root, Uninstall: true})
				if err != nil || ch[0].Action != "removed" {
					t.Fatalf("%+v %v", ch, err)
				}
				if _, err := os.Stat(filepath.Join(o.Root, hc.path)); !os.IsNotExist(err) {
					t.Fatal("file still there")
				}
			})
			t.Run("invalid JSON is refused untouched", func(t *testing.T) {
				o.Root = t.TempDir()
				p := filepath.Join(o.Root, hc.path)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(`{"hooks": [`), 0o644)
				if _, err := hc.install(o); err == nil || !strings.Contains(err.Error(), "not a valid JSON object") {
					t.Fatalf("err %v", err)
				}
				if b, _ := os.ReadFile(p); string(b) != `{"hooks": [` {
					t.Fatalf("file changed: %s", b)
				}
			})
		})
	}
}

func TestInstallHostsGlobal(t *testing.T) {
	home := t.TempDir()
	if _, err := InstallGemini(InstallOptions{Home: home, Global: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini/settings.json")); err != nil {
		t.Fatalf("gemini --global: %v", err)
	}
	codexHome := t.TempDir()
	if _, err := InstallCodex(InstallOptions{Home: home, CodexHome: codexHome, Global: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(codexHome, "hooks.json")); err != nil {
		t.Fatalf("codex --global with CODEX_HOME: %v", err)
	}
	if _, err := InstallCodex(InstallOptions{Home: home, Global: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex/hooks.json")); err != nil {
		t.Fatalf("codex --global without CODEX_HOME: %v", err)
	}
	copilotHome := t.TempDir()
	if _, err := InstallCopilot(InstallOptions{Home: home, CopilotHome: copilotHome, Global: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(copilotHome, "hooks/mbguard.json")); err != nil {
		t.Fatalf("copilot --global with COPILOT_HOME: %v", err)
	}
	if _, err := InstallCopilot(InstallOptions{Home: home, Global: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".copilot/hooks/mbguard.json")); err != nil {
		t.Fatalf("copilot --global without COPILOT_HOME: %v", err)
	}
	if _, err := InstallCodex(InstallOptions{Global: true}); err == nil {
		t.Fatal("codex --global without any home: want an error")
	}
}

func TestTrustStepNamesEachHost(t *testing.T) {
	for _, host := range newHosts {
		s := TrustStep(host, false)
		if !strings.Contains(s, "`"+host+"`") || !strings.Contains(s, "trust") {
			t.Errorf("%s: trust step %q does not name how to trust it", host, s)
		}
	}
}
