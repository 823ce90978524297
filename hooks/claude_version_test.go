package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClaudeOnFailureFollowsTheVersion(t *testing.T) {
	cases := map[string]bool{
		"2.1.332 (Claude Code)":     true,
		"2.1.295 (Claude Code)":     true,
		"2.1.294 (Claude Code)":     false,
		"2.0.999 (Claude Code)":     false,
		"1.9.0":                     false,
		"3.0.0 (Claude Code)":       true,
		"v2.2.0":                    true,
		"":                          true, // no claude found: a current one is assumed, doctor reads again
		"claude: command not found": true,
	}
	for out, want := range cases {
		if got := claudeTakesOnFailure(out); got != want {
			t.Errorf("%q: takes onFailure = %v, want %v", out, got, want)
		}
		if note := ClaudeOnFailureNote(out); (note == "") != want || !want && !strings.Contains(note, "predates onFailure (2.1.295)") {
			t.Errorf("%q: note %q", out, note)
		}
	}
}

// An older Claude Code gets no onFailure key at all (it may drop a settings file with a key it
// does not know); a current one gets block on the gates.
func TestInstallClaudeOnFailureByVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    bool
	}{{"2.1.290 (Claude Code)", false}, {"2.1.332 (Claude Code)", true}, {"", true}} {
		o := InstallOptions{Root: t.TempDir(), Binary: "mbguard", ClaudeVersion: tc.version}
		if _, err := InstallClaude(o); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(o.Root, ".claude", "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"onFailure": "block"`); got != tc.want {
			t.Errorf("version %q: onFailure block written = %v, want %v\n%s", tc.version, got, tc.want, b)
		}
		if !tc.want && strings.Contains(string(b), "onFailure") {
			t.Errorf("version %q: an onFailure key was written:\n%s", tc.version, b)
		}
	}
}
