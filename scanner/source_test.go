package scanner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// stagedCases are new files whose diff is awkward to read back: no final newline, CRLF, a line
// that looks like a diff header, a binary file, an empty one.
var stagedCases = map[string]string{
	"memory-bank/plain.md":            "# Plain\n\nsome text\n",
	"memory-bank/no-newline.md":       "# No newline\n\nlast line",
	"memory-bank/crlf.md":             "# CRLF\r\n\r\nline\r\n",
	"memory-bank/headers.md":          "# Headers\n++ not a header\n--- neither\n@@ -1 +1 @@\n\\ No newline at end of file\ndiff --git a/x b/x\n",
	"memory-bank/blank.md":            "\n",
	"memory-bank/empty.md":            "",
	"memory-bank/binary.md":           "PNG\x00\x01\x02 bytes\n",
	"memory-bank/sp ace/ünï\tcode.md": "# Quoted path\n",
	"memory-bank/details/big.md":      strings.Repeat("a long note line that keeps going and going\n", 3000),
}

// Staged emits every file of the index with the blob's exact bytes and the lines the diff
// adds, whether it took the file from the diff or from git cat-file; the new text files come
// from the diff.
func TestStagedMatchesIndex(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", "# Memory\n\nold line\n")
	testgit.Write(t, root, "memory-bank/moved.md", strings.Repeat("a line that stays put\n", 20))
	testgit.Write(t, root, "memory-bank/kept.md", "# Kept\n")
	testgit.Commit(t, root, "init")
	testgit.Write(t, root, "memory-bank/MEMORY.md", "# Memory\n\nold line\nnew line\n")
	testgit.Git(t, root, "mv", "memory-bank/moved.md", "memory-bank/renamed.md")
	for p, c := range stagedCases {
		testgit.Write(t, root, p, c)
	}
	testgit.Git(t, root, "add", "-A")

	diff, err := exec.Command("git", "-C", root, "-c", "core.quotePath=false", "diff", "--cached", "-U0", "-M", "--no-color",
		"--src-prefix=a/", "--dst-prefix=b/", "--", "memory-bank/").Output()
	if err != nil {
		t.Fatal(err)
	}
	added := addedLines(diff)
	fromDiff := map[string]bool{}
	p := diffParser{added: map[string][]int{}, fileEnd: func(path string, content []byte) error {
		if content != nil {
			fromDiff[path] = true
			if want := stagedCases[path]; string(content) != want {
				t.Errorf("%s read back from the diff as %q, want %q", path, content, want)
			}
		}
		return nil
	}}
	if err := p.read(bufioReader(diff)); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"memory-bank/plain.md", "memory-bank/no-newline.md", "memory-bank/crlf.md", "memory-bank/blank.md", "memory-bank/headers.md",
		"memory-bank/sp ace/ünï\tcode.md", "memory-bank/details/big.md"} {
		if !fromDiff[path] {
			t.Errorf("%s, a new text file, not read back from the diff", path)
		}
	}
	for _, path := range []string{"memory-bank/binary.md", "memory-bank/empty.md", "memory-bank/renamed.md", "memory-bank/MEMORY.md"} {
		if fromDiff[path] {
			t.Errorf("%s read back from the diff, which does not hold it whole", path)
		}
	}

	got := map[string]File{}
	err = Staged(context.Background(), root, func(f File) error {
		if _, dup := got[f.Path]; dup {
			t.Errorf("%s emitted twice", f.Path)
		}
		got[f.Path] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(strings.TrimSuffix(testgit.Git(t, root, "ls-files", "-z", "--", "memory-bank/"), "\x00"), "\x00")
	if len(got) != len(ls) {
		t.Errorf("%d files emitted, the index holds %d", len(got), len(ls))
	}
	for _, path := range ls {
		f, ok := got[path]
		if !ok {
			t.Errorf("%s not emitted", path)
			continue
		}
		blob, err := exec.Command("git", "-C", root, "cat-file", "blob", ":"+path).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(f.Content) != string(blob) || f.Size != int64(len(blob)) {
			t.Errorf("%s emitted as %q (size %d), the index holds %q", path, f.Content, f.Size, blob)
		}
		if !f.AddedOnly || !reflect.DeepEqual(f.Added, added[path]) {
			t.Errorf("%s emitted with added lines %v, the diff adds %v", path, f.Added, added[path])
		}
	}
	if a := fmt.Sprint(got["memory-bank/headers.md"].Added); a != "[1 2 3 4 5 6]" {
		t.Errorf("headers.md's added lines: %v, want all six (a line \"++ …\" is added text, not a header)", a)
	}
	if fmt.Sprint(got["memory-bank/MEMORY.md"].Added) != "[4]" {
		t.Errorf("MEMORY.md's added lines: %v, want [4]", got["memory-bank/MEMORY.md"].Added)
	}
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }
