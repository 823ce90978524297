package scanner

import (
	"encoding/hex"
	"strings"
)

// A hex dump (`xxd`, `od -An -tx1`, `od -tx2`, `hexdump -C`) shows a secret's bytes split into
// groups with spaces between, line offsets in front and, for xxd and hexdump -C, the same bytes
// again as text in a column on the right. dumpView reads such lines once, in one pass over the
// text, into streams a secret's hex (or text) is searched in, each character remembering where
// in the text it came from, so the match can be replaced there.

// dumpStream is one view of the dump lines: the characters, and each one's offset in the text.
type dumpStream struct {
	b   []byte
	at  []int32
	hay string // b as a string, made once for the searches
}

func (d *dumpStream) add(c byte, at int) {
	d.b = append(d.b, c)
	d.at = append(d.at, int32(at))
}

// dumpView is a text's dump lines in three streams: the hex digits in the order printed
// (lower case), the same with each group's bytes reversed (od -tx2/-tx4 and hexdump print
// little-endian words), and the character column.
type dumpView struct {
	hex, swapped, text dumpStream
	groups             [][2]int // one line's groups, kept between lines
}

// readDump returns the dump view of s, or nil when no line of s looks like a dump line.
func readDump(s string) *dumpView {
	var v *dumpView
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		if v == nil {
			v = &dumpView{}
			if !v.line(s, start, end) {
				v = nil
			} else {
				// the rest of the text is read into the same streams: room for all of it
				rest := len(s) - start
				for _, d := range []*dumpStream{&v.hex, &v.swapped, &v.text} {
					d.b = append(make([]byte, 0, rest), d.b...)
					d.at = append(make([]int32, 0, rest), d.at...)
				}
			}
		} else {
			v.line(s, start, end)
		}
		start = end + 1
	}
	return v
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// dumpToken returns the bounds of the next space-separated token of s at or after i, before end.
func dumpToken(s string, i, end int) (int, int) {
	for i < end && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	j := i
	for j < end && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' {
		j++
	}
	return i, j
}

// line reads s[start:end] as a dump line — an optional offset (`00000010:`, or a long number
// before shorter groups), then groups of hex digit pairs of one length (the last may be
// shorter), then an optional character column (`|…|` for hexdump -C) — and adds it to the
// streams. It reports whether it was one: two groups, or one after an offset.
func (v *dumpView) line(s string, start, end int) bool {
	offset, i := dumpOffset(s, start, end)
	colon := offset && s[i-1] == ':' // xxd's offset; hexdump -C's has none
	groups, i := dumpGroups(s, i, end, v.groups[:0], !colon)
	v.groups = groups
	if len(groups) < 2 && !(offset && len(groups) == 1) {
		return false
	}
	v.addGroups(s, groups)
	v.addText(s, i, end)
	return true
}

// dumpOffset reports whether s[start:end] opens with an offset (`00000010:`, or a long hex
// number before a shorter one), and where the groups begin.
func dumpOffset(s string, start, end int) (bool, int) {
	i, j := dumpToken(s, start, end)
	if j > i && s[j-1] == ':' && allHex(s[i:j-1]) {
		return true, j
	}
	if j-i >= 6 && allHex(s[i:j]) {
		if a, b := dumpToken(s, j, end); b > a && b-a < j-i && allHex(s[a:b]) {
			return true, j
		}
	}
	return false, i
}

// dumpGroups appends to groups the bounds of the groups of hex digit pairs of one length (the
// last may be shorter) from i on, and returns them with where they end.
func dumpGroups(s string, i, end int, groups [][2]int, midGap bool) ([][2]int, int) {
	glen := 0
	for {
		a, b := dumpToken(s, i, end)
		n := b - a
		if n == 0 || n%2 != 0 || !allHex(s[a:b]) || glen != 0 && n > glen {
			return groups, i
		}
		if glen != 0 && a-i >= 2 && !(midGap && glen == 2 && len(groups) == 8) {
			// xxd parts its groups by one space and the character column by two: what follows
			// two spaces is that column (`41412067  AA g`), even where it looks like hex; only
			// hexdump -C parts its one-byte groups by two spaces, once, after the eighth
			return groups, i
		}
		groups = append(groups, [2]int{a, b})
		i = b
		if glen == 0 {
			glen = n
		} else if n < glen {
			return groups, i // xxd's last, partial group
		}
	}
}

