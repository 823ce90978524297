package bank

import (
	"math/rand/v2"
	"testing"
)

// mayOpen never says no where nearRe or tmplRe match: it only spares lines the patterns cannot
// match from running (and compiling) them. Checked on hand-picked lines and on random lines
// over the characters the patterns care about.
func TestMayOpenNeverMissesAMatch(t *testing.T) {
	lines := []string{
		"<!-- MACHINE_BLOCK_START -->", "<!--MACHINE-BLOK-END-->", "<machine block>", "<!user_block_end>",
		"<!-- \t\fmemory_bank_template: v7 -->", "<!--MEMORY_BANK_TEMPLATE v7-->", "a < b and USER_BLOCK", "<-- Machine",
		"<!---- uSeR_BlOcK_sTaRt ---->", "< !-- MACHINE", "<!-x MACHINE", "no markers here", "<<!--  MEMORY_BANK_TEMPLATE:v7.1 -->",
		"<!--\r\nUSER_BLOCK", "x <!-- machine_block_start", "<!- - MACHINE_BLOCK", "<\u017fER_BLOCK_START>", "<u\u017fer_block_start>",
		"<!-- U\u017fER", "<us", "<machin", "<!-- MEMORY_BANK_TEMPLATE:v7.1 -->",
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"<", "!", "-", " ", "\t", "M", "m", "U", "u", "MACHINE", "USER", "_BLOCK", "_START", "EMORY_BANK_TEMPLATE", ":", "v7", ">", "x", "\u017f", "s", "S", "er", "ER", "achine", "ACHINE", "machin", "e"}
	for range 20000 {
		var b []byte
		for range 1 + r.IntN(12) {
			b = append(b, alphabet[r.IntN(len(alphabet))]...)
		}
		lines = append(lines, string(b))
	}
	for _, l := range lines {
		if nearRe().MatchString(l) && !mayOpen(l, "", "") {
			t.Errorf("nearRe matches %q, mayOpen says it cannot", l)
		}
		if tmplRe().MatchString(l) && !mayOpen(l, "!--", "mM") {
			t.Errorf("tmplRe matches %q, mayOpen says it cannot", l)
		}
	}
}
