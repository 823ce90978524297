package engine

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// gitleaks evaluates every allowlist of a rule on every match of the rule, and an allowlist
// expression that targets the finding's line runs over the whole line each time: on a line of
// megabytes (minified JSON, a base64 dump) with thousands of matches that is quadratic, and
// was most of a scan (18 ms per match for the generic rule's BitBake allowlist on a 400 KB
// line: SRC[^=]*= reads to the end of a line without "="). For content with a long line a
// detector is swapped for a lean twin that gives the same findings:
//
//   - an allowlist whose conditions must all hold (AND) and that names paths allows nothing in
//     a file none of its paths match: the twin leaves it out;
//   - a line-target expression with no empty-width assertion (^ $ \A \z \b \B) that matches
//     nowhere in the content matches no line of it either (a line is a piece of the content,
//     and without assertions a match in a piece is a match in the whole): the twin has an
//     expression in its place that fails at once.

// longLine is the line length from which a scan uses lean twins: below it the expressions
// cost little, and building a twin is not free.
var longLine = 4 << 10 // a variable only so that the fuzz test can use twins on short lines

// never fails on any input at its first position.
var never = regexp.MustCompile(`\A[^\x00-\x{10FFFF}]`)

// pathOnly reports whether allowlist a allows nothing in a file none of its paths match.
func pathOnly(a *config.Allowlist) bool {
	return a.MatchCondition == config.AllowlistMatchAnd && len(a.Paths) > 0
}

// leanTwins keeps the twins built, by detector and the expressions they dropped (bounded:
// lazy plans are rebuilt past maxPlans, and their detectors with them).
var leanTwins struct {
	sync.Mutex
	m map[twinKey]*detect.Detector
}

type twinKey struct {
	d    *detect.Detector
	dead string // the dead expressions, joined
}

// assertionFree caches, by expression, whether it has no empty-width assertion.
var assertionFree sync.Map

func noAssertions(re *regexp.Regexp) bool {
	if v, ok := assertionFree.Load(re); ok {
		return v.(bool)
	}
	free := false
	if t, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		free = !hasAssertion(t)
	}
	assertionFree.Store(re, free)
	return free
}

func hasAssertion(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range re.Sub {
		if hasAssertion(s) {
			return true
		}
	}
	return false
}

// lean returns d's lean twin for content stored at path, or d when it would be d. memo keeps,
// for the one scan, whether each line expression is dead, so the detectors of a scan that
// share allowlists run each expression over the content once.
func lean(d *detect.Detector, path string, content []byte, memo map[*regexp.Regexp]bool) *detect.Detector {
	dead, names, pathFreeFile := deadParts(d.Config, path, content, memo)
	if len(dead) == 0 && !pathFreeFile {
		return d
	}
	key := twinKey{d, names}
	if !pathFreeFile {
		key.dead += "\x00path"
	}
	leanTwins.Lock()
	defer leanTwins.Unlock()
	if t, ok := leanTwins.m[key]; ok {
		return t
	}
	t := d
	if tc, changed := leanConfig(d.Config, dead, pathFreeFile); changed {
		t = detect.NewDetector(tc)
		t.MaxDecodeDepth = d.MaxDecodeDepth
	}
	if leanTwins.m == nil || len(leanTwins.m) >= 4*maxPlans {
		leanTwins.m = map[twinKey]*detect.Detector{}
	}
	leanTwins.m[key] = t
	return t
}

// deadParts finds what of cfg's allowlists cannot allow anything in content stored at path:
// pathFreeFile when every pathOnly allowlist misses the path (they are then left out whole,
// and their expressions not run), and the line-target expressions of the others that match
// nowhere (with their names, sorted, for the twin's key).
func deadParts(cfg config.Config, path string, content []byte, memo map[*regexp.Regexp]bool) (dead map[*regexp.Regexp]bool, names string, pathFreeFile bool) {
	all := slices.Clone(cfg.Allowlists)
	for _, r := range cfg.Rules {
		all = append(all, r.Allowlists...)
	}
	pathFreeFile = pathMisses(cfg, all, path)
	dead = map[*regexp.Regexp]bool{}
	var list []string
	for _, a := range all {
		if a.RegexTarget != "line" || pathFreeFile && pathOnly(a) {
			continue
		}
		for _, re := range a.Regexes {
			d, ok := memo[re]
			if !ok {
				d = noAssertions(re) && !re.Match(content)
				memo[re] = d
			}
			if d && !dead[re] {
				dead[re] = true
				list = append(list, re.String())
			}
		}
	}
	sort.Strings(list) // the rules are a map: the same dead set must give the same key
	return dead, strings.Join(list, "\x00"), pathFreeFile
}

