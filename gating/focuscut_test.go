package gating

import (
	"strings"
	"testing"
)

// A Current Focus line longer than the anchor block allows is cut between words: a token the
// cut would split is left out whole, so no half of a secret (which the redaction of the block
// could no longer recognise) reaches the model; a line of one long word shows none of it.
func TestCurrentFocusCutsBetweenWords(t *testing.T) {
	tok := "ghp_" + strings.Repeat("Ab3x", 9)
	for _, pad := range []int{120, 130, 140, 150, 158} {
		line := "- " + strings.Repeat("w", pad-3) + " " + tok + " and more words after it"
		mem := "## Current Focus\n" + line + "\n"
		got := CurrentFocus(mem)
		if len(got) != 1 || !strings.HasSuffix(got[0], "…") {
			t.Fatalf("pad %d: CurrentFocus = %q, want one cut line", pad, got)
		}
		if strings.Contains(got[0], "ghp_") && !strings.Contains(got[0], tok) {
			t.Errorf("pad %d: %q shows part of the token", pad, got[0])
		}
	}
	if got := CurrentFocus("## Current Focus\n" + strings.Repeat(tok, 6) + "\n"); len(got) != 1 || got[0] != "…" {
		t.Errorf("one long word: CurrentFocus = %q, want only the ellipsis", got)
	}
	short := "- ship it " + tok
	if got := CurrentFocus("## Current Focus\n" + short + "\n"); len(got) != 1 || got[0] != short {
		t.Errorf("a short line: CurrentFocus = %q, want it whole (the redaction replaces the token)", got)
	}
}
