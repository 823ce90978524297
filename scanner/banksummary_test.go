package scanner

import (
	"reflect"
	"testing"
)

// The bank summary reads back what it wrote, names with spaces included, and anything cut
// short or malformed is no summary.
func TestBankSummaryRoundTrip(t *testing.T) {
	sum := bankSummary{Key: "k1", Files: []summaryFile{
		{Rel: "memory-bank/MEMORY.md", ID: fileID{Size: 150, MTime: 1796690270394708524, CTime: 1796690270394708525, Ino: 10829789}},
		{Rel: "memory-bank/details/my notes.md", ID: fileID{Size: 45, MTime: 1, CTime: 2, Ino: 3},
			Findings: []SecretFinding{{Rule: "github-pat", Line: 3, Start: 10, End: 50}, {Rule: "custom rule", Line: 4, Start: 60, End: 70}}},
	}}
	b, ok := sum.encode()
	if !ok {
		t.Fatal("encode failed")
	}
	got, ok := decodeBankSummary(string(b))
	if !ok || !reflect.DeepEqual(got, sum) {
		t.Fatalf("decode = %+v, %v\nwant %+v", got, ok, sum)
	}
	cut := string(b[:len(b)-len("end\n")]) // whole lines, the last one missing
	for _, bad := range []string{"", cut, cut + "s 5 80 90 github-pat\n", string(b[:len(b)-1]), string(b[:len(b)/2]), "mbguard-bank-0 k1\n", string(b) + "x 1 2 3\n", string(b) + "s 1 2\n", "mbguard-bank-1 k1\ns 1 2 3 r\n"} {
		if _, ok := decodeBankSummary(bad); ok {
			t.Errorf("decodeBankSummary(%q) accepted", bad)
		}
	}
	if _, ok := (bankSummary{Key: "k", Files: []summaryFile{{Rel: "a\nb"}}}).encode(); ok {
		t.Error("a name with a newline was encoded")
	}
}
