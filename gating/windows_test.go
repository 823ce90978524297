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

// winCall runs a call that succeeded (pre and post) and returns the bank files the session
// has read after it.
func winCall(t *testing.T, tool, cwd string, args map[string]any) (Decision, []string) {
	t.Helper()
	fx := newFacts(bankFiles())
	fx.root, fx.ci = `C:\w\34\repo`, true
	e, st := New(DefaultPolicy()), &State{}
	e.Handle(st, Event{Kind: EvMessage, Host: "claude", Session: "s1", Message: "m1", Cwd: cwd, Now: 1}, fx)
	d := e.Handle(st, Event{Kind: EvToolBefore, Host: "claude", Session: "s1", Message: "m1", Tool: tool, Args: args, Cwd: cwd, Now: 2}, fx)
	if d.Verdict != Block {
		e.Handle(st, Event{Kind: EvToolAfter, Host: "claude", Session: "s1", Message: "m1", Tool: tool, Args: args, Cwd: cwd, Now: 3}, fx)
	}
	return d, st.Reads
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

// TestPowerShellTool (issue 31, point 4): Claude Code's PowerShell tool is a shell tool whose
// commands are read as PowerShell: writes into the bank are refused before they run, reads of
// it are reads, and a command that writes elsewhere is no bank write.
func TestPowerShellTool(t *testing.T) {
	if ClassifyTool("PowerShell") != ClassShell || !ShellTool("PowerShell") {
		t.Fatalf("PowerShell is %s, not a shell tool", ClassifyTool("PowerShell"))
	}
	refused := []string{
		`Set-Content -Path memory-bank\a.json -Value x`,
		`sc C:\w\34\repo\memory-bank\MEMORY.md x`,
		`"x" | Out-File c:\w\34\repo\memory-bank\notes.txt`,
		`New-Item memory-bank\details\x.json`,
		`Remove-Item -Recurse memory-bank`,
		`Remove-Item memory-bank\MEMORY.md`,
		`Move-Item memory-bank\MEMORY.md memory-bank\old.md`,
		`Copy-Item .env memory-bank\env.md`,
		`Rename-Item memory-bank\details\patterns.md p.txt`,
		`Clear-Content memory-bank\MEMORY.md`,
		`"x" >> memory-bank\MEMORY.md`,
		`[IO.File]::WriteAllText('memory-bank\a.json', 'x')`,
		`[System.IO.File]::Delete("C:\w\34\repo\memory-bank\MEMORY.md")`,
		`Set-Content 'memory-bank.\x.json' x`,
		`(Get-Item memory-bank\MEMORY.md).Delete()`,
		`Set-Content "memory-bank\$name" x`,
		`Invoke-Expression 'rm memory-bank\MEMORY.md'`,
	}
	for _, cmd := range refused {
		t.Run(cmd, func(t *testing.T) {
			d := winDecide(t, "PowerShell", `C:\w\34\repo`, map[string]any{"command": cmd})
			if d.Verdict != Block {
				t.Errorf("not refused: %s %s", d.Verdict, d.Message)
			}
		})
	}
	allowed := map[string][]string{
		`Get-Content memory-bank\details\patterns.md`:                         {"memory-bank/details/patterns.md"},
		`gc memory-bank\MEMORY.md | Select-Object -First 20`:                  {"memory-bank/memory.md"},
		`Select-String -Path memory-bank\details\progress.md -Pattern TODO`:   {"memory-bank/details/progress.md"},
		`[IO.File]::ReadAllText('memory-bank\details\patterns.md')`:           {"memory-bank/details/patterns.md"},
		`Get-ChildItem memory-bank`:                                           {"memory-bank"},
		`Set-Content src\app.ts 'x'`:                                          nil,
		`git status`:                                                          nil,
		`Get-Content memory-bank\MEMORY.md | Set-Content C:\Temp\m.md`:        nil,
		`Write-Output "the bank is memory-bank\MEMORY.md" > C:\Temp\note.txt`: nil,
	}
	for cmd, reads := range allowed {
		t.Run(cmd, func(t *testing.T) {
			d, got := winCall(t, "PowerShell", `C:\w\34\repo`, map[string]any{"command": cmd})
			if d.Verdict == Block {
				t.Errorf("refused: %s", d.Message)
			}
			for _, r := range reads {
				if !strings.Contains(strings.Join(got, " "), r) {
					t.Errorf("reads %q, want %s among them", got, r)
				}
			}
		})
	}
}

// TestDriveRootRepository: a repository at the root of a drive (C:\) holds its bank like any
// other. relTo once read C:/'s files with the prefix C://, so nothing was inside the
// repository and memory-bank/ went unguarded there.
func TestDriveRootRepository(t *testing.T) {
	for name, c := range map[string]struct {
		tool string
		args map[string]any
	}{
		"Write":     {"Write", map[string]any{"file_path": `C:\memory-bank\a.json`, "content": "{}"}},
		"Bash":      {"Bash", map[string]any{"command": "echo x > C:/memory-bank/a.json"}},
		"Bash MSYS": {"Bash", map[string]any{"command": "echo x > /c/memory-bank/a.json"}},
	} {
		t.Run(name, func(t *testing.T) {
			fx := newFacts(bankFiles())
			fx.root, fx.ci = `C:\`, true
			e, st := New(DefaultPolicy()), &State{}
			e.Handle(st, Event{Kind: EvMessage, Host: "claude", Session: "s1", Message: "m1", Cwd: `C:\`, Now: 1}, fx)
			d := e.Handle(st, Event{Kind: EvToolBefore, Host: "claude", Session: "s1", Message: "m1", Tool: c.tool, Args: c.args, Cwd: `C:\`, Now: 2}, fx)
			if d.Verdict != Block || d.Gate != GateBank {
				t.Errorf("decision = %s/%s (%q), want Block by the bank guard", d.Verdict, d.Gate, d.Message)
			}
		})
	}
}
