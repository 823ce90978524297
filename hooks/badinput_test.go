package hooks

import (
	"strings"
	"testing"
)

// TestClaudeRefusesBadArgs: a PreToolUse whose tool_input has the wrong types is refused with
// exit 2 in every mode (issue 11), and the message names no Go type.
func TestClaudeRefusesBadArgs(t *testing.T) {
	root := bankRepo(t)
	cases := map[string]map[string]any{
		"Bash command list":       {"tool_name": "Bash", "tool_input": map[string]any{"command": []any{"rm", "-rf", "memory-bank"}}},
		"Write file_path number":  {"tool_name": "Write", "tool_input": map[string]any{"file_path": 42, "content": "x"}},
		"Write no tool_input":     {"tool_name": "Write"},
		"Write bank md object":    {"tool_name": "Write", "tool_input": map[string]any{"file_path": root + "/memory-bank/x.md", "content": map[string]any{"a": 1}}},
		"MultiEdit edits string":  {"tool_name": "MultiEdit", "tool_input": map[string]any{"file_path": root + "/memory-bank/MEMORY.md", "edits": "x"}},
		"Edit new_string number":  {"tool_name": "Edit", "tool_input": map[string]any{"file_path": root + "/src/app.go", "old_string": "a", "new_string": 5}},
		"Write tool_input a list": {"tool_name": "Write", "tool_input": []any{"memory-bank/x.md"}},
	}
	for _, mode := range []string{"off", "warn", "block"} {
		for name, extra := range cases {
			t.Run(mode+"/"+name, func(t *testing.T) {
				h := newHookRun(t, root, map[string]string{"MEMORY_BANK_GUARD_MODE": mode})
				r := h.call("PreToolUse", extra)
				if r.Exit != 2 {
					t.Fatalf("exit %d, stdout %s, stderr %q: want a refusal", r.Exit, r.Stdout, r.Stderr)
				}
				out := string(r.Stdout) + r.Stderr
				if strings.Contains(out, "interface {}") || strings.Contains(out, "float64") {
					t.Fatalf("reply leaks a Go type: %s", out)
				}
			})
		}
	}
}
