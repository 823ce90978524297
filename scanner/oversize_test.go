package scanner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
)

// smallSegments makes ScanReader's segments tiny, so that a short text crosses many edges.
func smallSegments(t *testing.T, seg, overlap int) {
	t.Helper()
	oldSeg, oldOverlap := streamSegment, streamOverlap
	streamSegment, streamOverlap = seg, overlap
	t.Cleanup(func() { streamSegment, streamOverlap = oldSeg, oldOverlap })
}

// secretsNote is a note of about n bytes with secrets everywhere: one-line tokens, multi-line
// curl commands across blank lines, and base64 that the decoder opens.
func secretsNote(t testing.TB, n int, rnd *rand.Rand) string {
	var b strings.Builder
	cases := multiLineCases()
	names := make([]string, 0, len(cases))
	for k := range cases {
		names = append(names, k)
	}
	for i := 0; b.Len() < n; i++ {
		b.WriteString(filler(200+rnd.IntN(900), rnd))
		switch i % 3 {
		case 0:
			b.WriteString("GITHUB_TOKEN=" + fakeGitHubToken(t) + "\n")
		case 1:
			b.WriteString(cases[names[rnd.IntN(len(names))]])
		case 2:
			b.WriteString("encoded: Z2hwX3Y1NXE4V0lUOU1lWW9LN3hDbzdQTkFPSm9UR0VBN1FyM3hxaw==\n")
		}
	}
	return b.String()
}

// The split cases: whatever the segment edges, the stream finds what Scan finds on the whole.
func TestScanReaderMatchesScan(t *testing.T) {
	s := readySecrets(t, "")
	rnd := rand.New(rand.NewPCG(9, 10))
	text := secretsNote(t, 40000, rnd)
	want, err := s.Scan("memory-bank/big.md", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 20 {
		t.Fatalf("only %d findings in the note: it tests little", len(want))
	}
	// A commit that adds the secrets and three in four lines of prose (a private key with a
	// line left out would match up to the next key's end, further than these overlaps).
	var only []int
	for i, l := range strings.Split(text, "\n") {
		if !strings.Contains(l, " the ") || rnd.IntN(4) != 0 {
			only = append(only, i+1)
		}
	}
	wantOnly, err := s.Scan("memory-bank/big.md", onlyLines([]byte(text), only))
	if err != nil {
		t.Fatal(err)
	}
	// The overlap covers the longest match here (curl-auth-header from a "curl" six long lines up).
	sizes := [][2]int{{1500, 4096}, {5000, 4096}, {9000, 8192}}
	if raceOn {
		sizes = sizes[:1]
	}
	for _, size := range sizes {
		t.Run(fmt.Sprintf("segment %d overlap %d", size[0], size[1]), func(t *testing.T) {
			smallSegments(t, size[0], size[1])
			got, err := s.ScanReader("memory-bank/big.md", strings.NewReader(text), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("stream found %d secrets, Scan %d\n got: %v\nwant: %v", len(got), len(want), got, want)
			}
			got, err = s.ScanReader("memory-bank/big.md", strings.NewReader(text), only)
			if err != nil {
				t.Fatal(err)
			}
			// Offsets differ (the stream's are the file's), rules and lines must not.
			if g, w := ruleLines(got), ruleLines(wantOnly); !reflect.DeepEqual(g, w) {
				t.Errorf("stream of added lines found %v\nScan found %v", g, w)
			}
		})
	}
}

// A 64 MB .md (sparse: no disk is spent) is named too large by check --all and check
// --staged with its exact size, once, and Disk never reads it: the test counts the bytes
// readFile returns per file.
func TestCheckTooLargeFileNotRead(t *testing.T) {
	root := testgit.New(t)
	if err := os.MkdirAll(filepath.Join(root, bank.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, bank.Dir, "big.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(root, bank.Dir, "small.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testgit.Git(t, root, "add", bank.Dir)
	read := map[string]int{}
	old := readFile
	readFile = func(name string) ([]byte, error) {
		b, err := old(name)
		read[filepath.Base(name)] += len(b)
		return b, err
	}
	t.Cleanup(func() { readFile = old })
	o := Options{Minimum: bank.CurrentTemplate, Secrets: NewSecrets(root)}
	for name, produce := range map[string]func(context.Context, func(File) error) error{
		"all": func(ctx context.Context, emit func(File) error) error {
			return Disk(ctx, root, []string{bank.Dir}, emit)
		},
		"staged": func(ctx context.Context, emit func(File) error) error { return Staged(ctx, root, emit) },
	} {
		t.Run(name, func(t *testing.T) {
			fs, err := Check(context.Background(), o, func(emit func(File) error) error { return produce(context.Background(), emit) })
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				if f.Path == bank.Dir+"/big.md" {
					got = append(got, f.Rule+": "+f.Message)
				}
			}
			want := []string{RuleTooLarge + ": is 64.0 MB, over the 10 MB limit (10485760 bytes); not read, so not checked"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("findings for big.md = %q, want %q", got, want)
			}
		})
	}
	if read["big.md"] != 0 || read["small.md"] == 0 {
		t.Errorf("bytes read per file: %v; want big.md unread and small.md read", read)
	}
}

func TestTooLargeMessage(t *testing.T) {
	for size, want := range map[int64]string{
		MaxFileSize + 1:              "is 10485761 bytes, over the 10 MB limit (10485760 bytes); not read, so not checked",
		MaxFileSize + MaxFileSize/25: "is 10.4 MB, over the 10 MB limit (10485760 bytes); not read, so not checked",
		3 * MaxFileSize:              "is 30.0 MB, over the 10 MB limit (10485760 bytes); not read, so not checked",
	} {
		if got := tooLargeMessage(size); got != want {
			t.Errorf("tooLargeMessage(%d) = %q, want %q", size, got, want)
		}
	}
}

func ruleLines(fs []SecretFinding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s@%d", f.Rule, f.Line))
	}
	return out
}
