package bank

import (
	"strings"
	"testing"
)

// Fence agrees with ScanMarkers on what is code; lifecycle's link rewriting and heading
// detection read the bank through it.
func TestFence(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		code string // one char a line: c code (or a fence line), t text
	}{
		"backticks":               {"a\n```go\nx\n```\nb", "tccct"},
		"tildes need as many":     {"~~~~\nx\n~~~\ny\n~~~~\nz", "ccccct"},
		"inline code is no fence": {"```a`b```\nx", "tt"},
		"in a list item":          {"- ```\n  [l](x.md)\n  ```\nafter", "ccct"},
		"in a block quote":        {"> ```\n> x\n> ```\ny", "ccct"},
		"crlf":                    {"```\r\nx\r\n```\r\ny", "ccct"},
		"other char closes not":   {"```\nx\n~~~\ny\n```\nz", "ccccct"},
	} {
		var f Fence
		var got strings.Builder
		for _, l := range strings.Split(tc.text, "\n") {
			if f.Line([]byte(l)) {
				got.WriteByte('c')
			} else {
				got.WriteByte('t')
			}
		}
		if got.String() != tc.code {
			t.Errorf("%s: %q gives %s, want %s", name, tc.text, got.String(), tc.code)
		}
	}
}
