package hooks

import (
	"os"
	"strings"
	"testing"
)

func TestClaudeHookProblems(t *testing.T) {
	cases := map[string]string{ // settings → first problem ("" = none)
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./a.sh","timeout":5}]}]}}`: "",
		`{"model":"x"}`: "",
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","cmd":"./a.sh"}]}]}}`:   `hooks.PreToolUse[0].hooks[0]: "command" is missing`,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"shell","command":"./a.sh"}]}]}}`: `hooks.PreToolUse[0].hooks[0]: "type" is "shell"`,
		`{"hooks":{"PreToolUse":{"matcher":"Bash"}}}`:                                                 "hooks.PreToolUse: not a list",
		`{"hooks":{"Stop":[{"hooks":"./a.sh"}]}}`:                                                     `hooks.Stop[0]: "hooks" is not a list`,
		`{"hooks":{"Stop":[{"matcher":3,"hooks":[]}]}}`:                                               `hooks.Stop[0]: "matcher" is not a string`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","timeout":"5"}]}]}}`:             `"timeout" is not a positive number`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","onFailure":"ignore"}]}]}}`:      `"onFailure" is not`,
		`{"hooks":[1]}`: `"hooks" is not an object`,
	}
	for settings, want := range cases {
		got := ClaudeHookProblems([]byte(settings))
		if want == "" && len(got) > 0 || want != "" && (len(got) == 0 || !strings.Contains(got[0], want)) {
			t.Errorf("%s: problems %q, want %q", settings, got, want)
		}
	}
}

// mbguard's own entries validate, onFailure included.
func TestClaudeInstallValidates(t *testing.T) {
	o := InstallOptions{Root: t.TempDir(), Binary: "mbguard"}
	if _, err := InstallClaude(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(HookFilePath("claude", o))
	if p := ClaudeHookProblems(b); len(p) > 0 {
		t.Fatalf("install wrote entries Claude Code would drop: %q\n%s", p, b)
	}
	for _, want := range []string{`"PreSkillShellCommand"`, `"onFailure": "block"`, `"onFailure": "continue"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings lack %s:\n%s", want, b)
		}
	}
}

// Claude Code 2.1.332's PreSkillShellCommand (a shell line a skill runs while it is rendered,
// which no PreToolUse sees) is gated like Bash.
func TestClaudePreSkillShellCommand(t *testing.T) {
	h := newHookRun(t, bankRepo(t), nil)
	h.prompt("run the skill")
	line := func(cmd string) ClaudeReply {
		return h.call("PreSkillShellCommand", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"tool_use_id": "toolu_skill_1", "command_name": "release", "command_source": "projectSettings", "invoked_by": "user"})
	}
	if r := line("echo x > memory-bank/cache.json"); r.Exit != 2 || !strings.Contains(r.Stderr, "[mbguard bank]") {
		t.Fatalf("a skill's shell write into the bank: exit %d %q, want refused", r.Exit, r.Stderr)
	}
	if r := line("git log -1 --oneline"); r.Exit != 0 {
		t.Fatalf("a skill's read-only line refused: %q", r.Stderr)
	}
}
