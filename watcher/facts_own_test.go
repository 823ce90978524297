package watcher

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// OwnFiles names the user configuration where $XDG_CONFIG_HOME puts it and mbguard's name in every PATH directory up to the first one holding it (a
// stub there would run instead); none after it, and a symlinked directory's resolved spelling
// too.
func TestOwnFiles(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	for _, d := range []string{a, b, c} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(b, "mbguard"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "xdg"), "HOME": filepath.Join(dir, "home"),
		"PATH": "relative:" + link + ":" + b + ":" + c}
	got := OwnFiles(func(k string) string { return env[k] })
	for _, want := range []string{filepath.Join(dir, "xdg/mbguard/config.yaml"),
		filepath.Join(link, "mbguard"), filepath.Join(a, "mbguard"), filepath.Join(b, "mbguard")} {
		if !slices.Contains(got, filepath.ToSlash(want)) {
			t.Errorf("OwnFiles lacks %s: %v", want, got)
		}
	}
	for _, not := range []string{filepath.Join(c, "mbguard"), filepath.Join(dir, "home/.config/mbguard/config.yaml"), "relative/mbguard"} {
		if slices.Contains(got, filepath.ToSlash(not)) {
			t.Errorf("OwnFiles names %s: %v", not, got)
		}
	}
}
