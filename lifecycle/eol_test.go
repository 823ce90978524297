package lifecycle

import (
	"strings"
	"testing"
)

// TestLineEndsDoNotChangeTheResult runs upgrade and the wrapping of an unmarked MEMORY.md on each
// input with "\n" and with "\r\n" line ends, and wants the same result but for the line ends.
// It catches build.go and upgrade.go drifting apart again: upgrade used to leave an empty line
// where it removed a stray template marker from a CRLF file, which build.go did not.
func TestLineEndsDoNotChangeTheResult(t *testing.T) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	upgrades := map[string]string{
		"v7.0":                  "# M\n\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.0 -->\n\n## Project Snapshot\n\nx\n\n## Routing Rules\n\n- topic → file\n<!-- MACHINE_BLOCK_END -->\n\n" + userBlock,
		"stray marker line":     "<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.0 -->\n## Current Focus\n- y\n<!-- MEMORY_BANK_TEMPLATE:v6.0 -->\n- z\n<!-- MACHINE_BLOCK_END -->\n" + userBlock,
		"stray marker in text":  "<!-- MACHINE_BLOCK_START -->\n## Current Focus\n- y <!-- MEMORY_BANK_TEMPLATE:v6.0 --> z\n<!-- MACHINE_BLOCK_END -->\n" + userBlock,
		"end marker after text": "<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.0 -->\n- y <!-- MACHINE_BLOCK_END -->\n" + userBlock,
	}
	for name, in := range upgrades {
		t.Run("upgrade "+name, func(t *testing.T) {
			lf, _, _, err := upgradeContent([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			got, _, _, err := upgradeContent([]byte(crlf(in)))
			if err != nil {
				t.Fatal(err)
			}
			if want := crlf(string(lf)); string(got) != want {
				t.Errorf("with CRLF line ends:\n%q\nwant\n%q", got, want)
			}
		})
	}
	wraps := map[string]string{
		"stray marker line":  "# Notes\n<!-- MEMORY_BANK_TEMPLATE:v6.0 -->\ntext\n",
		"no final line end":  "# Notes\n\ntext",
		"marker in the text": "# Notes <!-- MEMORY_BANK_TEMPLATE:v6.0 -->\n\n- a\n- b\n",
	}
	for name, in := range wraps {
		t.Run("wrap "+name, func(t *testing.T) {
			lf, n1, err := wrapUnmarked([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			got, n2, err := wrapUnmarked([]byte(crlf(in)))
			if err != nil {
				t.Fatal(err)
			}
			if want := crlf(string(lf)); string(got) != want || n1 != n2 {
				t.Errorf("with CRLF line ends (%d marks, %d with LF):\n%q\nwant\n%q", n2, n1, got, want)
			}
		})
	}
}
