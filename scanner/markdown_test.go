package scanner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
)

const (
	ms = "<!-- MACHINE_BLOCK_START -->\n"
	me = "<!-- MACHINE_BLOCK_END -->\n"
	us = "<!-- USER_BLOCK_START -->\n"
	ue = "<!-- USER_BLOCK_END -->\n"
	tv = "<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n"
)

// goodEntry is a well-formed MEMORY.md whose text documents the markers in fences and inline.
const goodEntry = ms + tv + "# Memory\n\nThe blocks look like this:\n\n```markdown\n" + ms + tv + me + us + ue + "```\n\nNever touch `<!-- USER_BLOCK_START -->`.\n" + me + us + "mine\n" + ue

func rulesOf(fs []Finding) []string {
	var rs []string
	for _, f := range fs {
		rs = append(rs, fmt.Sprintf("%s@%02d", f.Rule, f.Line))
	}
	return rs
}

func TestCheckMarkdown(t *testing.T) {
	v71 := bank.Version{Major: 7, Minor: 1}
	cases := []struct {
		name    string
		entry   bool
		minimum bank.Version
		in      string
		want    []string // rule@line, in order
	}{
		{name: "good entry with documented templates", entry: true, in: goodEntry},
		{name: "detail file without markers", in: "# Tech\n\nGo 1.26.\n"},
		{name: "detail file with one good block", in: us + "mine\n" + ue},
		{name: "unclosed start", in: ms + "x\n", want: []string{"marker-unclosed@01"}},
		{name: "end without start", in: "x\n" + ue, want: []string{"marker-unclosed@02"}},
		{name: "duplicate marker", in: ms + me + ms + me, want: []string{"marker-duplicate@03", "marker-duplicate@04"}},
		{name: "end before start", in: me + ms, want: []string{"marker-order@01"}},
		{name: "user block before machine block", in: us + ue + ms + me, want: []string{"marker-order@01"}},
		{name: "user block nested in machine block", in: ms + us + ue + me, want: []string{"marker-nesting@02"}},
		{name: "machine block nested in user block", in: us + ms + me + ue, want: []string{"marker-nesting@02"}},
		{name: "overlapping blocks", in: ms + us + me + ue, want: []string{"marker-nesting@02"}},
		{name: "near miss", in: "<!--MACHINE_BLOCK_START-->\n" + me, want: []string{"marker-malformed@01", "marker-unclosed@02"}},
		{name: "entry without user block", entry: true, in: ms + tv + me, want: []string{"entry-missing-block@01"}},
		{name: "entry without machine block", entry: true, in: tv + us + ue, want: []string{"entry-missing-block@01"}},
		{name: "entry with markers only in a fence", entry: true, in: "```\n" + ms + tv + me + us + ue + "```\n",
			want: []string{"entry-missing-block@01", "entry-missing-block@01", "template-missing@01"}},
		{name: "template missing", entry: true, in: ms + "# M\n" + me + us + ue, want: []string{"template-missing@01"}},
		{name: "template outdated", entry: true, in: ms + "<!-- MEMORY_BANK_TEMPLATE:v7.0 -->\n" + me + us + ue, want: []string{"template-outdated@02"}},
		{name: "template v7.10 is newer than v7.9", entry: true, minimum: bank.Version{Major: 7, Minor: 9}, in: ms + "<!-- MEMORY_BANK_TEMPLATE:v7.10 -->\n" + me + us + ue},
		{name: "template v7.9 is older than v7.10", entry: true, minimum: bank.Version{Major: 7, Minor: 10}, in: ms + "<!-- MEMORY_BANK_TEMPLATE:v7.9 -->\n" + me + us + ue, want: []string{"template-outdated@02"}},
		{name: "template malformed", entry: true, in: ms + "<!-- MEMORY_BANK_TEMPLATE:7.1 -->\n" + me + us + ue, want: []string{"template-malformed@02"}},
		{name: "template misplaced", entry: true, in: ms + "# M\n" + tv + me + us + ue, want: []string{"template-malformed@03"}},
		{name: "template duplicate", entry: true, in: ms + tv + "<!-- MEMORY_BANK_TEMPLATE:v7.2 -->\n" + me + us + ue, want: []string{"template-duplicate@03"}},
		{name: "template rules only for the entry", in: ms + me},
		{name: "crlf entry", entry: true, in: strings.ReplaceAll(goodEntry, "\n", "\r\n")},
		{name: "invalid utf-8 is text", entry: true, in: ms + tv + "\xff\xfe bytes\n" + me + us + ue},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			min := c.minimum
			if min == (bank.Version{}) {
				min = v71
			}
			got := CheckMarkdown("memory-bank/x.md", []byte(c.in), c.entry, min)
			if strings.Join(rulesOf(got), " ") != strings.Join(c.want, " ") {
				t.Errorf("findings = %v, want %v\n%+v", rulesOf(got), c.want, got)
			}
			for _, f := range got {
				if f.Message == "" || f.Fix == "" || f.Path != "memory-bank/x.md" || f.Severity == "" {
					t.Errorf("incomplete finding %+v", f)
				}
			}
		})
	}
}

func TestMalformedSuggestsTheMarker(t *testing.T) {
	got := CheckMarkdown("m.md", []byte("<!--USER_BLOCK_END-->\n"), false, bank.CurrentTemplate)
	if len(got) != 1 || !strings.Contains(got[0].Fix, "<!-- USER_BLOCK_END -->") {
		t.Fatalf("want a suggestion of the exact marker, got %+v", got)
	}
}
