package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	. "github.com/mbguard/mbguard/scanner"

	"github.com/mbguard/mbguard/internal/testgit"
)

func TestScanCached(t *testing.T) {
	root := testgit.New(t)
	dir := filepath.Join(root, ".git", "mbguard")
	tok := testgit.FakeGitHubToken(t)
	text := []byte("# Memory\n\nGITHUB_TOKEN=" + tok + "\n")
	const path = "memory-bank/MEMORY.md"
	want, err := New(root).Scan(path, text)
	if err != nil || len(want) == 0 {
		t.Fatalf("Scan: %v, %d findings", err, len(want))
	}
	got, err := NewSecrets(root).ScanCached(dir, path, text)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("first ScanCached = %+v, %v; want %+v", got, err, want)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "scan-*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), tok) || strings.Contains(string(b), tok[4:20]) {
		t.Fatalf("the cache holds the secret")
	}

	// A later process answers from the cache: a planted finding comes back as is.
	planted := strings.Replace(string(b), `"Line":3`, `"Line":2`, 1)
	if planted == string(b) {
		t.Fatalf("cache format changed: %s", b)
	}
	if err := os.WriteFile(files[0], []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := NewSecrets(root).ScanCached(dir, path, text); len(got) == 0 || got[0].Line != 2 {
		t.Fatalf("the cache was not used: %+v", got)
	}

	// Anything that decides the findings invalidates it: the content, the .gitleaksignore.
	if got, _ := NewSecrets(root).ScanCached(dir, path, append(text, '\n')); !reflect.DeepEqual(got, want) {
		t.Fatalf("changed content answered from the cache: %+v", got)
	}
	if err := os.WriteFile(files[0], []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	ignore := []byte(path + ":github-pat:3\n")
	if err := os.WriteFile(filepath.Join(root, GitleaksIgnore), ignore, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := NewSecrets(root).ScanCached(dir, path, text); err != nil || len(got) != 0 {
		t.Fatalf("after .gitleaksignore: %+v, %v; want nothing", got, err)
	}
	if err := os.Remove(filepath.Join(root, GitleaksIgnore)); err != nil {
		t.Fatal(err)
	}

	// A corrupt cache is a miss, and is replaced.
	for _, bad := range []string{"{", `{"key":"x"}`, ""} {
		if err := os.WriteFile(files[0], []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := NewSecrets(root).ScanCached(dir, path, text); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("corrupt cache %q: %+v, %v", bad, got, err)
		}
	}
	// Offsets outside the content are corrupt too, even under the right key.
	b, _ = os.ReadFile(files[0])
	outside := strings.Replace(string(b), `"End":`, `"End":9999`, 1)
	if err := os.WriteFile(files[0], []byte(outside), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := NewSecrets(root).ScanCached(dir, path, text); !reflect.DeepEqual(got, want) {
		t.Fatalf("out-of-range cache used: %+v", got)
	}
}

// A cached answer of no findings (read without decoding) stands only for the content it was
// made for: the same path with a secret in it is scanned, and the secret found.
func TestScanCachedNoFindingsOnlyForItsContent(t *testing.T) {
	root := testgit.New(t)
	dir := filepath.Join(root, ".git", "mbguard")
	const path = "memory-bank/MEMORY.md"
	clean := []byte("# Memory\n\nnothing to see\n")
	if got, err := NewSecrets(root).ScanCached(dir, path, clean); err != nil || len(got) != 0 {
		t.Fatalf("clean text: %+v, %v", got, err)
	}
	if got, err := NewSecrets(root).ScanCached(dir, path, clean); err != nil || got != nil {
		t.Fatalf("clean text from the cache: %+v, %v", got, err)
	}
	tok := testgit.FakeGitHubToken(t)
	if got, err := NewSecrets(root).ScanCached(dir, path, []byte("# Memory\n\ntoken: "+tok+"\n")); err != nil || len(got) != 1 {
		t.Fatalf("text with a secret after a clean cache: %+v, %v", got, err)
	}
}
