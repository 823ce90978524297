package watcher

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolve pins the fast in-repository path of Facts.Resolve to the same answers as the
// full symlink resolution, for every shape a write path can take.
func TestResolve(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk("memory-bank/details")
	mk("src")
	if err := os.WriteFile(filepath.Join(root, "src/main.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"docs":                filepath.Join(root, "memory-bank"),
		"memory-bank/out":     outside,
		"src/dangling":        filepath.Join(root, "nowhere"),
		"src/rel":             "../memory-bank/details",
		"memory-bank/self.md": "details",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	f := NewFacts(root, nil)
	tests := []struct{ name, in, want string }{
		{"plain file", "src/main.go", "src/main.go"},
		{"missing file", "src/new.go", "src/new.go"},
		{"missing directory", "a/b/c.go", "a/b/c.go"},
		{"alias into the bank", "docs/x.json", "memory-bank/x.json"},
		{"relative link into the bank", "src/rel/x.md", "memory-bank/details/x.md"},
		{"link out of the bank", "memory-bank/out/x.md", ""},
		{"dangling link", "src/dangling/x", "nowhere/x"},
		{"link as last component", "memory-bank/self.md", "memory-bank/details"},
		{"root itself", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(root, tc.in)
			got := f.Resolve(in)
			want := filepath.Join(root, tc.want)
			if tc.name == "link out of the bank" {
				want = filepath.Join(outside, "x.md")
			}
			if tc.name == "root itself" {
				want = root
			}
			if got != want {
				t.Errorf("Resolve(%s) = %s, want %s", tc.in, got, want)
			}
			if slow := f.resolveSlow(in); slow != got && tc.name != "dangling link" {
				t.Errorf("fast path %s differs from full resolution %s", got, slow)
			}
		})
	}
}
