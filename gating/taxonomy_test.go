package gating

import "testing"

func TestClassifyTool(t *testing.T) {
	cases := map[string]ToolClass{
		"Read": ClassRead, "view": ClassRead, "read_file": ClassRead, "Grep": ClassRead, "Agent": ClassRead, "task": ClassRead,
		"Write": ClassWrite, "apply_patch": ClassWrite, "create": ClassWrite, "replace": ClassWrite, "NotebookEdit": ClassWrite,
		"Bash": ClassShell, "run_shell_command": ClassShell, "exec_command": ClassShell,
		// acting without naming files is not reading: a skill runs shell lines, write_stdin feeds a shell
		"Skill": ClassUnknown, "write_stdin": ClassUnknown, "mcp__fs__move_file": ClassUnknown, "": ClassUnknown,
	}
	for name, want := range cases {
		if got := ClassifyTool(name); got != want {
			t.Errorf("ClassifyTool(%q) = %s, want %s", name, got, want)
		}
	}
	for name, c := range ToolClasses() {
		if ClassifyTool(name) != c {
			t.Errorf("ToolClasses()[%q] = %s, ClassifyTool says %s", name, c, ClassifyTool(name))
		}
	}
}
