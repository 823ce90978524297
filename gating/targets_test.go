package gating

import (
	"slices"
	"testing"
)

func TestTargetPaths(t *testing.T) {
	tests := []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"relative write", "Write", map[string]any{"file_path": "memory-bank/x.json", "content": "{}"}, []string{"/w/memory-bank/x.json"}},
		{"absolute read", "Read", map[string]any{"file_path": "/repo/memory-bank/MEMORY.md"}, []string{"/repo/memory-bank/MEMORY.md"}},
		{"dot dot", "Edit", map[string]any{"file_path": "../repo/./a.go"}, []string{"/repo/a.go"}},
		{"patch headers", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: memory-bank/a.json\n+x\n*** Update File: src/b.go\n*** Move to: src/c.go\n@@\n-a\n+b\n*** End Patch\n"},
			[]string{"/w/memory-bank/a.json", "/w/src/b.go", "/w/src/c.go"}},
		{"shell redirect", "Bash", map[string]any{"command": "echo x > /repo/memory-bank/a.json"}, []string{"/repo/memory-bank/a.json", "/w"}},
		{"shell workdir", "Bash", map[string]any{"command": "ls", "workdir": "/repo"}, []string{"/repo"}},
		{"unknown tool", "mcp__fs__move", map[string]any{"path": "memory-bank/MEMORY.md", "other": 3}, []string{"/w/memory-bank/MEMORY.md"}},
		{"no paths", "TodoWrite", map[string]any{"todos": []any{}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TargetPaths(tt.tool, tt.args, "/w")
			if !slices.Equal(got, tt.want) {
				t.Errorf("TargetPaths = %q, want %q", got, tt.want)
			}
		})
	}
}
