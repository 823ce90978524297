package bank

import (
	"reflect"
	"testing"
)

// FuzzScanMarkers checks that the marker scanner never panics, is deterministic, reports
// markers in file order at offsets that hold exactly the marker text, and that ParseBlocks
// and UserBlock agree with it.
func FuzzScanMarkers(f *testing.F) {
	for _, s := range []string{
		"<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n",
		"```\n<!-- USER_BLOCK_START -->\n```\n`<!-- USER_BLOCK_END -->`",
		"<!--MACHINE_BLOCK_START-->\r\n~~~~\n~~~\n<!-- user_blok_end -->",
		"- ```\n  <!-- USER_BLOCK_START -->\n> ```",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s1 := ScanMarkers(b)
		s2 := ScanMarkers(append([]byte(nil), b...))
		if !reflect.DeepEqual(s1, s2) {
			t.Fatalf("not deterministic:\n%+v\n%+v", s1, s2)
		}
		last := -1
		for _, m := range s1.Markers {
			if m.Offset < last || m.End > len(b) || string(b[m.Offset:m.End]) != m.Kind.String() || m.Line < 1 {
				t.Fatalf("bad marker %+v", m)
			}
			last = m.End
		}
		blocks, ok := ParseBlocks(b)
		u, has := UserBlock(b)
		if has && (!ok || !blocks.HasUser || string(u) != string(b[blocks.User.Start:blocks.User.End])) {
			t.Fatalf("UserBlock and ParseBlocks disagree")
		}
		for _, tm := range s1.Templates {
			if tm.Valid && tm.Version.String() != "v"+tm.Raw[1:] && tm.Raw[0] == 'v' {
				if _, err := ParseVersion(tm.Raw); err != nil {
					t.Fatalf("valid mark with unparsable version %q", tm.Raw)
				}
			}
		}
	})
}
