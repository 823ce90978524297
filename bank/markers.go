package bank

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// Dir is the memory bank's directory, relative to the repository root.
const Dir = "memory-bank"

// Entry is the memory bank's single entry file, relative to the repository root.
const Entry = "memory-bank/MEMORY.md"

// MarkerKind identifies one of the four block markers.
type MarkerKind int

// The four markers, in the order a well-formed file has them.
const (
	MachineStart MarkerKind = iota
	MachineEnd
	UserStart
	UserEnd
)

var markerText = [...]string{
	MachineStart: "<!-- MACHINE_BLOCK_START -->",
	MachineEnd:   "<!-- MACHINE_BLOCK_END -->",
	UserStart:    "<!-- USER_BLOCK_START -->",
	UserEnd:      "<!-- USER_BLOCK_END -->",
}

// String returns the canonical marker text.
func (k MarkerKind) String() string {
	if k < MachineStart || k > UserEnd {
		return "<!-- ? -->"
	}
	return markerText[k]
}

// Name is the marker's bare name, such as "MACHINE_BLOCK_START", for messages.
func (k MarkerKind) Name() string {
	return strings.TrimSuffix(strings.TrimPrefix(k.String(), "<!-- "), " -->")
}

// IsStart reports whether k opens a block.
func (k MarkerKind) IsStart() bool { return k == MachineStart || k == UserStart }

// Pair returns the other marker of k's block: MachineStart ↔ MachineEnd, UserStart ↔ UserEnd.
func (k MarkerKind) Pair() MarkerKind { return k ^ 1 }

// Marker is one well-formed marker found outside code.
type Marker struct {
	Kind   MarkerKind
	Line   int // 1-based
	Offset int // byte offset of the marker's first byte
	End    int // byte offset just past the marker
}

// NearMiss is text outside code that looks like a marker but is not well formed, such as
// "<!--MACHINE_BLOCK_START-->" or "<!-- USER_BLOCK_STRAT -->".
type NearMiss struct {
	Line    int
	Text    string     // the offending text, trimmed
	Suggest MarkerKind // the marker it most likely meant
}

// Scan is the result of scanning one file's markers. Markers are in file order.
type Scan struct {
	Markers   []Marker
	NearMiss  []NearMiss
	Templates []TemplateMark
}

// The two patterns are compiled on first use: most processes that link this package (every
// hook call) scan no marker.
var (
	// nearRe finds anything that names a block in an HTML-comment-ish way, including common
	// misspellings of BLOCK, START and END; exact markers are blanked out before it runs.
	nearRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)<!?-*\s*(MACHINE|USER)[_ -]?(BLOCK|BLOK|BLCOK|BOLCK|BLOKC)[_ -]?([A-Z]*)\s*-*>?`)
	})
	// tmplRe is lenient on spacing and the colon so that near misses become "malformed", not
	// "missing": a user who wrote the mark deserves to hear what is wrong with it.
	tmplRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)<!--\s*MEMORY_BANK_TEMPLATE\s*(:?)\s*([^\s>]*?)\s*-*>`)
	})
)

// ScanMarkers finds the block markers and template-version marks of content, skipping fenced
// code blocks (``` and ~~~, CommonMark rules for fence length, also inside list items and
// block quotes) and inline code spans. CRLF line endings are accepted. It never fails:
// anything odd is reported as a NearMiss or an invalid TemplateMark.
func ScanMarkers(content []byte) Scan {
	var s Scan
	var fence Fence
	line := 0
	for off := 0; off < len(content); {
		line++
		next := len(content)
		raw := content[off:]
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			raw = raw[:i]
			next = off + i + 1
		}
		raw = bytes.TrimSuffix(raw, []byte{'\r'})
		if fence.Line(raw) {
			off = next
			continue
		}
		if bytes.ContainsAny(raw, "<>") {
			s.scanLine(string(raw), off, line)
		}
		off = next
	}
	return s
}

// Fence follows fenced code blocks through a Markdown text, line by line, by the rules
// ScanMarkers uses (``` and ~~~, CommonMark fence lengths, also inside list items and block
// quotes), so every reader of the bank agrees on what is code. The zero value is outside.
type Fence struct {
	open string // the open fence's run ("```" or "~~~~"), empty when outside
}

// Line takes the next line (without its newline; a trailing \r is ignored) and reports
// whether it is code: a fence line itself, or a line inside fenced code.
func (f *Fence) Line(line []byte) bool {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if run, rest := fenceLine(line); run != "" {
		switch {
		case f.open == "":
			if run[0] == '`' && bytes.IndexByte(rest, '`') >= 0 {
				break // an info string may not hold a backtick: this is inline code
			}
			f.open = run
			return true
		case run[0] == f.open[0] && len(run) >= len(f.open) && len(bytes.TrimSpace(rest)) == 0:
			f.open = ""
			return true
		}
	}
	return f.open != ""
}

