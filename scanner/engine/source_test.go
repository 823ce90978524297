package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/mbguard/mbguard/scanner"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
)

const cleanEntry = "<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n# Memory\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\nmine\n<!-- USER_BLOCK_END -->\n"

func checkStaged(t *testing.T, root string) ([]Finding, error) {
	t.Helper()
	o := Options{Minimum: bank.CurrentTemplate, AllowedFiles: []string{".gitkeep"}, Secrets: NewSecrets(root)}
	return Check(context.Background(), o, func(emit func(File) error) error { return Staged(context.Background(), root, emit) })
}

func findingRules(fs []Finding) string {
	var rs []string
	for _, f := range fs {
		rs = append(rs, f.Path+":"+f.Rule)
	}
	return strings.Join(rs, " ")
}

func TestStaged(t *testing.T) {
	tok := testgit.FakeGitHubToken(t)
	cases := []struct {
		name string
		prep func(t *testing.T, root string)
		want string
	}{
		{"clean bank in a repository without commits", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
			testgit.Write(t, root, "memory-bank/.gitkeep", "")
			testgit.Git(t, root, "add", ".")
		}, ""},
		{"index, not working tree", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
			testgit.Git(t, root, "add", ".")
			testgit.Write(t, root, "memory-bank/MEMORY.md", "broken <!-- USER_BLOCK_START -->\n")
		}, ""},
		{"broken marker staged, fixed on disk", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/MEMORY.md", strings.Replace(cleanEntry, "<!-- USER_BLOCK_END -->", "", 1))
			testgit.Git(t, root, "add", ".")
			testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
		}, "memory-bank/MEMORY.md:marker-unclosed"},
		{"secret only in committed lines is not reported", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
			testgit.Write(t, root, "memory-bank/details/tech.md", "old GITHUB_TOKEN="+tok+"\n")
			testgit.Commit(t, root, "old")
			testgit.Write(t, root, "memory-bank/details/tech.md", "old GITHUB_TOKEN="+tok+"\nnew line\n")
			testgit.Git(t, root, "add", ".")
		}, ""},
		{"secret in an added line", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
			testgit.Commit(t, root, "init")
			testgit.Write(t, root, "memory-bank/details/tech.md", "# Tech\n\nGITHUB_TOKEN="+tok+"\n")
			testgit.Git(t, root, "add", ".")
		}, "memory-bank/details/tech.md:secret:github-pat"},
		{"deleted in the index is not checked", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
			testgit.Write(t, root, "memory-bank/old.txt", "x")
			testgit.Commit(t, root, "init")
			testgit.Git(t, root, "rm", "-q", "--cached", "memory-bank/old.txt")
		}, ""},
		{"stray and symlink and binary and large", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
			testgit.Write(t, root, "memory-bank/notes.txt", "x")
			testgit.Write(t, root, "memory-bank/bin.md", "a\x00b")
			testgit.Write(t, root, "memory-bank/big.md", strings.Repeat("x", MaxFileSize+10))
			if err := os.Symlink("MEMORY.md", filepath.Join(root, "memory-bank", "link.md")); err != nil {
				t.Fatal(err)
			}
			testgit.Git(t, root, "add", ".")
		}, "memory-bank/big.md:too-large memory-bank/bin.md:non-md memory-bank/link.md:symlink memory-bank/notes.txt:non-md"},
		{"crlf and invalid utf-8", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/MEMORY.md", strings.ReplaceAll(cleanEntry, "\n", "\r\n"))
			testgit.Write(t, root, "memory-bank/x.md", "\xff\xfe\xfd\n")
			testgit.Git(t, root, "add", ".")
		}, ""},
		{"file names needing quotes", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
			testgit.Write(t, root, "memory-bank/détails \"x\".md", "GITHUB_TOKEN="+tok+"\n")
			testgit.Git(t, root, "add", ".")
		}, "memory-bank/détails \"x\".md:secret:github-pat"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := testgit.New(t)
			c.prep(t, root)
			got, err := checkStaged(t, root)
			if err != nil {
				t.Fatal(err)
			}
			if findingRules(got) != c.want {
				t.Errorf("findings = %q, want %q", findingRules(got), c.want)
			}
		})
	}
}

