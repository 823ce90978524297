package engine

import (
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// A gitleaks rule's regular expression runs over a whole fragment once one of the rule's
// keywords occurs anywhere in it. On notes where "token" or "key" are ordinary words that
// makes whole files the unit of work; cutting a file into small fragments keeps most rules off
// most of the text. A cut is only allowed where it provably changes nothing: for each rule,
// the decision below is computed from the rule's compiled expression (regexp/syntax), for
// gitleaks' default rules and for a repository's own .gitleaks.toml alike.
//
// Every fragment Scan hands gitleaks starts at a newline of the file (or the file's start) and
// ends just after one, so gitleaks' own line arithmetic (the line it reports and the line it
// matches allowlists against, which includes the newline before it) sees what it sees in the
// whole file. For a cut at offset p (content[p-1] == '\n'), the matches of a rule inside a
// fragment are exactly the whole file's when
//
//   - no match of the rule, starting anywhere, can straddle p (then the set of matches at each
//     start position is the same in both texts, and so is leftmost-first's pick);
//   - no empty-width assertion can be evaluated at p by a match that reaches p, and none asks
//     "is this the start of the text?" (\A, or ^ without (?m)): these are the only places where
//     the fragment's edges look different from the file;
//   - the rule cannot match the empty string;
//   - the rule's keywords, which gitleaks looks for in the fragment rather than the file,
//     occur inside every match (so a fragment holding a match holds a keyword).
//
// cutLine rules can be cut after any newline: a match never consumes anything after a '\n'.
// cutBlank rules can be cut after an empty line ("\n\n" or "\n\r\n"): a match never consumes
// two newlines and never starts with '\r' or '\n'. cutNear rules may span newlines, but every
// match is at most maxLen bytes long and holds a keyword: they run on windows around their
// keywords (nearWindows). Other rules (cutNone) see the whole file.
//
// cutNear is what keeps the scan linear: most of gitleaks' rules have the shape
// `[\w.-]{0,50}?(?i:…keyword…)[\s'"]{0,3}…[\x60'"\s=]{0,5}value`, whose whitespace classes may
// swallow blank lines, so neither cut applies; scanned whole, each of them runs over the whole
// file as soon as its keyword occurs once, and in high-entropy text (base64, random ids) more
// keywords occur by chance the longer the file is.
type cutKind int

const (
	cutNone cutKind = iota
	cutBlank
	cutLine
	cutNear
)

// maxNear bounds the match length of a cutNear rule: longer windows would cost more than
// they save.
const maxNear = 1024

// classify decides how a rule may be cut. Rules tied to others (composite rules and the rules
// they require, or rules reported only through them) and path rules are never cut.
func classify(r config.Rule, tied bool) cutKind {
	if r.Regex == nil || r.Path != nil || tied || r.SkipReport || len(r.RequiredRules) > 0 {
		return cutNone
	}
	re, err := syntax.Parse(r.Regex.String(), syntax.Perl)
	if err != nil {
		return cutNone
	}
	re = re.Simplify()
	prog, err := syntax.Compile(re)
	if err != nil {
		return cutNone
	}
	if len(r.Keywords) == 0 || keywordsInEveryMatch(re, r.Keywords) {
		if k := progCut(prog); k != cutNone {
			return k
		}
	}
	// Near rules run on windows only in text without a caseFolder (cut scans it whole).
	if len(r.Keywords) > 0 && keywordsIn(re, r.Keywords, true) && nearOK(prog) {
		if _, _, ok := nearReach(r); ok {
			return cutNear
		}
	}
	return cutNone
}

// maxNearLines bounds the newlines a cutNear rule's match may cross when its length is not
// bounded.
const maxNearLines = 16

// nearReach returns how far from its keyword a match of r can reach: bytes (n >= 0) when its
// length is bounded by maxNear, else lines (lines >= 0; n is -1).
func nearReach(r config.Rule) (n, lines int, ok bool) {
	re, err := syntax.Parse(r.Regex.String(), syntax.Perl)
	if err != nil {
		return 0, 0, false
	}
	if m, ok := maxLen(re); ok && m <= maxNear {
		return m, -1, true
	}
	if l, ok := maxLines(re); ok && l <= maxNearLines {
		return -1, l, true
	}
	return 0, 0, false
}

// nearOK reports whether a program meets the conditions of a cut that no match reaches:
// it never asks for the start of the text and cannot match the empty string. (Assertions at
// the window's other edges are never evaluated by a match: see nearWindows.)
func nearOK(p *syntax.Prog) bool {
	for pc := range p.Inst {
		if in := &p.Inst[pc]; in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&syntax.EmptyBeginText != 0 {
			return false
		}
	}
	for _, pc := range closure(p, []uint32{uint32(p.Start)}) {
		if p.Inst[pc].Op == syntax.InstMatch {
			return false
		}
	}
	return true
}

// maxLen returns the most bytes a match of re can span, or false when it is unbounded. A
// case-folded letter counts as its longest fold (k also matches the three bytes of KELVIN
// SIGN), a class as its longest member, any character as four bytes.
func maxLen(re *syntax.Regexp) (int, bool) {
	const limit = 1 << 20
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpLiteral:
		return literalMaxLen(re), true
	case syntax.OpCharClass:
		return classMaxLen(re), true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 0, false
		}
		n, ok := maxLen(re.Sub[0])
		if !ok || n*re.Max > limit {
			return 0, false
		}
		return n * re.Max, true
	case syntax.OpConcat, syntax.OpAlternate:
		return combineSubs(re, maxLen, limit)
	}
	return 0, false // star, plus, anything new
}