// fenceLine returns the fence run that starts line (after indentation and block-quote or
// list prefixes) and what follows it; f is empty when the line is no fence.
func fenceLine(line []byte) (f string, rest []byte) {
	s := line[containerPrefix(line):]
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return "", nil
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return "", nil
	}
	return string(s[:n]), s[n:]
}

// containerPrefix is the length of the indentation, block-quote and list-item markers before
// a line's content.
func containerPrefix(line []byte) int {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == ' ' || c == '\t' || c == '>' {
			i++
			continue
		}
		// list item prefixes: "-", "*", "+" or "1." / "1)" followed by a space
		if (c == '-' || c == '*' || c == '+') && i+1 < len(line) && line[i+1] == ' ' {
			i += 2
			continue
		}
		if n := orderedItem(line[i:]); n > 0 {
			i += n
			continue
		}
		break
	}
	return i
}

// orderedItem is the length of an ordered list item's marker ("1. ", "12) ") at the start of
// s, or 0.
func orderedItem(s []byte) int {
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j > 0 && j+1 < len(s) && (s[j] == '.' || s[j] == ')') && s[j+1] == ' ' {
		return j + 2
	}
	return 0
}

// scanLine records markers on one line outside fences, ignoring inline code spans.
func (s *Scan) scanLine(text string, lineOff, line int) {
	visible := maskInlineCode(text)
	var found []Marker
	for k := MachineStart; k <= UserEnd; k++ {
		m := markerText[k]
		for from := 0; ; {
			i := strings.Index(visible[from:], m)
			if i < 0 {
				break
			}
			at := from + i
			found = append(found, Marker{Kind: k, Line: line, Offset: lineOff + at, End: lineOff + at + len(m)})
			from = at + len(m)
		}
	}
	if len(found) > 0 {
		sortMarkers(found)
		s.Markers = append(s.Markers, found...)
		// blank exact markers so the near-miss pass does not report them
		b := []byte(visible)
		for _, m := range found {
			for i := m.Offset - lineOff; i < m.End-lineOff; i++ {
				b[i] = ' '
			}
		}
		visible = string(b)
	}
	// the patterns run only on lines they can match: most lines of a bank match neither, and
	// a hook's process would otherwise compile both
	if mayOpen(visible, "", "") {
		for _, loc := range nearRe().FindAllStringSubmatchIndex(visible, -1) {
			frag := visible[loc[0]:loc[1]]
			if !strings.ContainsAny(frag, "<>") {
				continue // a bare word such as USER_BLOCK in prose is not a marker attempt
			}
			s.NearMiss = append(s.NearMiss, NearMiss{Line: line, Text: strings.TrimSpace(frag), Suggest: guess(visible[loc[2]:loc[3]], visible[loc[6]:loc[7]])})
		}
	}
	if !mayOpen(visible, "!--", "mM") {
		return
	}
	for _, loc := range tmplRe().FindAllStringSubmatchIndex(visible, -1) {
		m := parseTemplateMark(visible[loc[4]:loc[5]], line)
		if loc[3] == loc[2] || visible[loc[0]:loc[1]] != strings.TrimSpace(visible[loc[0]:loc[1]]) || !strings.HasPrefix(visible[loc[0]:loc[1]], "<!-- MEMORY_BANK_TEMPLATE:") {
			m.Valid = false // no colon, wrong case or spacing: well meant, not well formed
		}
		s.Templates = append(s.Templates, m)
	}
}

// mayOpen reports whether text has a '<', then open, then white space (\s: tab, newline, form
// feed, carriage return, space), then what the pattern names next: where nearRe or tmplRe can
// start a match. With open "" it is nearRe's test ("!?-*", then MACHINE or USER, case-folded:
// of their letters only S folds to anything else, ſ); otherwise tmplRe's, which needs one of
// first (the M of MEMORY_BANK_TEMPLATE). Most lines of a bank hold neither, and the patterns
// are costly to compile.
func mayOpen(text, open, first string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return false
		}
		i += j
		k, ok := skipOpen(text, i+1, open)
		if !ok {
			continue
		}
		for k < len(text) && strings.IndexByte("\t\n\f\r ", text[k]) >= 0 {
			k++
		}
		if open == "" && (hasFoldPrefix(text[k:], "machine") || startsUser(text[k:])) ||
			open != "" && k < len(text) && strings.IndexByte(first, text[k]) >= 0 {
			return true
		}
	}
}

