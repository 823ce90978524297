package outcome

import (
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"testing"
)

func TestManifestCodec(t *testing.T) {
	m := &manifest{Version: manifestVersion, Tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904", Entries: map[string]Entry{
		"memory-bank":                {Kind: KindDir, Mode: 0o755, Ino: 7},
		"memory-bank/MEMORY.md":      {Kind: KindFile, Mode: 0o644, Size: 161, Mtime: 1795667024630384074, Ino: 8, Nlink: 1, Blob: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
		"memory-bank/a b\nc.md":      {Kind: KindFile, Mode: 0o600, Size: 0, Nlink: 2, Blob: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
		"memory-bank/link.md":        {Kind: KindSymlink, Mode: 0o777, Size: 9, Nlink: 1, Blob: "abc"},
		"memory-bank/pipe":           {Kind: KindOther, Mode: 0o644},
		"memory-bank/too large.md":   {Kind: KindFile, Mode: 0o644, Size: 1 << 30},
		"memory-bank/ünïcode/ok.md":  {Kind: KindFile, Mode: 0o644, Size: 3, Blob: "x"},
		"memory-bank/ünïcode":        {Kind: KindDir, Mode: 0o700},
		"memory-bank/negative-mtime": {Kind: KindFile, Mode: 0o644, Mtime: -5},
	}}
	got, err := decodeManifest(encodeManifest(m))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
	}
	empty := &manifest{Version: manifestVersion, Entries: map[string]Entry{}}
	if got, err := decodeManifest(encodeManifest(empty)); err != nil || !reflect.DeepEqual(got, empty) {
		t.Errorf("empty manifest: %+v %v", got, err)
	}
	whole := encodeManifest(m)
	for _, bad := range [][]byte{nil, []byte("{}"), whole[:len(whole)-1], append(append([]byte{}, whole...), "f 644 1 2 3 x - p\x00"...),
		append(append([]byte{}, whole...), "q 644 1 2 3 1 - p\x00"...), append(append([]byte{}, whole...), "f 1777 1 2 3 1 - p\x00"...)} {
		if _, err := decodeManifest(bad); err == nil {
			t.Errorf("decoded %q", bad)
		}
	}
}

// A known-good.json left by an older mbguard is read, converted to known-good.idx and removed.
func TestLegacyManifestIsConverted(t *testing.T) {
	root, g := newBank(t)
	call := Call{ID: "a", Session: "s", Tool: "Bash"}
	g.Before(call)
	g.After(call)
	m, err := decodeManifest(mustRead(t, g.manifestPath()))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(m)
	os.WriteFile(g.legacyManifestPath(), b, 0o644)
	os.Remove(g.manifestPath())
	// a fresh Guard (a per-call hook) on a repository an older version guarded
	g = New(g.r, g.o)
	sh(t, root, "printf 'x=1' > memory-bank/run.sh")
	// the pre check absorbs a person's change against the legacy manifest: nothing undone
	rep, err := g.Before(Call{ID: "b", Session: "s", Tool: "Bash"})
	if err != nil || len(rep.Noticed) == 0 {
		t.Fatalf("pre check on a legacy manifest: %v %+v", err, rep)
	}
	if _, err := os.Stat(g.legacyManifestPath()); !os.IsNotExist(err) {
		t.Errorf("known-good.json still there: %v", err)
	}
	if _, err := decodeManifest(mustRead(t, g.manifestPath())); err != nil {
		t.Errorf("known-good.idx: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The walk's fstatat entries equal entryOf's (what undo records after a restore): a mismatch
// would make every check see every file as changed.
func TestLstatInMatchesEntryOf(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/f.md", []byte("abc"), 0o640)
	os.Mkdir(dir+"/d", 0o750)
	os.Symlink("f.md", dir+"/l")
	os.Link(dir+"/f.md", dir+"/h.md")
	exec.Command("mkfifo", dir+"/p").Run()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, n := range []string{"f.md", "d", "l", "h.md", "p"} {
		fi, err := os.Lstat(dir + "/" + n)
		if err != nil {
			continue
		}
		got, err := lstatIn(f, dir, n)
		if want := entryOf(fi); err != nil || got != want {
			t.Errorf("%s: lstatIn = %+v, %v; entryOf = %+v", n, got, err, want)
		}
	}
	if _, err := lstatIn(f, dir, "gone"); !os.IsNotExist(err) {
		t.Errorf("a missing name: %v, want not-exist", err)
	}
}

// A fresh Guard (every per-call hook) trusts a manifest nobody touched: it comes back with
// its stat fields, not rebuilt from the ref (which has none, so every file would be read and
// hashed by every check). Guards the cost as much as the logic: whatever else checks the
// manifest (a copy, the ref) must agree with the file as saveManifest writes it.
func TestUntouchedManifestIsTrusted(t *testing.T) {
	_, g := newBank(t)
	c := Call{ID: "a", Session: "s", Tool: "Bash"}
	g.Before(c)
	g.After(c)
	fresh := New(g.r, g.o)
	m, err := fresh.loadManifest()
	if err != nil || m == nil {
		t.Fatalf("manifest: %v %v", m, err)
	}
	if e := m.Entries["memory-bank/MEMORY.md"]; e.Mtime == 0 || e.Ino == 0 || e.Blob == "" {
		t.Errorf("MEMORY.md's entry %+v has no stat fields: the manifest was not trusted", e)
	}
}