// pathMisses reports whether no pathOnly allowlist among all (cfg's) matches path.
func pathMisses(cfg config.Config, all []*config.Allowlist, path string) bool {
	if cfg.Path != "" && path == cfg.Path {
		return false
	}
	for _, a := range all {
		if pathOnly(a) && path != "" && a.PathAllowed(path) {
			return false
		}
	}
	return true
}

// leanConfig is cfg without the dead expressions and, in a pathFreeFile, without the
// pathOnly allowlists; changed is false when that is cfg itself.
func leanConfig(cfg config.Config, dead map[*regexp.Regexp]bool, pathFreeFile bool) (tc config.Config, changed bool) {
	fix := func(as []*config.Allowlist) []*config.Allowlist {
		out := make([]*config.Allowlist, 0, len(as))
		for _, a := range as {
			if pathFreeFile && pathOnly(a) {
				changed = true
				continue
			}
			if a.RegexTarget == "line" {
				if c := withoutDead(a, dead); c != nil {
					a, changed = c, true
				}
			}
			out = append(out, a)
		}
		return out
	}
	tc = cfg
	tc.Allowlists = fix(cfg.Allowlists)
	tc.Rules = make(map[string]config.Rule, len(cfg.Rules))
	for id, r := range cfg.Rules {
		r.Allowlists = fix(r.Allowlists)
		tc.Rules[id] = r
	}
	return tc, changed
}

// withoutDead returns a copy of a without its dead expressions, or nil when it has none.
// gitleaks joins an allowlist's expressions into one (A|B) when it validates it, and matches
// that: the copy is a new allowlist, validated again, or the join of the old ones would stay.
// When every expression is dead the copy keeps never, so that an AND allowlist still has a
// condition on its expressions, which fails, as theirs did.
func withoutDead(a *config.Allowlist, dead map[*regexp.Regexp]bool) *config.Allowlist {
	var live []*regexp.Regexp
	for _, re := range a.Regexes {
		if !dead[re] {
			live = append(live, re)
		}
	}
	if len(live) == len(a.Regexes) {
		return nil
	}
	if len(live) == 0 {
		live = []*regexp.Regexp{never}
	}
	c := &config.Allowlist{Description: a.Description, MatchCondition: a.MatchCondition, Commits: a.Commits,
		Paths: a.Paths, RegexTarget: a.RegexTarget, Regexes: live, StopWords: a.StopWords}
	if c.Validate() != nil {
		return nil // cannot happen: it holds an expression; keep the original
	}
	return c
}

// twinPicker returns what to scan content, stored at path, with in place of a detector: its
// lean twin when content has a long line, else the detector itself. The answer is kept per
// detector for the one scan.
func twinPicker(path string, content []byte) func(*detect.Detector) *detect.Detector {
	if !hasLongLine(content) {
		return func(d *detect.Detector) *detect.Detector { return d }
	}
	seen := map[*detect.Detector]*detect.Detector{}
	memo := map[*regexp.Regexp]bool{}
	var mu sync.Mutex
	return func(d *detect.Detector) *detect.Detector {
		if d == nil {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if t, ok := seen[d]; ok {
			return t
		}
		t := lean(d, path, content, memo)
		seen[d] = t
		return t
	}
}

// hasLongLine reports whether content has a line of longLine bytes or more.
func hasLongLine(content []byte) bool {
	for len(content) >= longLine {
		i := bytes.IndexByte(content, '\n')
		if i < 0 || i >= longLine {
			return true
		}
		content = content[i+1:]
	}
	return false
}
