package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/mbguard/mbguard/scanner"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
)

// Check answers an unchanged file from CacheDir: a cache entry planted under the file's key is
// what it reports; a changed file, or changed rules, is scanned again.
func TestCheckCacheAnswersUnchangedFiles(t *testing.T) {
	root := testgit.New(t)
	dir := filepath.Join(root, bank.Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(dir, "n.md")
	tok := testgit.FakeGitHubToken(t)
	if err := os.WriteFile(note, []byte("# n\n\nGITHUB_TOKEN="+tok+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	run := func() []string {
		t.Helper()
		o := Options{Minimum: bank.CurrentTemplate, Secrets: NewSecrets(root), CacheDir: cache}
		fs, err := Check(context.Background(), o, func(emit func(File) error) error {
			return Disk(context.Background(), root, []string{bank.Dir}, emit)
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			if strings.HasPrefix(f.Rule, SecretRulePrefix) {
				got = append(got, f.Rule)
			}
		}
		return got
	}
	if got := run(); strings.Join(got, " ") != "secret:github-pat" {
		t.Fatalf("first run: %v", got)
	}
	// Plant another answer under the same key: the next run must take it from the cache.
	b, err := os.ReadFile(filepath.Join(cache, MemoFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string][]SecretFinding
	if err := json.Unmarshal(b, &m); err != nil || len(m) != 1 {
		t.Fatalf("cache %s: %v, %d entries", b, err, len(m))
	}
	for k, v := range m {
		v[0].Rule = "planted"
		m[k] = v
	}
	b, _ = json.Marshal(m)
	if err := os.WriteFile(filepath.Join(cache, MemoFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := run(); strings.Join(got, " ") != "secret:planted" {
		t.Errorf("unchanged file: %v, want the cached answer", got)
	}
	// Changed content: scanned again.
	if err := os.WriteFile(note, []byte("# n\n\nGITHUB_TOKEN="+tok+"\nMBOTHER-123456\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(); strings.Join(got, " ") != "secret:github-pat" {
		t.Errorf("after the note changed: %v, want a fresh scan", got)
	}
	// New rules (custom only: gitleaks extends a configuration with its defaults twice per
	// process at most, and other tests use those): the key changes, the file is scanned again.
	toml := "[[rules]]\nid = \"mb-other\"\nregex = '''MBOTHER-[0-9]{6}'''\n"
	if err := os.WriteFile(filepath.Join(root, GitleaksConfig), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(); strings.Join(got, " ") != "secret:mb-other" {
		t.Errorf("after .gitleaks.toml changed: %v, want a fresh scan", got)
	}
}
