package gating

import (
	"strings"
	"testing"
)

func TestBankGuard(t *testing.T) {
	userEdit := strings.Replace(memoryMD, "my own notes, hands off", "rewritten by an agent", 1)
	focusEdit := strings.Replace(memoryMD, "- Remaining: tests", "- Remaining: docs", 1)
	noEnd := strings.Replace(memoryMD, "<!-- MACHINE_BLOCK_END -->\n", "", 1)
	tests := []struct {
		name   string
		policy func(p *Policy)
		prep   func(fx *memFacts)
		run    func(s *session) Decision
		want   Verdict
		inMsg  []string
	}{
		{name: "non-md write", run: func(s *session) Decision { return s.write("memory-bank/notes.json", "{}") },
			want: Block, inMsg: []string{"[mbguard bank]", "write/edit tool", "memory-bank/notes.md"}},
		{name: "non-md patch add", run: func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: memory-bank/details/x.txt\n+x\n*** End Patch"})
		}, want: Block, inMsg: []string{"memory-bank/details/x.md"}},
		{name: "notebook into the bank", run: func(s *session) Decision {
			return s.before("NotebookEdit", map[string]any{"notebook_path": testRoot + "/memory-bank/n.ipynb", "new_source": "x"})
		}, want: Block},
		{name: "allowed non-md file", run: func(s *session) Decision { return s.write("memory-bank/details/design/.gitkeep", "") }, want: Allow},
		{name: "md write allowed with guideline", run: func(s *session) Decision {
			d := s.write("memory-bank/details/design/store.md", "# Store\n")
			if !strings.Contains(d.Advice, "USER_BLOCK") {
				d.Verdict = "no advice"
			}
			return d
		}, want: Allow},
		{name: "shell redirect", run: func(s *session) Decision { return s.bash("echo x >> memory-bank/details/progress.md") },
			want: Block, inMsg: []string{"use the write/edit tool", "memory-bank/details/progress.md"}},
		{name: "shell rm", run: func(s *session) Decision { return s.bash("rm -f memory-bank/details/tech.md") }, want: Block},
		{name: "shell git mv", run: func(s *session) Decision { return s.bash("git mv memory-bank/details/tech.md tech.md") }, want: Block},
		{name: "shell sed -i", run: func(s *session) Decision { return s.bash("sed -i s/a/b/ memory-bank/MEMORY.md") }, want: Block},
		{name: "shell find -delete", run: func(s *session) Decision { return s.bash("find memory-bank -name '*.tmp' -delete") }, want: Block},
		{name: "shell symlink creation", run: func(s *session) Decision { return s.bash("ln -s /etc memory-bank/etc") }, want: Block},
		{name: "shell interpreter", run: func(s *session) Decision {
			return s.bash(`python3 -c "import json; json.dump({}, open('memory-bank/x.json','w'))"`)
		}, want: Block},
		{name: "interpreter deleting from the bank", run: func(s *session) Decision {
			return s.bash(`python3 -c "import os,sys; os.remove('memory-bank/' + sys.argv[1])" MEMORY.md`)
		}, want: Block},
		{name: "shell unknown target run inside the bank", run: func(s *session) Decision {
			return s.call("bash", map[string]any{"command": "echo x > $F", "workdir": "memory-bank/details"})
		}, want: Block, inMsg: []string{"inside memory-bank/"}},
		{name: "shell unknown target naming the bank", run: func(s *session) Decision { return s.bash("cd memory-bank && echo x > $F") }, want: Block},
		{name: "shell unknown target elsewhere is not the bank's business", run: func(s *session) Decision { return s.bash("make > $LOG") }, want: Warn},
		{name: "shell md write allowed when configured", policy: func(p *Policy) { p.ShellMarkdownWrites = true },
			run: func(s *session) Decision { return s.bash("echo '- x' >> memory-bank/details/progress.md") }, want: Warn},
		{name: "shell non-md still blocked when configured", policy: func(p *Policy) { p.ShellMarkdownWrites = true },
			run: func(s *session) Decision { return s.bash("echo x > memory-bank/x.json") }, want: Block},
		{name: "shell MEMORY.md still blocked when configured", policy: func(p *Policy) { p.ShellMarkdownWrites = true },
			run: func(s *session) Decision { return s.bash("rm memory-bank/MEMORY.md") }, want: Block},
		{name: "symlink out of the bank", prep: func(fx *memFacts) { fx.links[testRoot+"/memory-bank/out.md"] = "/etc/motd" },
			run: func(s *session) Decision { return s.write("memory-bank/out.md", "x") }, want: Block, inMsg: []string{"symlink"}},
		{name: "symlink into the bank", prep: func(fx *memFacts) { fx.links[testRoot+"/notes"] = testRoot + "/memory-bank/details" },
			run: func(s *session) Decision { return s.write("notes/tech.md", "x") }, want: Block, inMsg: []string{"symlink", "memory-bank/details/tech.md"}},
		{name: "an alias of the repository root is no escape", prep: func(fx *memFacts) { fx.links["/private/repo"] = testRoot },
			run: func(s *session) Decision { return s.write("/private/repo/memory-bank/details/tech.md", "# Tech\nGo\n") }, want: Allow},
		{name: "an alias still meets the rules", prep: func(fx *memFacts) { fx.links["/private/repo"] = testRoot },
			run: func(s *session) Decision { return s.write("/private/repo/memory-bank/x.json", "{}") }, want: Block},
		{name: "backslashes into the bank are the bank, not an escape", run: func(s *session) Decision {
			return s.write(`memory-bank\details\tech.md`, "# Tech\nGo\n")
		}, want: Allow},
		{name: "dropping every marker of a detail file", prep: func(fx *memFacts) {
			fx.files["memory-bank/details/design/blocks.md"] = "# D\n<!-- MACHINE_BLOCK_START -->\nx\n<!-- MACHINE_BLOCK_END -->\n"
		}, run: func(s *session) Decision { return s.write("memory-bank/details/design/blocks.md", "# D\nx\n") }, want: Block, inMsg: []string{"remove block markers"}},
		{name: "edit of the first occurrence only", prep: func(fx *memFacts) { fx.files["memory-bank/details/tech.md"] = twice },
			run: func(s *session) Decision { return s.edit("memory-bank/details/tech.md", "redux", "zustand") }, want: Allow},
		{name: "replace_all reaching the user block", prep: func(fx *memFacts) { fx.files["memory-bank/details/tech.md"] = twice },
			run: func(s *session) Decision {
				return s.before("edit", map[string]any{"filePath": "memory-bank/details/tech.md", "oldString": "redux", "newString": "zustand", "replaceAll": true})
			}, want: Block, inMsg: []string{"USER_BLOCK"}},
		{name: "edit of machine block", run: func(s *session) Decision {
			return s.edit("memory-bank/MEMORY.md", "- Remaining: tests", "- Remaining: docs")
		}, want: Allow},
		{name: "edit of user block", run: func(s *session) Decision {
			return s.edit("memory-bank/MEMORY.md", "my own notes, hands off", "agent notes")
		}, want: Block, inMsg: []string{"USER_BLOCK"}},
		{name: "edit removing a marker", run: func(s *session) Decision {
			return s.edit("memory-bank/MEMORY.md", "<!-- MACHINE_BLOCK_END -->\n", "")
		}, want: Block, inMsg: []string{"marker"}},
		{name: "edit duplicating a marker", run: func(s *session) Decision {
			return s.edit("memory-bank/MEMORY.md", "## Project Snapshot", "<!-- USER_BLOCK_START -->\n## Project Snapshot")
		}, want: Block},
		{name: "edit whose oldString is not verbatim", run: func(s *session) Decision {
			return s.edit("memory-bank/MEMORY.md", "-  Remaining:   tests", "- Remaining: docs")
		}, want: Block, inMsg: []string{"read memory-bank/MEMORY.md again"}},
		{name: "replace_all across blocks", run: func(s *session) Decision {
			return s.before("Edit", map[string]any{"file_path": testRoot + "/memory-bank/MEMORY.md", "old_string": "notes", "new_string": "NOTES", "replace_all": true})
		}, want: Block},
		{name: "multiedit second edit hits user block", run: func(s *session) Decision {
			return s.before("multiedit", map[string]any{"filePath": "memory-bank/MEMORY.md", "edits": []any{
				map[string]any{"oldString": "A demo.", "newString": "A demo app."},
				map[string]any{"oldString": "hands off", "newString": "whatever"},
			}})
		}, want: Block},
		{name: "write keeping everything", run: func(s *session) Decision { return s.write("memory-bank/MEMORY.md", focusEdit) }, want: Allow},
		{name: "write changing the user block", run: func(s *session) Decision { return s.write("memory-bank/MEMORY.md", userEdit) }, want: Block},
		{name: "write dropping the markers", run: func(s *session) Decision { return s.write("memory-bank/MEMORY.md", "# Memory\nshort\n") }, want: Block},
		{name: "write with malformed markers", run: func(s *session) Decision { return s.write("memory-bank/MEMORY.md", noEnd) }, want: Block},
		{name: "new file with malformed markers", run: func(s *session) Decision {
			return s.write("memory-bank/details/design/x.md", "<!-- USER_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n")
		}, want: Block},
		{name: "new MEMORY.md without both blocks", prep: func(fx *memFacts) { delete(fx.files, "memory-bank/MEMORY.md") },
			run: func(s *session) Decision { return s.write("memory-bank/MEMORY.md", "# Memory\n") }, want: Block},
		{name: "markers in code fences are text", run: func(s *session) Decision {
			return s.write("memory-bank/details/patterns.md", "# Patterns\n```\n<!-- USER_BLOCK_START -->\n```\n")
		}, want: Allow},
		{name: "patch update of machine block", run: func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: memory-bank/MEMORY.md\n@@\n - In progress: src/store\n-- Remaining: tests\n+- Remaining: docs\n*** End Patch"})
		}, want: Allow},
		{name: "patch update of user block", run: func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: memory-bank/MEMORY.md\n@@\n <!-- USER_BLOCK_START -->\n-my own notes, hands off\n+mine now\n*** End Patch"})
		}, want: Block},
		{name: "unified patch that does not apply", run: func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "--- a/memory-bank/MEMORY.md\n+++ b/memory-bank/MEMORY.md\n@@ -1 +1 @@\n-nothing like this\n+x\n"})
		}, want: Block, inMsg: []string{"patch does not apply"}},
		{name: "patch delete of MEMORY.md", run: func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Delete File: memory-bank/MEMORY.md\n*** End Patch"})
		}, want: Block, inMsg: []string{"entry file"}},
		{name: "patch move of MEMORY.md", run: func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "diff --git a/memory-bank/MEMORY.md b/old/MEMORY.md\nrename from memory-bank/MEMORY.md\nrename to old/MEMORY.md\n"})
		}, want: Block},
		{name: "MEMORY.md on a folding file system", prep: func(fx *memFacts) { fx.ci = true },
			run: func(s *session) Decision {
				return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Delete File: Memory-Bank/memory.MD\n*** End Patch"})
			}, want: Block},
		{name: "a refusal on a folding file system keeps the call's spelling", prep: func(fx *memFacts) { fx.ci = true },
			run: func(s *session) Decision {
				return s.write("Memory-Bank/Details/Notes.JSON", "{}")
			}, want: Block, inMsg: []string{"Memory-Bank/Details/Notes.JSON"}},
		{name: "a shell refusal on a folding file system keeps the call's spelling", prep: func(fx *memFacts) { fx.ci = true },
			run: func(s *session) Decision {
				return s.before("Bash", map[string]any{"command": "echo x > MEMORY-BANK/Scratch.txt"})
			}, want: Block, inMsg: []string{"MEMORY-BANK/Scratch.txt"}},
		{name: "patch delete of a stray file", prep: func(fx *memFacts) { fx.files["memory-bank/old.json"] = "{}" },
			run: func(s *session) Decision {
				return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Delete File: memory-bank/old.json\n*** End Patch"})
			}, want: Allow},
		{name: "secret in a write", run: func(s *session) Decision {
			return s.write("memory-bank/details/tech.md", "# Tech\ntoken: "+secretToken+"\n")
		}, want: Block, inMsg: []string{"github-pat"}},
		{name: "secret in an edit", run: func(s *session) Decision {
			return s.edit("memory-bank/details/tech.md", "# Tech\n", "# Tech\nGH="+secretToken+"\n")
		}, want: Block, inMsg: []string{"github-pat"}},
		{name: "secret in a patch", run: func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: memory-bank/details/learnings/ci.md\n+use " + secretToken + "\n*** End Patch"})
		}, want: Block},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := policyWith(ModeOff, ModeOff, ModeOff) // the guard is on even with every gate off
			if tc.policy != nil {
				tc.policy(&p)
			}
			if tc.want == Warn {
				p.Mode = ModeWarn // a shell write the guard lets through is the read gate's to warn about
			}
			fx := newFacts(bankFiles())
			if tc.prep != nil {
				tc.prep(fx)
			}
			s := newSession(t, p, fx, "opencode")
			d := tc.run(s)
			if d.Verdict != tc.want {
				t.Fatalf("verdict = %s (%s: %q), want %s", d.Verdict, d.Gate, d.Message, tc.want)
			}
			if tc.want == Block && d.Gate != GateBank {
				t.Fatalf("gate = %s, want bank", d.Gate)
			}
			wantMsg(t, d, tc.inMsg...)
			if strings.Contains(d.Message, secretToken) {
				t.Fatal("message leaks the secret")
			}
		})
	}
}

const twice = "<!-- MACHINE_BLOCK_START -->\nstore: redux\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\nI like redux\n<!-- USER_BLOCK_END -->\n"

func TestSecretsOnlyForBankWrites(t *testing.T) {
	fx := newFacts(bankFiles())
	s := newSession(t, DefaultPolicy(), fx, "opencode")
	s.write("src/config.ts", "const t = '"+secretToken+"'")
	s.edit("src/app.ts", "1", "2")
	if fx.secrets != 0 {
		t.Fatalf("Secrets called %d times for writes outside the bank", fx.secrets)
	}
	s.write("memory-bank/details/tech.md", "# Tech stack\n")
	if fx.secrets != 1 {
		t.Fatalf("Secrets called %d times for one bank write", fx.secrets)
	}
}
