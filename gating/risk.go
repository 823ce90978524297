package gating

import (
	"path"
	"strings"
)

// MatchPath reports whether the canonical path p matches one Policy path pattern. Patterns
// match whole path segments, never substrings (src/processor.ts is not "sso", author.go is not
// "auth/"):
//
//   - "auth/" (trailing slash): a run of directory segments anywhere in p;
//   - "package.json", ".env*", "*.pem" (no slash): the file name, globs allowed;
//   - "memory-bank/details/progress.md" (inner slash): a run of segments ending at the file name.
//
// Each segment of a pattern may be a path.Match glob.
func MatchPath(pattern, p string) bool {
	if pattern == "" || p == "" {
		return false
	}
	pattern = strings.TrimPrefix(pattern, "/")
	if dir, ok := strings.CutSuffix(pattern, "/"); ok {
		return matchRun(dir, p, false)
	}
	if !strings.Contains(pattern, "/") {
		return globSeg(pattern, path.Base(p))
	}
	return matchRun(pattern, p, true)
}

// matchRun matches pattern's segments against a contiguous run of p's segments; atEnd pins the
// run to p's last segment (a file pattern). A directory pattern may also match the last
// segment, because shell writes name directories (rm -rf infra).
func matchRun(pattern, p string, atEnd bool) bool {
	// A literal first segment that is not even a substring cannot match a segment: one
	// vectorised search settles most patterns for most paths.
	if first, _, _ := strings.Cut(pattern, "/"); !hasMeta(first) && !strings.Contains(p, first) {
		return false
	}
	// Walking both strings segment by segment keeps this allocation-free on the hot path.
	for start := 0; start <= len(p); {
		if runAt(pattern, p[start:], atEnd) {
			return true
		}
		i := strings.IndexByte(p[start:], '/')
		if i < 0 {
			return false
		}
		start += i + 1
	}
	return false
}

func runAt(pattern, p string, atEnd bool) bool {
	for {
		ps, prest, pmore := strings.Cut(pattern, "/")
		s, rest, more := strings.Cut(p, "/")
		if !globSeg(ps, s) {
			return false
		}
		if !pmore {
			return !atEnd || !more
		}
		if !more {
			return false
		}
		pattern, p = prest, rest
	}
}

func hasMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			return true
		}
	}
	return false
}

// globSeg matches one segment. Every default pattern is a literal or has a single '*', so
// those are matched by prefix and suffix: path.Match on ~90 patterns per write was most of the
// gate's time.
func globSeg(pattern, seg string) bool {
	star, meta := -1, false
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*':
			if star >= 0 {
				meta = true
			}
			star = i
		case '?', '[', '\\':
			meta = true
		}
	}
	switch {
	case meta:
		ok, err := path.Match(pattern, seg)
		return err == nil && ok
	case star < 0:
		return pattern == seg
	}
	pre, suf := pattern[:star], pattern[star+1:]
	return len(seg) >= len(pre)+len(suf) && strings.HasPrefix(seg, pre) && strings.HasSuffix(seg, suf) &&
		strings.IndexByte(seg, '/') < 0
}

// matchers returns the compiled sensitive and safe lists for this file system's case rule:
// New's while the Policy still holds the lists New saw, else freshly compiled ones.
func (e *Engine) matchers(fold bool) (sens, safe *matcher) {
	sens, safe = e.sens, e.safe
	if fold {
		sens, safe = e.sensF, e.safeF
	}
	if !sens.same(e.Policy.SensitivePaths) {
		sens = compile(e.Policy.SensitivePaths, fold)
	}
	if !safe.same(e.Policy.SafePaths) {
		safe = compile(e.Policy.SafePaths, fold)
	}
	return sens, safe
}

// sensitive reports whether p makes a write high risk: it matches a sensitive pattern and no
// safe one (memory-bank/details/learnings/auth/notes.md is a note about auth, not auth code).
func (e *Engine) sensitive(p string, fold bool) bool {
	sens, safe := e.matchers(fold)
	return sens.match(p) && !safe.match(p)
}

// assessRisk rates a write: high when a path is sensitive; medium for a shell write (its targets
// are a guess) or a write touching more than one file, unless every file is a safe path;
// low otherwise.
func (e *Engine) assessRisk(a *action, fold bool) Risk {
	if !a.isWrite() {
		return RiskNone
	}
	if a.bad != "" {
		return RiskHigh // a write of unknown target
	}
	if !a.shellUnknown && outsideRepo(a.writes) {
		// cat memory-bank/MEMORY.md > /tmp/copy.md: no project file changes
		return RiskLow
	}
	sens, safe := e.matchers(fold)
	allSafe := len(a.writes) > 0
	distinct := 0
	for i, w := range a.writes {
		isSafe := safe.match(w.rel)
		if !isSafe && sens.match(w.rel) {
			return RiskHigh
		}
		allSafe = allSafe && isSafe
		dup := false
		for _, v := range a.writes[:i] {
			if v.rel == w.rel {
				dup = true
				break
			}
		}
		if !dup {
			distinct++
		}
	}
	if a.kind == kindShell {
		return RiskMedium
	}
	if distinct > 1 && !allSafe {
		return RiskMedium
	}
	return RiskLow
}

// outsideRepo reports writes that all land outside the repository, both as spelt and with
// links resolved.
func outsideRepo(ws []writeTarget) bool {
	for _, w := range ws {
		if w.inRepo || w.lexIn || isHome(w.lex) {
			return false
		}
	}
	return len(ws) > 0
}
