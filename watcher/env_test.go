package watcher

import (
	"os"
	"path/filepath"
	"testing"
)

// The hook shares $TMPDIR and $HOME with the agent's shell: their absolute values are given
// to the classifier, a relative one (which would name a place in the repository) is not.
func TestFactsEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	t.Setenv("HOME", "relative/home")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	env := NewFacts(dir, nil).Env()
	if got := env["TMPDIR"]; got != filepath.ToSlash(dir) {
		t.Errorf("TMPDIR = %q, want %q", got, dir)
	}
	if v, ok := env["HOME"]; ok {
		t.Errorf("a relative HOME was kept: %q", v)
	}
	if v, ok := env["CLAUDE_PROJECT_DIR"]; ok {
		t.Errorf("an empty CLAUDE_PROJECT_DIR was kept: %q", v)
	}
	os.Unsetenv("TMPDIR") // t.Setenv above restores it
	if v, ok := NewFacts(dir, nil).Env()["TMPDIR"]; !ok || v != "" {
		t.Errorf("unset TMPDIR = %q, %v; want known to be empty", v, ok)
	}
}
