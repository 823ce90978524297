package hooks

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/testhost"
)

// TestHookCommandWindowsPaths (issue 31, point 4): the binary's Windows path is written with
// forward slashes, quoted when it holds a space, so Git Bash — which runs Claude Code's hook
// commands on Windows — hands the hook the path as it is (it would eat the backslashes of an
// unquoted C:\…). bash itself splits each command here.
func TestHookCommandWindowsPaths(t *testing.T) {
	bash := testhost.Tool(t, "bash", "apt-get install bash")
	for bin, want := range map[string]string{
		`C:\Users\Ann\bin\mbguard.exe`:                "C:/Users/Ann/bin/mbguard.exe",
		`c:\tools\mbguard.exe`:                        "c:/tools/mbguard.exe",
		`C:\Program Files\mbguard\mbguard.exe`:        "C:/Program Files/mbguard/mbguard.exe",
		`C:\Users\Ann (Work)\AppData\npm\mbguard.cmd`: "C:/Users/Ann (Work)/AppData/npm/mbguard.cmd",
		`\\srv\tools\mbguard.exe`:                     "//srv/tools/mbguard.exe",
		"/usr/local/bin/mbguard":                      "/usr/local/bin/mbguard",
		"/home/ann/my tools/mbguard":                  "/home/ann/my tools/mbguard",
		`C:\Users\Ann\$weird\mbguard.exe`:             `C:/Users/Ann/$weird/mbguard.exe`,
	} {
		cmd := (InstallOptions{Binary: bin}).hookCommand("claude")
		if strings.Contains(cmd, `\`) && !strings.HasPrefix(bin, "/") {
			t.Errorf("%s: hook command %q keeps a backslash", bin, cmd)
		}
		out, err := exec.Command(bash, "-c", `printf '%s\n' `+cmd).Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", cmd, err)
		}
		if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); len(got) != 3 || got[0] != want || got[1] != "hook" || got[2] != "claude" {
			t.Errorf("%s: bash reads %q as %q, want [%s hook claude]", bin, cmd, got, want)
		}
		if !isOurCommand(cmd, " hook claude") {
			t.Errorf("%s: %q is not recognised as mbguard's hook", bin, cmd)
		}
	}
}

// TestClaudeToolMatcherTakesPowerShell: the tool events' matcher is "*", so Claude Code's
// PowerShell tool (Windows without Git Bash) reaches the hook as Bash does, and the engine
// reads it as a shell tool.
func TestClaudeToolMatcherTakesPowerShell(t *testing.T) {
	var g claudeGroup
	if err := json.Unmarshal(claudeEntry("mbguard hook claude", 10, true, ""), &g); err != nil {
		t.Fatal(err)
	}
	if g.Matcher == nil || *g.Matcher != "*" {
		t.Fatalf("tool-event matcher = %v, want * (every tool, PowerShell included)", g.Matcher)
	}
	if !gating.ShellTool("PowerShell") {
		t.Fatal("PowerShell is not a shell tool")
	}
}
