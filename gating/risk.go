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

func globSeg(pattern, seg string) bool {
	if !strings.ContainsAny(pattern, `*?[\`) {
		return pattern == seg
	}
	ok, err := path.Match(pattern, seg)
	return err == nil && ok
}

func (e *Engine) matchAny(patterns []string, p string, fold bool) bool {
	for _, pat := range patterns {
		if fold {
			pat = strings.ToLower(pat)
		}
		if MatchPath(pat, p) {
			return true
		}
	}
	return false
}

// sensitive reports whether p makes a write high risk: it matches a sensitive pattern and no
// safe one (memory-bank/details/learnings/auth/notes.md is a note about auth, not auth code).
func (e *Engine) sensitive(p string, fold bool) bool {
	return e.matchAny(e.Policy.SensitivePaths, p, fold) && !e.matchAny(e.Policy.SafePaths, p, fold)
}

// assessRisk rates a write: high when a path is sensitive; medium for a shell write (its targets
// are a guess) or a write touching more than one file, unless every file is a safe path;
// low otherwise.
func (e *Engine) assessRisk(a *action, fold bool) Risk {
	if !a.isWrite() {
		return RiskNone
	}
	allSafe := len(a.writes) > 0
	distinct := 0
	for i, w := range a.writes {
		if e.sensitive(w.rel, fold) {
			return RiskHigh
		}
		if allSafe && !e.matchAny(e.Policy.SafePaths, w.rel, fold) {
			allSafe = false
		}
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
