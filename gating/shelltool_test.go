package gating

import "testing"

// TestShellTool: every host's shell tool is one the kernel line jails, and nothing else is.
func TestShellTool(t *testing.T) {
	for _, tool := range []string{"bash", "Bash", "shell", "run_shell_command", "exec_command"} {
		if !ShellTool(tool) {
			t.Errorf("ShellTool(%q) = false", tool)
		}
	}
	for _, tool := range []string{"write", "Read", "task", "bashoutput", ""} {
		if ShellTool(tool) {
			t.Errorf("ShellTool(%q) = true", tool)
		}
	}
}
