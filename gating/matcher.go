package gating

import (
	"strings"
)

// matcher is a pattern list compiled for the hot path: literal file names in a map, one-star
// file-name globs as prefix/suffix pairs, and segment patterns indexed by their first segment,
// so a path costs a few map look-ups instead of MatchPath on every pattern.
type matcher struct {
	src    []string // the list compiled, to notice a Policy changed after New
	names  map[string]bool
	globs  []string // one-star or meta file-name patterns, matched by globSeg on the base
	bySeg  map[string][]string
	others []string // patterns whose first segment is a glob: MatchPath on each
}

func compile(patterns []string, fold bool) *matcher {
	m := &matcher{src: patterns, names: map[string]bool{}, bySeg: map[string][]string{}}
	for _, p := range patterns {
		if fold {
			p = strings.ToLower(p)
		}
		p = strings.TrimPrefix(p, "/")
		if p == "" {
			continue
		}
		first, _, multi := strings.Cut(p, "/")
		switch {
		case !multi && !hasMeta(p):
			m.names[p] = true
		case !multi:
			m.globs = append(m.globs, p)
		case hasMeta(first):
			m.others = append(m.others, p)
		default:
			m.bySeg[first] = append(m.bySeg[first], p)
		}
	}
	return m
}

// same reports whether m was compiled from exactly this list (same backing array and length).
func (m *matcher) same(patterns []string) bool {
	if m == nil || len(m.src) != len(patterns) {
		return false
	}
	return len(patterns) == 0 || &m.src[0] == &patterns[0]
}

func (m *matcher) match(p string) bool {
	if p == "" {
		return false
	}
	base := p[strings.LastIndexByte(p, '/')+1:]
	if m.names[base] {
		return true
	}
	for _, g := range m.globs {
		if globSeg(g, base) {
			return true
		}
	}
	if len(m.bySeg) > 0 {
		for rest := p; ; {
			seg, tail, more := strings.Cut(rest, "/")
			for _, pat := range m.bySeg[seg] {
				if runFrom(pat, rest) {
					return true
				}
			}
			if !more {
				break
			}
			rest = tail
		}
	}
	for _, pat := range m.others {
		if MatchPath(pat, p) {
			return true
		}
	}
	return false
}

// runFrom reports whether pat matches starting at the first segment of rest (MatchPath may
// have found the run further in, which the loop in match visits on its own).
func runFrom(pat, rest string) bool {
	if dir, ok := strings.CutSuffix(pat, "/"); ok {
		return runAt(dir, rest, false)
	}
	return runAt(pat, rest, true)
}
