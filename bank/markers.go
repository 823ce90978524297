package bank

import (
	"bytes"
	"regexp"
	"strings"
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
func (k MarkerKind) String() string { return markerText[k] }

// Marker is one well-formed marker found outside code.
type Marker struct {
	Kind   MarkerKind
	Line   int // 1-based
	Offset int // byte offset of the marker's first byte
	End    int // byte offset just past the marker
}

// NearMiss is a line outside code that looks like a marker but is not well formed, such as
// "<!--MACHINE_BLOCK_START-->" or "<!-- USER_BLOCK_STRAT -->".
type NearMiss struct {
	Line    int
	Text    string     // the offending text, trimmed
	Suggest MarkerKind // the marker it most likely meant
}

// Scan is the result of scanning one file's markers.
type Scan struct {
	Markers   []Marker
	NearMiss  []NearMiss
	Templates []TemplateMark
}

var (
	// nearRe finds anything that mentions a block name in an HTML-comment-ish way.
	nearRe = regexp.MustCompile(`(?i)<!?-*\s*(MACHINE|USER)[_ -]?BLOCK[_ -]?([A-Z]*)\s*-*>?`)
	tmplRe = regexp.MustCompile(`<!--\s*MEMORY_BANK_TEMPLATE:\s*([^\s>]*)\s*-->`)
)

// ScanMarkers finds the block markers and template-version marks of content, skipping fenced
// code blocks (``` and ~~~, CommonMark rules for fence length) and inline code spans.
// It never fails: anything odd is reported as a NearMiss.
func ScanMarkers(content []byte) Scan {
	var s Scan
	var fence string // the open fence's run ("```" or "~~~~"), empty when outside
	off := 0
	line := 0
	for off < len(content) || (off == len(content) && line == 0 && len(content) > 0) {
		line++
		end := bytes.IndexByte(content[off:], '\n')
		var raw []byte
		next := len(content)
		if end >= 0 {
			raw = content[off : off+end]
			next = off + end + 1
		} else {
			raw = content[off:]
		}
		text := strings.TrimRight(string(raw), "\r")
		trimmed := strings.TrimLeft(text, " ")
		indent := len(text) - len(trimmed)
		if indent <= 3 {
			if f := fenceRun(trimmed); f != "" {
				if fence == "" {
					fence = f
				} else if f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(trimmed[len(f):]) == "" {
					fence = ""
				}
				off = next
				if next == len(content) {
					break
				}
				continue
			}
		}
		if fence == "" {
			s.scanLine(text, off, line)
		}
		off = next
		if next == len(content) {
			break
		}
	}
	return s
}

func fenceRun(s string) string {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	if s[0] == '`' && strings.Contains(s[n:], "`") {
		return "" // an info string may not contain a backtick: this is inline code
	}
	return s[:n]
}

// scanLine records markers on one line outside fences, ignoring inline code spans.
func (s *Scan) scanLine(text string, lineOff, line int) {
	if !strings.Contains(text, "BLOCK") && !strings.Contains(text, "block") && !strings.Contains(text, "MEMORY_BANK_TEMPLATE") {
		return
	}
	visible := maskInlineCode(text)
	for k := MachineStart; k <= UserEnd; k++ {
		m := markerText[k]
		from := 0
		for {
			i := strings.Index(visible[from:], m)
			if i < 0 {
				break
			}
			at := from + i
			s.Markers = append(s.Markers, Marker{Kind: k, Line: line, Offset: lineOff + at, End: lineOff + at + len(m)})
			// blank it so the near-miss pass does not report it
			visible = visible[:at] + strings.Repeat(" ", len(m)) + visible[at+len(m):]
			from = at + len(m)
		}
	}
	sortMarkers(s.Markers)
	for _, loc := range nearRe.FindAllStringSubmatchIndex(visible, -1) {
		frag := visible[loc[0]:loc[1]]
		if !strings.Contains(frag, "<") && !strings.Contains(frag, ">") {
			continue // a bare word such as USER_BLOCK in prose is not a marker attempt
		}
		s.NearMiss = append(s.NearMiss, NearMiss{Line: line, Text: strings.TrimSpace(frag), Suggest: guess(visible[loc[2]:loc[3]], visible[loc[4]:loc[5]])})
	}
	for _, loc := range tmplRe.FindAllStringSubmatchIndex(visible, -1) {
		s.Templates = append(s.Templates, parseTemplateMark(visible[loc[2]:loc[3]], line))
	}
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

// maskInlineCode replaces the content of backtick code spans with spaces, keeping offsets.
func maskInlineCode(text string) string {
	if !strings.Contains(text, "`") {
		return text
	}
	b := []byte(text)
	i := 0
	for i < len(b) {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		closeAt := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(b) && b[j+m] == '`' {
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
		for k := i; k < closeAt+n; k++ {
			b[k] = ' '
		}
		i = closeAt + n
	}
	return string(b)
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
// most once, START before END, blocks not nested. ok is false otherwise (scanner reports why).
func ParseBlocks(content []byte) (b Blocks, ok bool) {
	sc := ScanMarkers(content)
	var seen [4][]Marker
	for _, m := range sc.Markers {
		seen[m.Kind] = append(seen[m.Kind], m)
	}
	for _, v := range seen {
		if len(v) > 1 {
			return b, false
		}
	}
	pair := func(s, e MarkerKind) (Span, bool, bool) {
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
	if b.HasMachine && b.HasUser && b.Machine.End > b.User.Start-len(markerText[UserStart]) && b.User.End > b.Machine.Start-len(markerText[MachineStart]) {
		return b, false // overlapping or nested
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
