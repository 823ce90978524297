package gitobj

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// TestWriteIsGitsObject writes a blob and wants git to read it under the id git gives it, and a
// leftover temporary file (a writer killed mid-write) to pass git fsck --strict.
func TestWriteIsGitsObject(t *testing.T) {
	root := testgit.New(t)
	objects := filepath.Join(root, ".git", "objects")
	body := []byte("# Brief\r\nline two\n")
	id, err := Write(objects, false, "blob", body)
	if err != nil {
		t.Fatal(err)
	}
	testgit.Write(t, root, "b.md", string(body))
	if want := testgit.Git(t, root, "hash-object", "b.md"); id != want {
		t.Fatalf("id %s, git says %s", id, want)
	}
	if got := testgit.Git(t, root, "cat-file", "-p", id); got+"\n" != string(body) {
		t.Fatalf("git reads %q", got)
	}
	if again, err := Write(objects, false, "blob", body); err != nil || again != id {
		t.Fatalf("second write: %s, %v", again, err)
	}
	if err := os.WriteFile(filepath.Join(objects, id[:2], TempPrefix+"123"), []byte("half"), 0o444); err != nil {
		t.Fatal(err)
	}
	testgit.Git(t, root, "add", "b.md")
	testgit.Git(t, root, "commit", "-qm", "b")
	fsck := exec.Command("git", "fsck", "--strict", "--no-progress")
	fsck.Dir = root
	if out, err := fsck.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}
