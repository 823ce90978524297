package gating

import (
	"strings"
	"testing"
)

// winDecide runs one pre-tool event of a Claude Code session on Windows: the repository is
// at C:\w\34\repo on a folding disk, the session's folder spelt cwd.
func winDecide(t *testing.T, tool, cwd string, args map[string]any) Decision {
	t.Helper()
	fx := newFacts(bankFiles())
	fx.root, fx.ci = `C:\w\34\repo`, true
	e, st := New(DefaultPolicy()), &State{}
	e.Handle(st, Event{Kind: EvMessage, Host: "claude", Session: "s1", Message: "m1", Cwd: cwd, Now: 1}, fx)
	return e.Handle(st, Event{Kind: EvToolBefore, Host: "claude", Session: "s1", Message: "m1", Tool: tool, Args: args, Cwd: cwd, Now: 2}, fx)
}

// TestGitBashWindowsWritesRefused (issue 31, point 3): a Git Bash write into the bank spelt
// with a drive, MSYS's /c/, \\?\ or a trailing dot Windows drops is refused before it runs,
// as the same command with a POSIX path is on Linux.
func TestGitBashWindowsWritesRefused(t *testing.T) {
	for _, cmd := range []string{
		"echo x > C:/w/34/repo/memory-bank/a.json",
		"echo x > c:/w/34/repo/memory-bank/a.json",
		`echo x > 'C:\w\34\repo\memory-bank\a.json'`,
		"echo x > /c/w/34/repo/memory-bank/a.json",
		`echo x > '\\?\C:\w\34\repo\memory-bank\a.json'`,
		`echo x > 'memory-bank.\x.json'`,
		`rm -rf 'memory-bank. '`,
		`echo x >> 'memory-bank\MEMORY.md:hidden'`,
	} {
		for _, cwd := range []string{`C:\w\34\repo`, `c:\w\34\repo`, "/c/w/34/repo"} {
			t.Run(cmd+" in "+cwd, func(t *testing.T) {
				d := winDecide(t, "Bash", cwd, map[string]any{"command": cmd})
				if d.Verdict != Block || !strings.Contains(d.Message, "memory-bank") {
					t.Errorf("verdict %s: %s", d.Verdict, d.Message)
				}
			})
		}
	}
}

// TestWindowsWriteToolPaths (issue 31, point 2): the write tools' paths in every spelling of
// the session's folder are bank paths; a .md write stands, a .json one is refused.
func TestWindowsWriteToolPaths(t *testing.T) {
	for _, cwd := range []string{`C:\w\34\repo`, `c:\w\34\repo`} {
		for _, p := range []string{`c:\w\34\repo\memory-bank\details\ok.md`, `C:/w/34/repo/memory-bank/details/ok.md`,
			`memory-bank\details\ok.md`, `Memory-Bank\Details\OK.md`} {
			if d := winDecide(t, "Write", cwd, map[string]any{"file_path": p, "content": "# ok\n"}); d.Verdict == Block {
				t.Errorf("Write %s in %s refused: %s", p, cwd, d.Message)
			}
			bad := strings.TrimSuffix(p, ".md") + ".json"
			if d := winDecide(t, "Write", cwd, map[string]any{"file_path": bad, "content": "{}"}); d.Verdict != Block {
				t.Errorf("Write %s in %s not refused: %s %s", bad, cwd, d.Verdict, d.Message)
			}
		}
	}
}