// addGroups adds the hex digits of groups to the streams, as read and with the bytes of each
// group in reverse order.
func (v *dumpView) addGroups(s string, groups [][2]int) {
	for _, g := range groups {
		for k := g[0]; k < g[1]; k++ {
			v.hex.add(lower(s[k]), k)
		}
		for k := g[1] - 2; k >= g[0]; k -= 2 {
			v.swapped.add(lower(s[k]), k)
			v.swapped.add(lower(s[k+1]), k+1)
		}
	}
}

// addText adds the character column, after the spaces that end the hex area at i, to the text
// stream.
func (v *dumpView) addText(s string, i, end int) {
	a := i
	for a < end && (s[a] == ' ' || s[a] == '\t') {
		a++
	}
	b := end
	if b > a && s[b-1] == '\r' {
		b--
	}
	if b-a >= 2 && s[a] == '|' && s[b-1] == '|' {
		a, b = a+1, b-1
	}
	for k := a; k < b; k++ {
		v.text.add(s[k], k)
	}
}

// mark sets marks[at] for every character of every occurrence of want in d.
func (d *dumpStream) mark(want string, marks []bool) bool {
	if want == "" {
		return false
	}
	found := false
	if d.hay == "" {
		d.hay = string(d.b)
	}
	hay := d.hay
	// the search looks for a short head (strings.Index has a vector path for it) and checks
	// the rest where it is found
	head := want[:min(len(want), 32)]
	for off := 0; ; {
		k := strings.Index(hay[off:], head)
		if k < 0 {
			return found
		}
		k += off
		if !strings.HasPrefix(hay[k:], want) {
			off = k + 1
			continue
		}
		for x := k; x < k+len(want); x++ {
			marks[d.at[x]] = true
		}
		found = true
		off = k + len(want)
	}
}

// redactDump replaces, in s, every secret of secrets its dump lines show: its bytes in hex (in
// either byte order within a group) and its text in the character column. Each run of marked
// characters within one line, spaces between them included, becomes one "REDACTED".
func redactDump(s string, secrets []string) string {
	v := readDump(s)
	if v == nil {
		return s
	}
	marks := v.markSecrets(len(s), secrets)
	if marks == nil {
		return s
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); {
		if !marks[i] {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString("REDACTED")
		changed = true
		i = markedRunEnd(s, marks, i)
	}
	if !changed {
		return s
	}
	return b.String()
}

// markSecrets marks, in a text of n bytes, every character of v's streams that shows a secret
// of secrets; nil when no secret is long enough to search.
func (v *dumpView) markSecrets(n int, secrets []string) []bool {
	var marks []bool
	for _, sec := range secrets {
		if len(sec) < minDump {
			continue
		}
		if marks == nil {
			marks = make([]bool, n)
		}
		h := hex.EncodeToString([]byte(sec))
		v.hex.mark(h, marks)
		v.swapped.mark(h, marks)
		v.text.mark(sec, marks)
	}
	return marks
}

// markedRunEnd returns the end of the run starting at the marked s[i]: marked characters, and
// the spaces between two of them on one line.
func markedRunEnd(s string, marks []bool, i int) int {
	j := i + 1
	for {
		for j < len(s) && marks[j] {
			j++
		}
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k > j && k < len(s) && marks[k] {
			j = k
			continue
		}
		return j
	}
}

// minDump is the shortest secret text searched in a dump: a shorter one could match bytes
// that have nothing to do with it.
const minDump = 8