// literalMaxLen is the most bytes the literal re can match, each case-folded letter counted
// as its longest fold.
func literalMaxLen(re *syntax.Regexp) int {
	n := 0
	for _, r := range re.Rune {
		w := runeLen(r)
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				w = max(w, runeLen(f))
			}
		}
		n += w
	}
	return n
}

// classMaxLen is the width of the longest member of the character class re.
func classMaxLen(re *syntax.Regexp) int {
	w := 0
	for i := 1; i < len(re.Rune); i += 2 {
		w = max(w, runeLen(re.Rune[i]))
	}
	return w
}

// combineSubs measures the subexpressions of a concatenation (their sum) or an alternation
// (their maximum) with measure, or returns false when one is unbounded or the total passes
// limit.
func combineSubs(re *syntax.Regexp, measure func(*syntax.Regexp) (int, bool), limit int) (int, bool) {
	total := 0
	for _, sub := range re.Sub {
		n, ok := measure(sub)
		if !ok {
			return 0, false
		}
		if re.Op == syntax.OpConcat {
			total += n
		} else {
			total = max(total, n)
		}
		if total > limit {
			return 0, false
		}
	}
	return total, true
}

// runeLen is the width of r in UTF-8; surrogates and other invalid runes match as U+FFFD
// would be written, three bytes.
func runeLen(r rune) int {
	if n := utf8.RuneLen(r); n > 0 {
		return n
	}
	return 3
}

// progCut applies the conditions above to a compiled program. It ignores whether assertions
// can be satisfied, so it may only err towards cutNone.
func progCut(p *syntax.Prog) cutKind {
	start := closure(p, []uint32{uint32(p.Start)})
	if beginsText(p) || matchesEmpty(p, start) {
		return cutNone
	}
	// After consuming '\n': which instructions come next without consuming anything.
	var afterNL []uint32
	for pc := range p.Inst {
		if consumes(&p.Inst[pc], '\n') {
			afterNL = append(afterNL, p.Inst[pc].Out)
		}
	}
	next := closure(p, afterNL)
	line := true
	for _, pc := range next {
		switch p.Inst[pc].Op {
		case syntax.InstEmptyWidth:
			return cutNone // an assertion right after a newline: it may look past the cut
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			line = false
		}
	}
	if line {
		return cutLine
	}
	for _, pc := range start {
		if in := &p.Inst[pc]; consumes(in, '\n') || consumes(in, '\r') {
			return cutNone
		}
	}
	if secondNewline(p, afterNL) {
		return cutNone
	}
	return cutBlank
}

