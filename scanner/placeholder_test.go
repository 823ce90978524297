package scanner

import (
	"testing"

	"github.com/mbguard/mbguard/bank"
)

func TestCheckPlaceholders(t *testing.T) {
	tests := []struct {
		name, path, content string
		want                []int // lines
	}{
		{"snapshot left", bank.Entry, "## Project Snapshot\n\n{{snapshot}}\n", []int{3}},
		{"title in a detail file", "memory-bank/details/design/x.md", "# Design: {{title}}\n", []int{1}},
		{"inside a fence is an example", bank.Entry, "```\n{{snapshot}}\n```\n", nil},
		{"the user's own template syntax", bank.Entry, "{{ user.name }} and {{snapshot_of_x}}\n", nil},
		{"outside the bank", "docs/x.md", "{{snapshot}}\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := CheckFile(File{Path: tc.path, Size: int64(len(tc.content)), Content: []byte(tc.content)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, f := range fs {
				if f.Rule == RulePlaceholder {
					got = append(got, f.Line)
					if f.Severity != SeverityError || f.Fix == "" {
						t.Errorf("finding %+v", f)
					}
				}
			}
			if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
				t.Errorf("placeholder lines %v, want %v", got, tc.want)
			}
		})
	}
	if Rules[RulePlaceholder] == "" {
		t.Error("rule not described in Rules")
	}
}
