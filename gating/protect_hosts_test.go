package gating

import (
	"strings"
	"testing"
)

// TestConfigGuardNewHosts: the hook files of Qwen Code, Crush and Cursor (project and user
// level) are refused to a write tool and to a shell command, spelled every way a write reaches
// them; a read stays allowed.
func TestConfigGuardNewHosts(t *testing.T) {
	files := []string{".qwen/settings.json", "crush.json", ".crush.json", ".cursor/hooks.json"}
	user := []string{"~/.qwen/settings.json", "~/.cursor/hooks.json", "~/.config/crush/crush.json", "~/.local/share/crush/crush.json",
		"~/.copilot/hooks/mbguard.json"}
	var cases []struct {
		name string
		c    call
		want Verdict
	}
	add := func(name string, c call, want Verdict) {
		cases = append(cases, struct {
			name string
			c    call
			want Verdict
		}{name, c, want})
	}
	for _, f := range append(files, user...) {
		add("Write "+f, ocWrite(f, "{}"), Block)
		add("sh redirect "+f, ccBash("echo '{}' > "+f), Block)
		add("sh sed -i "+f, ocBash("sed -i s/mbguard/true/ "+f), Block)
		add("sh rm "+f, ocBash("rm -f "+f), Block)
		add("ok cat "+f, ccBash("cat "+f), Allow)
	}
	for _, f := range files {
		add("sh python "+f, ocBash(`python3 -c "open('`+f+`','w').write('{}')"`), Block)
		add("abs Write "+f, cc("write_file", map[string]any{"file_path": abs(f), "content": "{}"}), Block)
	}
	add("sh rm -rf the crush config folder", ocBash("rm -rf ~/.config/crush"), Block)
	add("ok other file in ~/.config", ccWrite("~/.config/other/x.json", "{}"), Allow)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), tc.c.host)
			d := s.before(tc.c.tool, tc.c.args)
			if d.Verdict != tc.want || tc.want == Block && d.Gate != GateConfig {
				t.Fatalf("decision = %s/%s (%q), want %s", d.Verdict, d.Gate, d.Message, tc.want)
			}
			if tc.want == Block {
				wantMsg(t, d, "[mbguard config] blocked", "ask the user")
			}
		})
	}
}

// Every user-level file is below home, and UserOnlyPaths adds only what ProtectedPaths does not
// already name below home.
func TestUserProtectedFiles(t *testing.T) {
	got := UserProtectedFiles("/home/u/", ProtectedPaths)
	seen := map[string]bool{}
	for _, p := range got {
		if !strings.HasPrefix(p, "/home/u/.") || seen[p] {
			t.Errorf("%s: want one path below home", p)
		}
		seen[p] = true
	}
	for _, want := range []string{"/home/u/.config/crush/crush.json", "/home/u/.cursor/hooks.json", "/home/u/.qwen/settings.json", "/home/u/.copilot/hooks/mbguard.json"} {
		if !seen[want] {
			t.Errorf("%s missing from %v", want, got)
		}
	}
	if UserProtectedFiles("", ProtectedPaths) != nil {
		t.Error("no home: want no user-level files")
	}
}