// beginsText reports whether the program asserts the beginning of the text (\A, or ^ outside
// multi-line mode), which a cut would move.
func beginsText(p *syntax.Prog) bool {
	for pc := range p.Inst {
		if in := &p.Inst[pc]; in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&syntax.EmptyBeginText != 0 {
			return true
		}
	}
	return false
}

// matchesEmpty reports whether the program matches the empty string.
func matchesEmpty(p *syntax.Prog, start []uint32) bool {
	for _, pc := range start {
		if p.Inst[pc].Op == syntax.InstMatch {
			return true
		}
	}
	return false
}

// secondNewline reports whether a second newline can be consumed after a first one, by any path
// from afterNL.
func secondNewline(p *syntax.Prog, afterNL []uint32) bool {
	seen := make([]bool, len(p.Inst))
	stack := append([]uint32(nil), afterNL...)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		in := &p.Inst[pc]
		if consumes(in, '\n') {
			return true
		}
		switch in.Op {
		case syntax.InstMatch, syntax.InstFail:
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		default:
			stack = append(stack, in.Out)
		}
	}
	return false
}

// consumes reports whether the instruction can consume r.
func consumes(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune, syntax.InstRune1:
		return in.MatchRune(r)
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return false
}

// closure returns the instructions reachable from pcs without consuming input (the listed
// instructions included).
func closure(p *syntax.Prog, pcs []uint32) []uint32 {
	seen := make([]bool, len(p.Inst))
	var out []uint32
	stack := append([]uint32(nil), pcs...)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		out = append(out, pc)
		in := &p.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			stack = append(stack, in.Out)
		}
	}
	return out
}

// maxExact bounds the sets of exact strings keywordsInEveryMatch tracks, and maxClass the
// character classes it spells out: keywords sit in literals and in small classes such as
// (?i) letters or [_-], never in [a-z0-9].
const (
	maxExact = 64
	maxClass = 8
)

// litInfo is what keywordsInEveryMatch knows about a subexpression: every match contains a
// keyword (kw), and, when small, the exact set of lower-cased strings it matches.
type litInfo struct {
	kw    bool
	exact []string // nil: unknown
}

// keywordsInEveryMatch reports whether every string re matches, lower-cased as gitleaks
// lower-cases a fragment before looking for keywords, contains one of keywords. It errs
// towards false.
func keywordsInEveryMatch(re *syntax.Regexp, keywords []string) bool {
	return keywordsIn(re, keywords, false)
}

// keywordsIn is keywordsInEveryMatch, for text without a caseFolder when noFolders is set:
// then a case-folded letter only ever matches its ASCII forms.
func keywordsIn(re *syntax.Regexp, keywords []string, noFolders bool) bool {
	kws := make([]string, len(keywords))
	for i, k := range keywords {
		kws[i] = strings.ToLower(k)
	}
	return lits(re, kws, noFolders).kw
}

func hasKeyword(s string, kws []string) bool {
	for _, k := range kws {
		if k != "" && strings.Contains(s, k) {
			return true
		}
	}
	return false
}

func allHaveKeyword(set []string, kws []string) bool {
	if set == nil {
		return false
	}
	for _, s := range set {
		if !hasKeyword(s, kws) {
			return false
		}
	}
	return true
}

// foldUnknown stands for a letter matched case-insensitively whose other forms do not
// lower-case to ASCII ('s' also matches U+017F, which stays itself under strings.ToLower).
const foldUnknown = "\x00"

func lits(re *syntax.Regexp, kws []string, noFolders bool) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		return literalLits(re, kws, noFolders)
	case syntax.OpCharClass:
		return classLits(re, kws)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []string{""}}
	case syntax.OpCapture:
		return lits(re.Sub[0], kws, noFolders)
	case syntax.OpPlus:
		return litInfo{kw: lits(re.Sub[0], kws, noFolders).kw}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return litInfo{kw: lits(re.Sub[0], kws, noFolders).kw}
		}
		return litInfo{}
	case syntax.OpQuest:
		sub := lits(re.Sub[0], kws, noFolders)
		if sub.exact == nil || len(sub.exact) >= maxExact {
			return litInfo{}
		}
		return litInfo{exact: append([]string{""}, sub.exact...)}
	case syntax.OpAlternate:
		return alternateLits(re, kws, noFolders)
	case syntax.OpConcat:
		li := concatLits(re, kws, noFolders)
		if !li.kw && distribute(re, kws, noFolders) {
			return litInfo{kw: true}
		}
		return li
	}
	return litInfo{}
}