// In a long file the commit changes in places, only the added lines are scanned for secrets,
// cut into fragments like whole files are, with the file's own line numbers.
func TestStagedAddedLinesOfLongFile(t *testing.T) {
	tok := testgit.FakeGitHubToken(t)
	prose := strings.Repeat("We keep the token budget low; the key decision was to cache.\n\n", 150) // 300 lines
	old := "# Tech\n\nold GITHUB_TOKEN=" + tok + "\n\n" + prose                                      // committed secret on line 3
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
	testgit.Write(t, root, "memory-bank/details/tech.md", old)
	testgit.Commit(t, root, "init")
	added := old + "Deploy notes.\n\napi_key = '" + genericKeyValue(t, root) + "'\n\n" + prose + "new GITHUB_TOKEN=" + tok + "\n"
	testgit.Write(t, root, "memory-bank/details/tech.md", added)
	testgit.Git(t, root, "add", ".")

	got, err := checkStaged(t, root)
	if err != nil {
		t.Fatal(err)
	}
	var rs []string
	for _, f := range got {
		rs = append(rs, f.Rule+"@"+itoaLine(f.Line))
	}
	want := "secret:generic-api-key@307 secret:github-pat@609"
	if strings.Join(rs, " ") != want {
		t.Errorf("findings = %q, want %q (the committed token on line 3 is not the commit's)", strings.Join(rs, " "), want)
	}
}

func TestStagedMergeConflict(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
	testgit.Commit(t, root, "init")
	testgit.Git(t, root, "checkout", "-q", "-b", "other")
	testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry+"other\n")
	testgit.Commit(t, root, "other")
	testgit.Git(t, root, "checkout", "-q", "main")
	testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry+"main\n")
	testgit.Commit(t, root, "main")
	cmd := exec.Command("git", "merge", "-q", "other")
	cmd.Dir = root
	if err := cmd.Run(); err == nil {
		t.Fatal("the merge should conflict")
	}
	_, err := checkStaged(t, root)
	if err == nil || !strings.Contains(err.Error(), "merge conflicts") {
		t.Fatalf("err = %v, want a merge-conflict message", err)
	}
}

// Staged reads blobs ahead while git diff runs; a caller that stops early (an emit error, as
// when a check is cancelled) gets its error back, every blob in order before it, and git
// ended, with more blobs staged than are read ahead.
func TestStagedStopsEarly(t *testing.T) {
	root := testgit.New(t)
	n := 150
	for i := range n {
		testgit.Write(t, root, fmt.Sprintf("memory-bank/details/n%03d.md", i), fmt.Sprintf("# Note %d\n\nline\n", i))
	}
	testgit.Git(t, root, "add", ".")
	for _, stopAt := range []int{0, 3, 100, n - 1} {
		var got []string
		stop := errors.New("stop")
		err := Staged(context.Background(), root, func(f File) error {
			if len(got) == stopAt {
				return stop
			}
			want := fmt.Sprintf("# Note %d\n\nline\n", len(got))
			if string(f.Content) != want || len(f.Added) != 3 {
				t.Errorf("file %d: %s holds %q with added lines %v, want %q and 3 lines", len(got), f.Path, f.Content, f.Added, want)
			}
			got = append(got, f.Path)
			return nil
		})
		if !errors.Is(err, stop) || len(got) != stopAt {
			t.Errorf("stopping at %d: err = %v after %d files, want the emit error after %d", stopAt, err, len(got), stopAt)
		}
	}
}

func TestDisk(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", cleanEntry)
	testgit.Write(t, root, "memory-bank/a.json", "{}")
	o := Options{Minimum: bank.CurrentTemplate, Secrets: NewSecrets(root)}
	got, err := Check(context.Background(), o, func(emit func(File) error) error {
		return Disk(context.Background(), root, []string{"memory-bank"}, emit)
	})
	if err != nil {
		t.Fatal(err)
	}
	if findingRules(got) != "memory-bank/a.json:non-md" {
		t.Errorf("findings = %q", findingRules(got))
	}
	err = Disk(context.Background(), root, []string{"memory-bank/nope.md"}, func(File) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("err = %v", err)
	}
}

// genericKeyValue returns a random value that gitleaks' generic-api-key rule reports in
// "api_key = '…'". A random value is not always one: the rule also demands entropy and skips
// values holding one of its stop words, which made a single draw fail now and then.
func genericKeyValue(t *testing.T, root string) string {
	t.Helper()
	s := New(root)
	for range 50 {
		v := testgit.FakeGitHubToken(t)[4:]
		fs, err := s.Scan("memory-bank/probe.md", []byte("api_key = '"+v+"'\n"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Rule == "generic-api-key" {
				return v
			}
		}
	}
	t.Fatal("no random value in 50 draws was a generic-api-key finding: has the gitleaks rule changed?")
	return ""
}
