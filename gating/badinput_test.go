package gating

import (
	"encoding/json"
	"strings"
	"testing"
)

// BadArgsCases are write calls whose arguments have the wrong type (issue 11). Each must be
// refused in every mode: a call that cannot be understood is a write of unknown target.
func badArgsCases() map[string]call {
	return map[string]call{
		"Bash command as a list":       cc("Bash", map[string]any{"command": []any{"rm", "-rf", "memory-bank"}}),
		"Bash without command":         cc("Bash", map[string]any{"description": "x"}),
		"bash command as an object":    oc("bash", map[string]any{"command": map[string]any{"x": 1}}),
		"Write file_path a number":     cc("Write", map[string]any{"file_path": 42.0, "content": "x"}),
		"Write without tool_input":     cc("Write", nil),
		"Write empty tool_input":       cc("Write", map[string]any{}),
		"Write bank md content object": cc("Write", map[string]any{"file_path": abs("memory-bank/x.md"), "content": map[string]any{"a": 1.0}}),
		"Write code content object":    cc("Write", map[string]any{"file_path": abs("src/a.go"), "content": map[string]any{"a": 1.0}}),
		"MultiEdit edits a string":     cc("MultiEdit", map[string]any{"file_path": abs("memory-bank/MEMORY.md"), "edits": "x"}),
		"MultiEdit edit entry number":  cc("MultiEdit", map[string]any{"file_path": abs("memory-bank/MEMORY.md"), "edits": []any{1.0}}),
		"Edit new_string a number":     cc("Edit", map[string]any{"file_path": abs("memory-bank/MEMORY.md"), "old_string": "a", "new_string": 5.0}),
		"Edit without old_string":      cc("Edit", map[string]any{"file_path": abs("src/a.go"), "new_string": "x"}),
		"write paths not a list":       oc("write", map[string]any{"paths": "memory-bank/x.md", "content": "x"}),
		"apply_patch text a list":      oc("apply_patch", map[string]any{"patchText": []any{"*** Begin Patch"}}),
		"NotebookEdit source number":   cc("NotebookEdit", map[string]any{"notebook_path": abs("n.ipynb"), "new_source": 3.0}),
		"replace new_string bool":      cc("replace", map[string]any{"file_path": "memory-bank/x.md", "old_string": "a", "new_string": true}),
	}
}

func TestBadArgsAreRefused(t *testing.T) {
	for name, c := range badArgsCases() {
		for _, mode := range []Mode{ModeOff, ModeWarn, ModeBlock} {
			t.Run(name+"/"+string(mode), func(t *testing.T) {
				fx := newFacts(bankFiles())
				s := newSession(t, policyWith(mode, mode, mode), fx, c.host)
				d := s.before(c.tool, c.args)
				if d.Verdict != Block || d.Gate != GateBank {
					t.Fatalf("decision = %s/%s risk %s (%q), want block/bank", d.Verdict, d.Gate, d.Risk, d.Message)
				}
				wantMsg(t, d, "cannot read", "Next:")
				if strings.Contains(d.Message, "interface") || strings.Contains(d.Message, "float64") || strings.Contains(d.Message, "map[") {
					t.Fatalf("message leaks a Go type: %q", d.Message)
				}
			})
		}
	}
}

// TestHostToolShapes: the write tools of Codex, Gemini CLI and Copilot CLI are judged like
// OpenCode's and Claude Code's.
func TestHostToolShapes(t *testing.T) {
	cases := []struct {
		name string
		tool string
		args map[string]any
		want Verdict
	}{
		{"codex apply_patch command json", "apply_patch", map[string]any{"command": codex("*** Add File: memory-bank/x.json\n+{}\n")}, Block},
		{"copilot apply_patch string", "apply_patch", map[string]any{"input": codex("*** Add File: memory-bank/x.json\n+{}\n")}, Block},
		{"gemini write_file json", "write_file", map[string]any{"file_path": "memory-bank/x.json", "content": "{}"}, Block},
		{"gemini replace user block", "replace", map[string]any{"file_path": "memory-bank/MEMORY.md", "old_string": "hands off", "new_string": "open"}, Block},
		{"copilot create json", "create", map[string]any{"path": abs("memory-bank/x.json"), "file_text": "{}"}, Block},
		{"copilot edit user block", "edit", map[string]any{"path": abs("memory-bank/MEMORY.md"), "old_str": "hands off", "new_str": "open"}, Block},
		{"copilot Write PascalCase secret", "Write", map[string]any{"path": abs("memory-bank/details/tech.md"), "file_text": secretNote()}, Block},
		{"gemini run_shell_command", "run_shell_command", map[string]any{"command": "rm memory-bank/MEMORY.md", "dir_path": "."}, Block},
		{"gemini run_shell_command in the bank", "run_shell_command", map[string]any{"command": "rm MEMORY.md", "dir_path": "memory-bank"}, Block},
		{"codex exec_command", "exec_command", map[string]any{"cmd": "echo x > memory-bank/x.json"}, Block},
		{"mcp write_file", "mcp__filesystem__write_file", map[string]any{"path": abs("memory-bank/x.md"), "content": "x"}, Block},
		{"mcp move_file", "mcp__fs__move_file", map[string]any{"source": "src/a.go", "destination": "memory-bank/a.go"}, Block},
		{"ok gemini write_file md", "write_file", map[string]any{"file_path": "memory-bank/details/x.md", "content": "# x\n"}, Allow},
		{"copilot edit deleting the user block without new_str", "edit", map[string]any{"path": abs("memory-bank/MEMORY.md"), "old_str": "my own notes, hands off\n"}, Block},
		{"ok copilot edit deleting a line without new_str", "edit", map[string]any{"path": abs("memory-bank/MEMORY.md"), "old_str": "- Remaining: tests\n"}, Allow},
		{"ok copilot edit machine block", "edit", map[string]any{"path": abs("memory-bank/MEMORY.md"), "old_str": "- Remaining: tests", "new_str": "- Remaining: docs"}, Allow},
		{"ok mcp read_file", "mcp__filesystem__read_file", map[string]any{"path": abs("memory-bank/MEMORY.md")}, Allow},
		{"ok TodoWrite naming the bank", "TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "memory-bank/MEMORY.md"}}}, Allow},
		{"ok mcp tool outside the bank", "mcp__fs__write_file", map[string]any{"path": "src/a.go", "content": "x"}, Allow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), "claude")
			d := s.before(tc.tool, tc.args)
			if d.Verdict != tc.want || tc.want == Block && d.Gate != GateBank {
				t.Fatalf("decision = %s/%s (%q), want %s", d.Verdict, d.Gate, d.Message, tc.want)
			}
		})
	}
}

func TestEventArgsOfAnyType(t *testing.T) {
	for in, wantNil := range map[string]bool{
		`{"kind":"tool.before","tool":"write","args":{"filePath":"a"}}`:   false,
		`{"kind":"tool.before","tool":"write","args":"memory-bank/x.md"}`: true,
		`{"kind":"tool.before","tool":"bash","args":["rm","-rf"]}`:        true,
		`{"kind":"tool.before","tool":"bash","args":null}`:                true,
		`{"kind":"tool.before","tool":"bash"}`:                            true,
	} {
		var ev Event
		if err := json.Unmarshal([]byte(in), &ev); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if (ev.Args == nil) != wantNil || ev.Kind != EvToolBefore || ev.Tool == "" {
			t.Fatalf("%s decoded as %+v", in, ev)
		}
	}
}