// skipOpen returns where the opening after a '<' ends, from k: open itself, or with open ""
// nearRe's "!?-*"; false when text does not have open there.
func skipOpen(text string, k int, open string) (int, bool) {
	if open != "" {
		return k + len(open), strings.HasPrefix(text[k:], open)
	}
	if k < len(text) && text[k] == '!' {
		k++
	}
	for k < len(text) && text[k] == '-' {
		k++
	}
	return k, true
}

// hasFoldPrefix reports whether text starts with lower (ASCII letters without another fold)
// in any case.
func hasFoldPrefix(text, lower string) bool {
	return len(text) >= len(lower) && strings.EqualFold(text[:len(lower)], lower)
}

// startsUser reports whether text starts with USER in any case, its S also as ſ.
func startsUser(text string) bool {
	if len(text) == 0 || text[0]|0x20 != 'u' {
		return false
	}
	rest := text[1:]
	switch {
	case strings.HasPrefix(rest, "ſ"):
		rest = rest[len("ſ"):]
	case len(rest) > 0 && rest[0]|0x20 == 's':
		rest = rest[1:]
	default:
		return false
	}
	return hasFoldPrefix(rest, "er")
}

func guess(block, part string) MarkerKind {
	user := strings.EqualFold(block, "USER")
	end := strings.HasPrefix(strings.ToUpper(part), "E")
	switch {
	case user && end:
		return UserEnd
	case user:
		return UserStart
	case end:
		return MachineEnd
	default:
		return MachineStart
	}
}

func sortMarkers(ms []Marker) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].Offset < ms[j-1].Offset; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// maskInlineCode replaces backtick code spans (with their backticks) by spaces, keeping
// offsets. An unmatched backtick run is literal text, as in CommonMark.
func maskInlineCode(text string) string {
	if !strings.Contains(text, "`") {
		return text
	}
	b := []byte(text)
	for _, sp := range CodeSpans(text) {
		for k := sp[2]; k < sp[3]; k++ {
			b[k] = ' '
		}
	}
	return string(b)
}

// CodeSpans returns [innerStart, innerEnd, outerStart, outerEnd] for every inline code span of
// text (CommonMark: a run of n backticks closed by the next run of exactly n).
func CodeSpans(text string) [][4]int {
	var out [][4]int
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		closeAt := -1
		for j := i + n; j < len(text); {
			if text[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(text) && text[j+m] == '`' {
				m++
			}
			if m == n {
				closeAt = j
				break
			}
			j += m
		}
		if closeAt < 0 {
			i += n
			continue
		}
		out = append(out, [4]int{i + n, closeAt, i, closeAt + n})
		i = closeAt + n
	}
	return out
}

// Blocks is the block structure of a well-formed file.
type Blocks struct {
	// Machine and User are the byte ranges of each block's content, between its markers.
	Machine, User Span
	HasMachine    bool
	HasUser       bool
}

// Span is a half-open byte range.
type Span struct{ Start, End int }

// ParseBlocks returns the blocks of content when its markers are well formed: each marker at
// most once, START before END, blocks neither nested nor overlapping. ok is false otherwise
// (scanner reports why).
func ParseBlocks(content []byte) (b Blocks, ok bool) {
	return blocksOf(ScanMarkers(content).Markers)
}

func blocksOf(markers []Marker) (b Blocks, ok bool) {
	var seen [4][]Marker
	for _, m := range markers {
		seen[m.Kind] = append(seen[m.Kind], m)
	}
	for _, v := range seen {
		if len(v) > 1 {
			return b, false
		}
	}
	pair := func(s, e MarkerKind) (span Span, has, good bool) {
		if len(seen[s]) == 0 && len(seen[e]) == 0 {
			return Span{}, false, true
		}
		if len(seen[s]) == 0 || len(seen[e]) == 0 || seen[s][0].Offset > seen[e][0].Offset {
			return Span{}, false, false
		}
		return Span{seen[s][0].End, seen[e][0].Offset}, true, true
	}
	var good bool
	if b.Machine, b.HasMachine, good = pair(MachineStart, MachineEnd); !good {
		return b, false
	}
	if b.User, b.HasUser, good = pair(UserStart, UserEnd); !good {
		return b, false
	}
	if b.HasMachine && b.HasUser {
		// the two blocks, markers included, must be disjoint
		mS, mE := seen[MachineStart][0].Offset, seen[MachineEnd][0].End
		uS, uE := seen[UserStart][0].Offset, seen[UserEnd][0].End
		if mS < uE && uS < mE {
			return b, false
		}
	}
	return b, true
}

// UserBlock returns the bytes between USER_BLOCK_START and USER_BLOCK_END, when well formed.
func UserBlock(content []byte) ([]byte, bool) {
	b, ok := ParseBlocks(content)
	if !ok || !b.HasUser {
		return nil, false
	}
	return content[b.User.Start:b.User.End], true
}
