package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/mbguard/mbguard/scanner"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
)

// The fix for a symlink in the bank names a command that works: rm for a link git does not
// track (git rm --cached fails there), git rm --cached for a tracked or staged one.
func TestSymlinkAdviceWorks(t *testing.T) {
	for _, tracked := range []bool{false, true} {
		root := testgit.New(t)
		testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
		if err := os.Symlink("MEMORY.md", filepath.Join(root, "memory-bank", "link.md")); err != nil {
			t.Fatal(err)
		}
		if tracked {
			testgit.Git(t, root, "add", "memory-bank")
		}
		o := Options{Minimum: bank.CurrentTemplate}
		fs, err := Check(context.Background(), o, func(emit func(File) error) error {
			return Disk(context.Background(), root, []string{"memory-bank"}, emit)
		})
		if err != nil || len(fs) != 1 {
			t.Fatalf("tracked=%v: %v, %v", tracked, fs, err)
		}
		want := "rm memory-bank/link.md"
		if tracked {
			want = "git rm --cached memory-bank/link.md"
		}
		if !strings.Contains(fs[0].Fix, ": "+want) {
			t.Errorf("tracked=%v: fix %q, want %q", tracked, fs[0].Fix, want)
		}
	}
}

// The secret finding names the exact fingerprint, and listing it in .gitleaksignore silences
// the finding (staged and on disk alike).
func TestSecretAdviceFingerprintWorks(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
	testgit.Write(t, root, "memory-bank/details/tech.md", "# Tech\n\ntoken: "+testgit.FakeGitHubToken(t)+"\n")
	testgit.Git(t, root, "add", "memory-bank")
	fs, err := checkStaged(t, root)
	if err != nil || len(fs) != 1 {
		t.Fatalf("%v, %v; want one secret", fs, err)
	}
	const lead = "add this line to .gitleaksignore: "
	i := strings.Index(fs[0].Fix, lead)
	if i < 0 {
		t.Fatalf("fix %q names no fingerprint", fs[0].Fix)
	}
	fp, _, _ := strings.Cut(fs[0].Fix[i+len(lead):], " ")
	if fp != "memory-bank/details/tech.md:"+strings.TrimPrefix(fs[0].Rule, SecretRulePrefix)+":3" {
		t.Fatalf("fingerprint %q", fp)
	}
	testgit.Write(t, root, ".gitleaksignore", fp+"\n")
	if fs, err := checkStaged(t, root); err != nil || len(fs) != 0 {
		t.Fatalf("after listing %s: %v, %v; want no finding", fp, fs, err)
	}
}
