package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	. "github.com/mbguard/mbguard/scanner"
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
			b.WriteString("GITHUB_TOKEN=" + testgit.FakeGitHubToken(t) + "\n")
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
	wantOnly, err := s.Scan("memory-bank/big.md", OnlyLines([]byte(text), only))
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

func ruleLines(fs []SecretFinding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s@%d", f.Rule, f.Line))
	}
	return out
}