// literalLits reads a literal, lower-cased; a folding letter whose folds leave ASCII is unknown.
func literalLits(re *syntax.Regexp, kws []string, noFolders bool) litInfo {
	var b strings.Builder
	for _, r := range re.Rune {
		switch lr := unicode.ToLower(r); {
		case re.Flags&syntax.FoldCase != 0 && !noFolders && simpleFoldsOutsideASCII(lr):
			b.WriteString(foldUnknown)
		default:
			b.WriteRune(lr)
		}
	}
	s := b.String()
	return litInfo{kw: hasKeyword(s, kws), exact: []string{s}}
}

// classLits reads a character class of at most maxClass characters as their set, lower-cased.
func classLits(re *syntax.Regexp, kws []string) litInfo {
	var set []string
	seen := map[string]bool{}
	n := 0
	for i := 0; i+1 < len(re.Rune); i += 2 {
		if n += int(re.Rune[i+1]-re.Rune[i]) + 1; n > maxClass {
			return litInfo{}
		}
	}
	for i := 0; i+1 < len(re.Rune); i += 2 {
		for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
			s := string(unicode.ToLower(r))
			if !seen[s] {
				seen[s] = true
				set = append(set, s)
			}
		}
	}
	return litInfo{kw: allHaveKeyword(set, kws), exact: set}
}

// alternateLits reads an alternation: a keyword when every branch has one, and the union of the
// branches' strings while it stays under maxExact.
func alternateLits(re *syntax.Regexp, kws []string, noFolders bool) litInfo {
	all := true
	var set []string
	known := true
	for _, s := range re.Sub {
		li := lits(s, kws, noFolders)
		all = all && li.kw
		if li.exact == nil || len(set)+len(li.exact) > maxExact {
			known = false
		} else if known {
			set = append(set, li.exact...)
		}
	}
	if !known {
		set = nil
	}
	return litInfo{kw: all || allHaveKeyword(set, kws), exact: set}
}

// maxBranches bounds the alternatives distribute splits a concatenation on.
const maxBranches = 16

// distribute decides a concatenation holding an alternation branch by branch: every match
// of x(a|b)y holds a keyword if every match of xay and of xby does. The parser factors
// common prefixes out of alternations (AKIA|ASIA|A3T[A-Z0-9] becomes A(?:KIA|SIA|3T[A-Z0-9])),
// which hides the keywords from a left-to-right reading.
func distribute(re *syntax.Regexp, kws []string, noFolders bool) bool {
	for i, sub := range re.Sub {
		if sub.Op != syntax.OpAlternate || len(sub.Sub) > maxBranches {
			continue
		}
		for _, br := range sub.Sub {
			cp := *re
			cp.Sub = append([]*syntax.Regexp(nil), re.Sub[:i]...)
			if br.Op == syntax.OpConcat {
				cp.Sub = append(cp.Sub, br.Sub...)
			} else {
				cp.Sub = append(cp.Sub, br)
			}
			cp.Sub = append(cp.Sub, re.Sub[i+1:]...)
			// Read left to right only: distributing again on a later alternation would
			// multiply the work by its branches.
			if !concatLits(&cp, kws, noFolders).kw {
				return false
			}
		}
		return true
	}
	return false
}

// concatLits is lits of a concatenation, read left to right.
func concatLits(re *syntax.Regexp, kws []string, noFolders bool) litInfo {
	cur := []string{""} // exact strings of the run of known subexpressions so far
	exact := true
	for _, s := range re.Sub {
		li := lits(s, kws, noFolders)
		if li.kw {
			return litInfo{kw: true}
		}
		if li.exact == nil {
			cur, exact = []string{""}, false
			continue
		}
		if len(cur)*len(li.exact) > maxExact {
			cur, exact = li.exact, false
		} else {
			prod := make([]string, 0, len(cur)*len(li.exact))
			for _, a := range cur {
				for _, b := range li.exact {
					prod = append(prod, a+b)
				}
			}
			cur = prod
		}
		if allHaveKeyword(cur, kws) {
			return litInfo{kw: true}
		}
	}
	if !exact {
		return litInfo{}
	}
	return litInfo{exact: cur}
}

