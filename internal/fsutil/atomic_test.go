package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomicReplaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	for _, body := range []string{"one", "two, longer"} {
		if err := WriteFileAtomic(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != body {
			t.Fatalf("read %q, %v; want %q", got, err, body)
		}
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*.tmp*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// A write that cannot complete leaves the old content whole and no temporary file.
func TestWriteFileAtomicKeepsOldOnFailure(t *testing.T) {
	if os.Geteuid() == 0 {
		// root ignores directory permissions; use a path whose parent is a file instead.
		dir := t.TempDir()
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(filepath.Join(p, "child"), []byte("new"), 0o644); err == nil {
			t.Fatal("writing under a file must fail")
		}
		if b, _ := os.ReadFile(p); string(b) != "old" {
			t.Fatalf("old content changed to %q", b)
		}
		return
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if err := WriteFileAtomic(p, []byte("new"), 0o644); err == nil {
		t.Fatal("write into a read-only directory must fail")
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("old content changed to %q", b)
	}
}
