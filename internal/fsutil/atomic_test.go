package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
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

// A kill -9 between create and rename leaves ".x.json.tmp123"; only such files, and only old
// ones, are removed: a write in progress and other dot files stay.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-2 * StaleTemp)
	files := []struct {
		name    string
		mtime   time.Time
		removed bool
	}{
		{".s1.json.tmp123456", old, true},
		{".s2.json.tmp9", now, false}, // being written
		{"s3.json", old, false},
		{".s4.json.lock", old, false},
		{".tmp123", old, false},
		{".s5.json.tmpx", old, false},
		{".s6.json.tmp", old, false},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, f.mtime, f.mtime)
	}
	os.Mkdir(filepath.Join(dir, ".d.json.tmp1"), 0o755)
	os.Chtimes(filepath.Join(dir, ".d.json.tmp1"), old, old)
	n, err := RemoveStaleTemps(dir, StaleTemp, now)
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v; want 1", n, err)
	}
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if gone := os.IsNotExist(err); gone != f.removed {
			t.Errorf("%s: removed %v, want %v", f.name, gone, f.removed)
		}
	}
	if n, err := RemoveStaleTemps(filepath.Join(dir, "missing"), StaleTemp, now); n != 0 || err != nil {
		t.Fatalf("missing dir: %d, %v", n, err)
	}
}

// Every option writes the whole content with exactly perm (umask does not apply), breaks a
// hard link to the old file instead of writing through it, and leaves no temporary file.
func TestWriteFileOptions(t *testing.T) {
	for name, o := range map[string]Options{"synced": {}, "nosync": {NoSync: true}} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f")
			other := filepath.Join(dir, "link")
			if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(p, other); err != nil {
				t.Fatal(err)
			}
			if err := WriteFile(p, []byte("new"), 0o751, o); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(p); string(b) != "new" {
				t.Errorf("content %q, want new", b)
			}
			if b, _ := os.ReadFile(other); string(b) != "old" {
				t.Errorf("the hard link now reads %q: the write went through the old inode", b)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o751 {
				t.Errorf("mode = %v, want 0751", fi.Mode().Perm())
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(left) != 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
		})
	}
}

// Exclusive creates a missing file and refuses, with fs.ErrExist and the old content whole,
// when anything is there: a file or a dangling symlink.
func TestWriteFileExclusive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new.md")
	if err := WriteFile(p, []byte("one"), 0o644, Options{Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("content %q, want one", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	err := WriteFile(p, []byte("two"), 0o644, Options{Exclusive: true})
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second write: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("existing file changed to %q", b)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dangling, []byte("x"), 0o644, Options{Exclusive: true}); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("over a dangling symlink: %v, want fs.ErrExist", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !os.IsNotExist(err) {
		t.Fatalf("the write followed the dangling symlink: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
