package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	. "github.com/mbguard/mbguard/scanner"
)

// ScanRead finds a file's secrets with their line, rule and text, and finds nothing in a
// missing file, a directory or a file over MaxReadScan.
func TestScanRead(t *testing.T) {
	root := t.TempDir()
	state := t.TempDir()
	tok := testgit.FakeGitHubToken(t)
	p := filepath.Join(root, "memory-bank", "details", "tech.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "# Tech\n\ntoken: " + tok + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSecrets(root)
	got, b := s.ScanRead(state, "memory-bank/details/tech.md", p)
	if len(got) != 1 || got[0].Secret != tok || got[0].Line != 3 || got[0].Rule != "github-pat" || string(b) != body {
		t.Fatalf("ScanRead = %+v, %q", got, b)
	}
	if w := got[0].Where("memory-bank/details/tech.md"); w != "memory-bank/details/tech.md line 3 holds a secret (gitleaks rule github-pat)" {
		t.Fatalf("Where = %q", w)
	}
	if n := ReadNotice([]string{"a", "b"}); !strings.HasPrefix(n, "[mbguard] a; b. ") || strings.Contains(n, tok) {
		t.Fatalf("ReadNotice = %q", n)
	}
	big := filepath.Join(root, "memory-bank", "big.md")
	if err := os.WriteFile(big, []byte(body+strings.Repeat("x", MaxReadScan)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{filepath.Join(root, "memory-bank", "missing.md"), filepath.Dir(p), big} {
		if got, b := s.ScanRead(state, "memory-bank/x.md", q); got != nil || b != nil {
			t.Errorf("%s: ScanRead = %+v, %d bytes; want nothing", q, got, len(b))
		}
	}
}
