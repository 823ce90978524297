package claude

import (
	"os"
	"testing"
)

// TestClaudeCodeRefusedCallClaimsNothing: real Claude Code refuses a Bash call that needs
// approval (in -p mode, as a user would at the prompt) and sends no hook event for it; the
// person then edits the bank by hand while the agent finishes its turn. At Stop, mbguard reads
// the transcript, sees the refusal, and leaves the person's edit standing instead of judging
// the refused call's still-open window as the agent's write.
func TestClaudeCodeRefusedCallClaimsNothing(t *testing.T) {
	for v := range claudeVersions {
		t.Run(claudeVersions[v].version, func(t *testing.T) {
			p := newClaudeProject(t, v)
			human := "# Progress\n- queue skeleton done\n- the person's own line\n"
			p.run([]step{
				{tool: "Bash", input: map[string]any{"command": "go version", "description": "show the Go version"}},
				{text: "Done.", before: func() {
					if err := os.WriteFile(p.abs("memory-bank/details/progress.md"), []byte(human), 0o644); err != nil {
						t.Error(err)
					}
				}},
			}, "which Go do we use", nil)
			if got := p.file("memory-bank/details/progress.md"); got != human {
				t.Errorf("progress.md = %q: the person's edit after the refused call was undone", got)
			}
		})
	}
}
