package gating

import (
	"strings"
	"testing"
)

// A write that would make a memory-bank/ file larger than check accepts at commit is refused
// before its markers and secrets are scanned, with sizes that read right.
func TestBankWriteTooLarge(t *testing.T) {
	limit := DefaultPolicy().MaxBankFile
	tests := []struct {
		name  string
		size  int
		want  Verdict
		inMsg string
		scans bool
	}{
		{"at the limit", limit, Allow, "", true},
		{"one byte over", limit + 1, Block, "is 10485761 bytes, over the 10 MB", false},
		{"50 MB", 50 << 20, Block, "is 50 MB, over the 10 MB", false},
		{"50.5 MB", 50<<20 + 1<<19, Block, "is 50.5 MB, over the 10 MB", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := policyWith(ModeOff, ModeOff, ModeOff)
			fx := newFacts(bankFiles())
			s := newSession(t, p, fx, "claude")
			d := s.write("memory-bank/details/big.md", strings.Repeat("x", tc.size-1)+"\n")
			if d.Verdict != tc.want || !strings.Contains(d.Message, tc.inMsg) {
				t.Fatalf("verdict %s message %q, want %s with %q", d.Verdict, d.Message, tc.want, tc.inMsg)
			}
			if (fx.secrets > 0) != tc.scans {
				t.Fatalf("secret scans = %d, want scanned %v", fx.secrets, tc.scans)
			}
		})
	}
}
