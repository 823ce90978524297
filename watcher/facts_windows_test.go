package watcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
)

// TestDriveLetterCase (issue 31, point 2): a session whose folder is spelt c:\… writes the
// bank like one spelt C:\…: the drive letter is compared without case, and the path is not
// rebuilt as \c:\….
func TestDriveLetterCase(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "memory-bank", "details"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := NewFacts(root, nil)
	for _, spell := range []string{strings.ToLower(root[:1]) + root[1:], strings.ToUpper(root[:1]) + root[1:]} {
		raw := spell + `\memory-bank\details\ok.md`
		if got, want := f.Resolve(raw), filepath.Join(root, `memory-bank\details\ok.md`); !strings.EqualFold(got, want) {
			t.Errorf("Resolve(%s) = %s, want %s", raw, got, want)
		}
		if rel, in := gating.Canon(raw, "", f); rel != "memory-bank/details/ok.md" || !in {
			t.Errorf("Canon(%s) = %q, %v; want memory-bank/details/ok.md inside", raw, rel, in)
		}
		if rel, in := gating.Canon(`details\ok.md`, spell+`\memory-bank`, f); rel != "memory-bank/details/ok.md" || !in {
			t.Errorf("Canon(details\\ok.md in %s) = %q, %v; want memory-bank/details/ok.md inside", spell, rel, in)
		}
	}
}