// simpleFoldsOutsideASCII reports whether r's case-folding orbit holds a letter that
// strings.ToLower does not map back onto r.
func simpleFoldsOutsideASCII(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if unicode.ToLower(f) != r {
			return true
		}
	}
	return false
}

// plan is one configuration's rules, split into detectors by how their text may be cut.
// A nil detector has no rule.
type plan struct {
	line, blank, whole *detect.Detector
	// near holds the cutNear rules, run on nearWindows of nearKeywords (lower-cased) that
	// reach nearLen bytes (their longest match) either side of each keyword.
	near *detect.Detector
	// nearKeywords are the lower-cased keywords of the cutNear rules; nearReach[k], how far
	// the matches of the rules holding keyword k reach, is the reach of its windows.
	nearKeywords *kwSet
	nearReach    []reach
	// generic is gitleaks' generic-api-key alone, run on genericWindows; nil when the
	// configuration's rule is not the one those windows are proved for (it is then in whole).
	generic *detect.Detector
	// cfgPath and allowlists (the global ones and those of the rules in line, blank and
	// generic) are what a fragment's path can change; see pathFree.
	cfgPath    string
	allowlists []*config.Allowlist
}

// pathFree reports whether gitleaks would treat path like no path at all for the cut rules:
// it is not the configuration file, and no allowlist's path pattern matches it. Then cut
// fragments are handed over without a path, which spares gitleaks matching the allowlists'
// path patterns once per fragment (a fifth of the time on a bank of notes).
func (p *plan) pathFree(path string) bool {
	if path == p.cfgPath {
		return false
	}
	for _, a := range p.allowlists {
		if a.MatchCondition == config.AllowlistMatchAnd && len(a.Commits) == 0 && len(a.Paths) == 0 && len(a.Regexes) == 0 && len(a.StopWords) == 0 {
			return false // an empty AND list allows every file that has a path
		}
		if a.PathAllowed(path) {
			return false
		}
	}
	return true
}

// newPlan splits cfg's rules. Every detector keeps cfg's global allowlists and path.
func newPlan(cfg config.Config) plan {
	tied := tiedRules(cfg)
	_, genericApart := withoutGeneric(cfg)
	genericApart = genericApart && !tied[genericRule] && genericKeywordsCovered(cfg.Rules[genericRule].Keywords)
	var ids [4][]string
	var generic []string
	nearKw := map[string]reach{}
	for id, r := range cfg.Rules {
		if id == genericRule && genericApart {
			generic = append(generic, id)
			continue
		}
		k := ruleCut(r, tied[id])
		ids[k] = append(ids[k], id)
		if k == cutNear {
			addReach(nearKw, r)
		}
	}
	words, reaches := splitReach(nearKw)
	allow := append([]*config.Allowlist(nil), cfg.Allowlists...)
	for _, id := range append(append(append(append([]string(nil), ids[cutLine]...), ids[cutBlank]...), ids[cutNear]...), generic...) {
		allow = append(allow, cfg.Rules[id].Allowlists...)
	}
	return plan{
		line:         subDetector(cfg, ids[cutLine]),
		blank:        subDetector(cfg, ids[cutBlank]),
		whole:        subDetector(cfg, ids[cutNone]),
		near:         subDetector(cfg, ids[cutNear]),
		nearKeywords: newKwSet(words),
		nearReach:    reaches,
		generic:      subDetector(cfg, generic),
		cfgPath:      cfg.Path,
		allowlists:   allow,
	}
}

// tiedRules is the set of rules that require other rules or are required by one.
func tiedRules(cfg config.Config) map[string]bool {
	tied := map[string]bool{}
	for id, r := range cfg.Rules {
		if len(r.RequiredRules) == 0 {
			continue
		}
		tied[id] = true
		for _, q := range r.RequiredRules {
			tied[q.RuleID] = true
		}
	}
	return tied
}

