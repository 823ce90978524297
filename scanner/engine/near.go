package engine

import (
	"bytes"
	"sort"
	"unicode"
	"unicode/utf8"
)

// lines indexes the newlines of a text once, so that finding the line around an offset costs
// a binary search rather than a walk along a line that may be megabytes long.
type lines struct {
	text []byte
	nl   []int // offsets of '\n'
}

func newLines(text []byte) *lines {
	l := &lines{text: text}
	for i := 0; ; {
		j := bytes.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		l.nl = append(l.nl, i+j)
		i += j + 1
	}
	return l
}

// start returns the offset of the start of the line holding offset x.
func (l *lines) start(x int) int {
	i := sort.SearchInts(l.nl, x) // first newline at or after x
	if i == 0 {
		return 0
	}
	return l.nl[i-1] + 1
}

// after returns the offset just past the first newline at or after x, or the text's end.
func (l *lines) after(x int) int {
	i := sort.SearchInts(l.nl, x)
	if i == len(l.nl) {
		return len(l.text)
	}
	return l.nl[i] + 1
}

// around returns the window of a keyword at o, n bytes long, for matches reaching r from it:
// whole lines, from the line holding o-r.bytes (or r.lines lines before o's) to just past the
// newline at or after o+r.bytes (or r.lines lines after o's). A match that crosses at most k
// newlines and holds the keyword lies within k lines of it, however long the lines.
func (l *lines) around(o, n int, r reach) (lo, hi int) {
	lo, hi = o, o+n
	if r.bytes >= 0 {
		lo, hi = l.start(max(o-r.bytes, 0)), l.after(min(o+r.bytes, len(l.text)))
	}
	if r.lines >= 0 {
		at := l.line(o) // 1-based
		first, last := max(at-r.lines, 1), at+r.lines
		s := 0
		if first > 1 {
			s = l.nl[first-2] + 1
		}
		e := len(l.text)
		if last-1 < len(l.nl) {
			e = l.nl[last-1] + 1
		}
		lo, hi = min(lo, s), max(hi, e)
	}
	return lo, hi
}

// line returns the 1-based line of offset x.
func (l *lines) line(x int) int { return sort.SearchInts(l.nl, x) + 1 }

// nearWindows returns the windows the cutNear rules run on: around each occurrence o of a
// keyword (as gitleaks finds keywords: in the lower-cased text) reaching n bytes (the longest
// match of the rules holding that keyword), from the start of the line holding o-n to just
// past the newline at or after o+n; overlapping windows are merged.
//
// Why the findings are exactly those of the whole text: every match holds an occurrence o of
// its rule's keyword and is at most n bytes long, so it lies in [o-n, o+n], strictly inside
// o's window and so inside one merged window. Hence no match straddles a window's edge, the
// matches starting at each offset of a window are the same in the window as in the text (no
// match evaluates an assertion at the window's edges, and none asks for the start of the text:
// nearOK), leftmost-first picks the same one, and a window holds the keyword that makes
// gitleaks run the rule on it. A window starts at a line start and ends after a newline, as
// fragment needs.
//
// It returns false when lower-casing changes the length of some character (KELVIN SIGN,
// invalid UTF-8…): offsets in the lower-cased text then are not offsets in the text, and the
// rules run on the whole text instead.
func nearWindows(text []byte, keywords *kwSet, reaches []reach, idx func() *lines) ([]span, bool) {
	lower, ok := lowerAligned(text)
	if !ok {
		return nil, false
	}
	type win struct{ lo, hi int }
	var wins []win
	keywords.each(lower, func(k, o int) {
		lo, hi := idx().around(o, len(keywords.words[k]), reaches[k])
		wins = append(wins, win{lo, hi})
	})
	if len(wins) == 0 {
		return nil, true
	}
	sort.Slice(wins, func(a, b int) bool { return wins[a].lo < wins[b].lo })
	l := idx()
	var out []span
	for _, w := range wins {
		if n := len(out); n > 0 && w.lo <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, w.hi)
			continue
		}
		out = append(out, span{w.lo, w.hi, l.line(w.lo)})
	}
	return out, true
}

// lowerAligned returns text lower-cased as gitleaks lower-cases it (strings.ToLower), and
// whether every byte offset in it is the same offset in text.
func lowerAligned(text []byte) ([]byte, bool) {
	ascii := true
	for _, c := range text {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return bytes.ToLower(text), true
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError && size == 1 || utf8.RuneLen(unicode.ToLower(r)) != size {
			return nil, false
		}
		i += size
	}
	return bytes.ToLower(text), true
}

// kwSet finds, in one pass over a lower-cased text, where any of a set of keywords occurs:
// looking for each keyword in turn costs a pass per keyword, and gitleaks has ~240 of them.
type kwSet struct {
	words []string
	pairs [1 << 16 / 64]uint64 // the first two bytes of some keyword
	// triples holds a hash of the first three bytes of each keyword of three or more: in
	// prose, two bytes of some keyword ("te", "se", "he"…) start 40% of the offsets, three
	// bytes of one a few percent.
	triples [1 << 16 / 64]uint64
	// at[p] is 1 + the index in lists of the keywords starting with the pair p (0: none); a
	// table, not a map: prose hits common pairs ("ke", "to", "ap") on most bytes
	at    [1 << 16]uint16
	lists [][]int
	// twos holds the pairs that are a whole keyword, which the triples do not cover.
	twos  [1 << 16 / 64]uint64
	short []int // keywords of one byte
}

// triple hashes three bytes onto the 65,536 bits of kwSet.triples.
func triple(a, b, c byte) uint16 {
	return uint16((uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 2654435761 >> 16)
}

func newKwSet(words []string) *kwSet {
	s := &kwSet{words: words}
	for i, w := range words {
		if len(w) < 2 {
			s.short = append(s.short, i)
			continue
		}
		p := uint16(w[0])<<8 | uint16(w[1])
		s.pairs[p/64] |= 1 << (p % 64)
		if s.at[p] == 0 {
			s.lists = append(s.lists, nil)
			s.at[p] = uint16(len(s.lists))
		}
		s.lists[s.at[p]-1] = append(s.lists[s.at[p]-1], i)
		if len(w) == 2 {
			s.twos[p/64] |= 1 << (p % 64)
		} else {
			t := triple(w[0], w[1], w[2])
			s.triples[t/64] |= 1 << (t % 64)
		}
	}
	return s
}

// each calls fn with every occurrence (keyword index, offset) in lower, keywords of one byte
// last.
func (s *kwSet) each(lower []byte, fn func(k, at int)) {
	for i := 0; i+1 < len(lower); i++ {
		p := uint16(lower[i])<<8 | uint16(lower[i+1])
		if s.pairs[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		if s.twos[p/64]&(1<<(p%64)) == 0 {
			if i+2 >= len(lower) {
				continue
			}
			if t := triple(lower[i], lower[i+1], lower[i+2]); s.triples[t/64]&(1<<(t%64)) == 0 {
				continue
			}
		}
		for _, k := range s.lists[s.at[p]-1] {
			if w := s.words[k]; len(lower)-i >= len(w) && string(lower[i:i+len(w)]) == w {
				fn(k, i)
			}
		}
	}
	for _, k := range s.short {
		w := []byte(s.words[k])
		for at := 0; ; {
			i := bytes.Index(lower[at:], w)
			if i < 0 {
				break
			}
			fn(k, at+i)
			at += i + 1
		}
	}
}
