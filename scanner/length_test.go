package scanner

import (
	"strings"
	"testing"
)

func TestCheckEntryLength(t *testing.T) {
	long := strings.Repeat("line of memory\n", 100) // 1,500 characters
	tests := []struct {
		name     string
		path     string
		content  string
		max      int
		wantLine int // 0: no finding
	}{
		{"under the limit", "memory-bank/MEMORY.md", long, 1500, 0},
		{"over the limit", "memory-bank/MEMORY.md", long, 1499, 100},
		{"limit falls on line 11", "memory-bank/MEMORY.md", long, 150, 11},
		{"characters, not bytes", "memory-bank/MEMORY.md", strings.Repeat("é", 100), 100, 0},
		{"multibyte over", "memory-bank/MEMORY.md", strings.Repeat("é\n", 100), 199, 100},
		{"only MEMORY.md", "memory-bank/details/tech.md", long, 10, 0},
		{"off", "memory-bank/MEMORY.md", long, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := CheckEntryLength(tc.path, []byte(tc.content), tc.max)
			if tc.wantLine == 0 {
				if len(fs) != 0 {
					t.Fatalf("unexpected %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Rule != RuleEntryTooLong || fs[0].Severity != SeverityWarning || fs[0].Line != tc.wantLine || !strings.Contains(fs[0].Fix, "details/") {
				t.Fatalf("got %+v, want one warning at line %d", fs, tc.wantLine)
			}
			if Failing(fs) {
				t.Error("a warning fails the check")
			}
		})
	}
}