// ruleCut is how the scan may cut text for rule r (tied: r requires or is required by another
// rule).
func ruleCut(r config.Rule, tied bool) cutKind {
	k := classify(r, tied)
	if k != cutNone && k != cutNear && len(r.Keywords) > 0 {
		// A rule that may be cut at lines and holds a keyword in every match also meets
		// cutNear's conditions; windows around its keywords are less text than the
		// fragments holding them (in random ids, a two-letter keyword is in every one).
		if n, _, ok := nearReach(r); ok && n >= 0 {
			k = cutNear
		}
	}
	return k
}

// genericKeywordsCovered reports whether every word genericWindows looks for contains one of
// the rule's keywords, so that a window holding a match makes gitleaks run the rule on it.
func genericKeywordsCovered(keywords []string) bool {
	for _, w := range genericKeywords {
		if !hasKeyword(string(w), keywords) {
			return false
		}
	}
	return true
}

// subDetector returns a decoding-free detector for the listed rules of cfg, or nil.
func subDetector(cfg config.Config, ids []string) *detect.Detector {
	if len(ids) == 0 {
		return nil
	}
	sub := cfg
	sub.Rules = make(map[string]config.Rule, len(ids))
	sub.Keywords = map[string]struct{}{}
	for _, id := range ids {
		r := cfg.Rules[id]
		sub.Rules[id] = r
		for _, k := range r.Keywords {
			sub.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	sub.OrderedRules = nil
	for _, id := range cfg.OrderedRules {
		if _, ok := sub.Rules[id]; ok {
			sub.OrderedRules = append(sub.OrderedRules, id)
		}
	}
	d := detect.NewDetector(sub)
	d.MaxDecodeDepth = 0
	return d
}

// maxLines returns the most newlines a match of re can consume, or false when unbounded. A
// rule whose matches hold a keyword and cross at most n newlines lies within n lines of that
// keyword, however long the lines are: cutNear windows reach that far in lines.
func maxLines(re *syntax.Regexp) (int, bool) {
	const limit = 1 << 10
	switch re.Op {
	case syntax.OpLiteral:
		return strings.Count(string(re.Rune), "\n"), true
	case syntax.OpCharClass:
		return classLines(re), true
	case syntax.OpAnyChar:
		return 1, true
	case syntax.OpAnyCharNotNL, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxLines(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		n, ok := maxLines(re.Sub[0])
		switch {
		case !ok:
			return 0, false
		case n == 0:
			return 0, true
		case re.Op != syntax.OpRepeat || re.Max < 0 || n*re.Max > limit:
			return 0, false
		}
		return n * re.Max, true
	case syntax.OpConcat, syntax.OpAlternate:
		return combineSubs(re, maxLines, limit)
	}
	return 0, false
}

// classLines is 1 when the character class re holds a newline, else 0.
func classLines(re *syntax.Regexp) int {
	for i := 0; i+1 < len(re.Rune); i += 2 {
		if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
			return 1
		}
	}
	return 0
}

// reach is how far the matches of the rules holding a keyword reach from it: bytes for the
// rules of bounded length, lines for the others (-1: no such rule).
type reach struct{ bytes, lines int }

// addReach records r's reach under each of its keywords.
func addReach(m map[string]reach, r config.Rule) {
	n, l, _ := nearReach(r)
	for _, kw := range r.Keywords {
		kw = strings.ToLower(kw)
		old, ok := m[kw]
		if !ok {
			old = reach{-1, -1}
		}
		m[kw] = reach{max(old.bytes, n), max(old.lines, l)}
	}
}

// splitReach returns the keywords in order and their reaches.
func splitReach(m map[string]reach) ([]string, []reach) {
	words := make([]string, 0, len(m))
	for kw := range m {
		words = append(words, kw)
	}
	sort.Strings(words)
	out := make([]reach, len(words))
	for i, w := range words {
		out[i] = m[w]
	}
	return words, out
}
