package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type sandboxSettings struct {
	Model   string `json:"model"`
	Sandbox *struct {
		Enabled    *bool `json:"enabled"`
		Filesystem *struct {
			DenyWrite []string `json:"denyWrite"`
		} `json:"filesystem"`
	} `json:"sandbox"`
}

func TestInstallClaudeSandbox(t *testing.T) {
	const userRules = `{"model": "opus", "sandbox": {"filesystem": {"denyWrite": ["./secrets"]}}}`
	tests := []struct {
		name                   string
		project, local, user   string // settings files; "" = absent
		enable, uninstall      bool
		runs                   int
		wantEnabled            string // "true", "false" or "" (absent) in the project's settings.json
		wantDeny               []string
		wantAction, wantErr    string
		wantUnchangedFromInput bool
	}{
		{name: "sandbox off, no flag: nothing but a hint", project: `{"model": "opus"}`, runs: 1,
			wantAction: "skipped", wantUnchangedFromInput: true},
		{name: "--sandbox turns it on and adds the rule", project: userRules, enable: true, runs: 2,
			wantEnabled: "true", wantDeny: []string{"./secrets", "./memory-bank"}, wantAction: "unchanged"},
		{name: "sandbox on in local settings: rule by default", project: `{"model": "opus"}`,
			local: `{"sandbox": {"enabled": true}}`, runs: 1, wantDeny: []string{"./memory-bank"}, wantAction: "updated"},
		{name: "sandbox on in user settings: rule by default", user: `{"sandbox": {"enabled": true}}`, runs: 1,
			wantDeny: []string{"./memory-bank"}, wantAction: "updated"},
		{name: "local settings turn it off again", project: `{"sandbox": {"enabled": true}}`,
			local: `{"sandbox": {"enabled": false}}`, runs: 1, wantEnabled: "true", wantAction: "skipped", wantUnchangedFromInput: true},
		{name: "uninstall removes only the rule", project: `{"model": "opus", "sandbox": {"enabled": true, "filesystem": {"denyWrite": ["./secrets", "./memory-bank"]}}}`,
			uninstall: true, runs: 1, wantEnabled: "true", wantDeny: []string{"./secrets"}, wantAction: "updated"},
		{name: "uninstall of a file with only the rule removes it", project: `{"sandbox": {"filesystem": {"denyWrite": ["./memory-bank"]}}}`,
			uninstall: true, runs: 1, wantAction: "removed"},
		{name: "denyWrite not an array is refused", project: `{"sandbox": {"filesystem": {"denyWrite": "./x"}}}`, enable: true, runs: 1,
			wantErr: "not an array of strings", wantUnchangedFromInput: true},
		{name: "sandbox not an object is refused", project: `{"sandbox": true}`, enable: true, runs: 1,
			wantErr: `"sandbox" is not a JSON object`, wantUnchangedFromInput: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			write := func(p, s string) {
				if s == "" {
					return
				}
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(root, ".claude", "settings.json")
			write(path, tc.project)
			write(filepath.Join(root, ".claude", "settings.local.json"), tc.local)
			write(filepath.Join(home, ".claude", "settings.json"), tc.user)
			o := InstallOptions{Root: root, Home: home, Uninstall: tc.uninstall}
			var changes []Change
			var err error
			for i := 0; i < tc.runs; i++ {
				changes, err = InstallClaudeSandbox(o, tc.enable)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			got, rerr := os.ReadFile(path)
			if tc.wantUnchangedFromInput {
				if string(got) != tc.project {
					t.Errorf("settings changed: %s", got)
				}
			}
			if tc.wantAction != "" && (len(changes) != 1 || changes[0].Action != tc.wantAction) {
				t.Errorf("changes = %+v, want one %q", changes, tc.wantAction)
			}
			if tc.wantAction == "removed" {
				if rerr == nil {
					t.Errorf("settings still exist: %s", got)
				}
				return
			}
			if tc.wantErr != "" || tc.wantUnchangedFromInput {
				return
			}
			var s sandboxSettings
			if err := json.Unmarshal(got, &s); err != nil {
				t.Fatalf("settings: %v: %s", err, got)
			}
			enabled := ""
			var deny []string
			if s.Sandbox != nil {
				if s.Sandbox.Enabled != nil {
					enabled = map[bool]string{true: "true", false: "false"}[*s.Sandbox.Enabled]
				}
				if s.Sandbox.Filesystem != nil {
					deny = s.Sandbox.Filesystem.DenyWrite
				}
			}
			if enabled != tc.wantEnabled {
				t.Errorf("sandbox.enabled = %q, want %q", enabled, tc.wantEnabled)
			}
			if strings.Join(deny, ",") != strings.Join(tc.wantDeny, ",") {
				t.Errorf("denyWrite = %q, want %q", deny, tc.wantDeny)
			}
			if tc.project != "" && strings.Contains(tc.project, "opus") && s.Model != "opus" {
				t.Errorf("the user's model key was lost: %s", got)
			}
			if ClaudeSandboxDenies(o) != (len(tc.wantDeny) > 0 && tc.wantDeny[len(tc.wantDeny)-1] == ClaudeSandboxDeny) {
				t.Errorf("ClaudeSandboxDenies disagrees with %s", got)
			}
		})
	}
}

func TestInstallClaudeSandboxGlobal(t *testing.T) {
	if _, err := InstallClaudeSandbox(InstallOptions{Global: true, Home: t.TempDir()}, true); err == nil || !strings.Contains(err.Error(), "without --global") {
		t.Errorf("err = %v, want --sandbox refused with --global", err)
	}
	if c, err := InstallClaudeSandbox(InstallOptions{Global: true, Home: t.TempDir()}, false); err != nil || c != nil {
		t.Errorf("global without --sandbox = %v, %v; want nothing", c, err)
	}
}
