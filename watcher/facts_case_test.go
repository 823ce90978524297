package watcher

import (
	"path/filepath"
	"testing"
)

// TestCutRoot: a path below the root is found below it in any case the file system folds, and
// only then; a sibling whose name starts with the root's is not below it.
func TestCutRoot(t *testing.T) {
	root := filepath.FromSlash("/w/Repo")
	tests := []struct {
		name, abs string
		fold      bool
		want      string
		ok        bool
	}{
		{"same case", "/w/Repo/memory-bank/x.md", false, "memory-bank/x.md", true},
		{"other case, sensitive", "/w/repo/memory-bank/x.md", false, "", false},
		{"other case, folding", "/W/REPO/Memory-Bank/x.md", true, "Memory-Bank/x.md", true},
		{"sibling", "/w/Repo2/x.md", true, "", false},
		{"root itself", "/w/Repo", true, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := cutRoot(filepath.FromSlash(tc.abs), root, tc.fold)
			if filepath.ToSlash(got) != tc.want || ok != tc.ok {
				t.Errorf("cutRoot(%s, %s, %v) = %q, %v; want %q, %v", tc.abs, root, tc.fold, got, ok, tc.want, tc.ok)
			}
		})
	}
}
