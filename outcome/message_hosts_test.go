package outcome

import (
	"strings"
	"testing"
)

// The undo text names the host's own tools: the shell call that did it (Droid's Execute, not
// the engine's Bash) and the write and edit tools to use instead.
func TestUndoNamesTheHostsTools(t *testing.T) {
	rep := Report{Call: Call{ID: "c1", Host: "droid", Tool: "Bash", Start: 1}, Undone: []Undone{{Path: "memory-bank/x.bin", Change: "created"}}}
	for host, want := range map[string][]string{
		"droid":    {"the last Execute call", "Execute call c1", "use the Create or Edit tool"},
		"qwen":     {"the last run_shell_command call", "use the write_file or edit tool"},
		"gemini":   {"the last run_shell_command call", "use the write_file or replace tool"},
		"copilot":  {"the last bash call", "use the create or edit tool"},
		"claude":   {"the last Bash call", "use the Write or Edit tool"},
		"codex":    {"the last exec_command call", "use the apply_patch tool on"},
		"opencode": {"the last Bash call", "use the write or edit tool"},
	} {
		msg := rep.Message(host)
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message lacks %q:\n%s", host, w, msg)
			}
		}
	}
	if msg := rep.Message("droid"); strings.Contains(msg, "Bash") {
		t.Errorf("droid: message names Bash, a tool Droid does not have:\n%s", msg)
	}
}
