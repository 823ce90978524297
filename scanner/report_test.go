package scanner

import (
	"bytes"
	"strings"
	"testing"
)

// A file name is printed as a terminal may show it: one that holds control characters or bytes
// that are not UTF-8 is quoted, so it cannot erase a line, colour the output or forge a finding.
func TestWriteTextQuotesHostilePaths(t *testing.T) {
	tests := []struct{ path, want string }{
		{"memory-bank/notes.md", "memory-bank/notes.md"},
		{"memory-bank/日本語 notes.md", "memory-bank/日本語 notes.md"},
		{"memory-bank/e\x1b[2Kvil.json", `"memory-bank/e\x1b[2Kvil.json"`},
		{"memory-bank/a\nmemory-bank/MEMORY.md:1 fake.json", `"memory-bank/a\nmemory-bank/MEMORY.md:1 fake.json"`},
		{"memory-bank/bad\xffname.bin", `"memory-bank/bad\xffname.bin"`},
		{"memory-bank/c1\u009bx.md", `"memory-bank/c1\u009bx.md"`},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		if err := WriteText(&b, []Finding{{Path: tc.path, Line: 3, Rule: RuleNonMD, Message: "m " + tc.path, Fix: "git rm --cached " + tc.path}}); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(b.String(), "\n")
		if !strings.HasPrefix(first, tc.want+":3 ") {
			t.Errorf("%q printed as %q, want it to start with %q", tc.path, first, tc.want+":3 ")
		}
		if strings.Count(b.String(), "\n") != 2 || strings.ContainsAny(b.String(), "\x1b\u009b") {
			t.Errorf("%q: the output is not exactly one finding of two clean lines: %q", tc.path, b.String())
		}
	}
}
