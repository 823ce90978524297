package outcome

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repository whose parent folder was renamed is found by the recorded inodes and put back
// under its old name; one moved out of every folder on its path is not, and says where it was
// last looked for; an existing folder is never Vanished, and a new folder made at the old name
// is never replaced.
func TestPutBackRenamedParent(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base := t.TempDir()
	root := filepath.Join(base, "work", "proj")
	if err := os.MkdirAll(filepath.Join(root, "memory-bank"), 0o755); err != nil {
		t.Fatal(err)
	}
	RecordRoot(root)
	if _, ok := Vanished(filepath.Join(root, "src")); ok {
		t.Fatal("Vanished for a folder below a repository that is there")
	}
	if err := os.Rename(filepath.Join(base, "work"), filepath.Join(base, "work2")); err != nil {
		t.Fatal(err)
	}
	got, ok := Vanished(filepath.Join(root, "src", "deep"))
	if !ok || got != root {
		t.Fatalf("Vanished = %q, %v; want %s", got, ok, root)
	}
	from, err := PutBack(root)
	if err != nil || from != filepath.Join(base, "work2") {
		t.Fatalf("PutBack = %q, %v", from, err)
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank")); err != nil {
		t.Fatalf("the bank is not back: %v", err)
	}
	// moved elsewhere: not found
	if err := os.Rename(root, filepath.Join(t.TempDir(), "away")); err != nil {
		t.Fatal(err)
	}
	if _, err := PutBack(root); err == nil || !strings.Contains(err.Error(), "moved elsewhere") {
		t.Fatalf("PutBack of a repository moved elsewhere: %v", err)
	}
	// a new folder at the old name is left alone
	os.MkdirAll(root, 0o755)
	if _, ok := Vanished(root); ok {
		t.Fatal("Vanished for a folder that is there again")
	}
	if _, err := PutBack(root); err == nil {
		t.Fatal("PutBack replaced a folder made at the old name")
	}
}
