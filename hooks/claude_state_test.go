package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session state mbguard cannot read must not let writes through in the default modes, and
// the refusal must say what happened (not "the context was compacted") and that recovery is
// armed as a precaution.
func TestClaudeLostStateFailsClosed(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(t *testing.T, p string)
		want  string
	}{
		{"corrupt file", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(`{"session":"x","satisfied":tr`), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "corrupt"},
		{"a directory where the file should be", func(t *testing.T, p string) {
			os.Remove(p)
			if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "cannot be read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := bankRepo(t)
			h := newHookRun(t, root, nil) // default modes: read gate warn, recovery block
			h.prompt("p")
			h.readFile("memory-bank/details/patterns.md")
			tc.spoil(t, filepath.Join(root, ".git/mbguard/sessions", h.sess+".json"))
			r := h.write("go.mod", "module example.com/app\n\nrequire example.com/queue v1.2.0\n")
			if r.Exit != 2 {
				t.Fatalf("exit %d stderr %q: want the write refused", r.Exit, r.Stderr)
			}
			for _, want := range []string{tc.want, "as a precaution", "memory-bank/MEMORY.md"} {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
				}
			}
			if strings.Contains(r.Stderr, "is writable") {
				t.Errorf("stderr adds a misleading save error:\n%s", r.Stderr)
			}
			if strings.Contains(r.Stderr, "compacted") {
				t.Errorf("stderr blames a compaction that did not happen:\n%s", r.Stderr)
			}
		})
	}
}
