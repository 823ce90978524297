package gating

import (
	"strings"
	"testing"
)

// TestWholeTreeGitCommands: git commands that rewrite the whole work tree are refused,
// naming the files at risk, only while the bank holds uncommitted work; with a clean bank
// they lose nothing a commit does not hold.
func TestWholeTreeGitCommands(t *testing.T) {
	cmds := []string{"git reset --hard", "git reset --hard HEAD", "git checkout -f", "git checkout .", "git stash",
		"git stash -u", "git clean -fd", "git clean -fdx", "git restore ."}
	for _, cmd := range cmds {
		for _, mode := range []Mode{ModeOff, ModeWarn} {
			clean := newFacts(bankFiles())
			clean.changes = &[]string{}
			s := newSession(t, policyWith(mode, ModeOff, ModeOff), clean, "claude")
			if d := s.before("Bash", map[string]any{"command": cmd}); d.Verdict == Block {
				t.Errorf("%s mode, clean bank: %q refused: %s", mode, cmd, d.Message)
			}

			dirty := newFacts(bankFiles())
			dirty.changes = &[]string{"memory-bank/details/progress.md"}
			s = newSession(t, policyWith(mode, ModeOff, ModeOff), dirty, "claude")
			d := s.before("Bash", map[string]any{"command": cmd})
			if d.Verdict != Block || d.Gate != GateBank || !strings.Contains(d.Message, "memory-bank/details/progress.md") || !strings.Contains(d.Message, "Next:") {
				t.Errorf("%s mode, uncommitted bank work: %q: %s/%s (%q), want a bank block naming the file", mode, cmd, d.Verdict, d.Gate, d.Message)
			}

			unknown := newFacts(bankFiles())
			s = newSession(t, policyWith(mode, ModeOff, ModeOff), unknown, "claude")
			if d := s.before("Bash", map[string]any{"command": cmd}); d.Verdict != Block {
				t.Errorf("%s mode, bank state unknown: %q allowed, want refused", mode, cmd)
			}
		}
	}
	// a command aimed at the bank itself, or one that moves the tree to another commit's
	// content, stays refused, clean or not
	clean := newFacts(bankFiles())
	clean.changes = &[]string{}
	for _, cmd := range []string{"git reset --hard HEAD~1", "git reset --hard origin/main", "git checkout -f main",
		"git switch --discard-changes main", "git checkout -- memory-bank", "git clean -fd memory-bank", "git restore memory-bank/MEMORY.md"} {
		s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), clean, "claude")
		d := s.before("Bash", map[string]any{"command": cmd})
		if d.Verdict != Block {
			t.Errorf("%q allowed, want the bank guard", cmd)
		}
		if strings.Contains(d.Message, "()") {
			t.Errorf("%q: %q lists no files at risk: say what is at risk instead", cmd, d.Message)
		}
	}
}
