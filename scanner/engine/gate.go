package engine

import (
	"regexp"
	"regexp/syntax"
	"unicode"

	"github.com/zricethezav/gitleaks/v8/config"
)

// A rule whose keyword occurs in a note still finds nothing there, most of the time: "ey"
// (jwt) is in "they" and "key", "s." (vault-service-token) ends half the sentences, "password"
// (hashicorp-tf-password) is an ordinary word. Running such a rule costs gitleaks a pass of
// its expression over every fragment holding the keyword, and jwt's, which starts with \b,
// gets no help from Go's literal-prefix search: on a bank of prose notes it took a third of
// the scan. A gate proves, per file and more cheaply, that a rule cannot report anything in
// it, and the plan leaves the rule out; whatever the gate lets through runs exactly as before.
//
//   - A rule with a path pattern reports nothing in a file whose path the pattern does not
//     match (gitleaks checks the path before the expression): the .tf, .yaml and .p12 rules
//     never run on notes.
//   - Every match of a rule is a match of its expression with each assertion (\b, ^, $, \A,
//     \z) replaced by the empty string, and, when the expression starts with an alternation,
//     of one of its branches followed by the rest: supersets. When each of them starts with a
//     literal of two or more bytes, Go's regexp jumps from one occurrence of the literal to
//     the next, so asking whether a superset matches anywhere in the file costs about a
//     search for the literal; when none does, the rule has no match in the file, in any
//     fragment or window of it.
//
// Rules tied to others (composite rules, the rules they require, rules reported only through
// them) are never gated: their findings depend on each other's.

// ruleGate is what decides, for one file, whether a rule may report anything in it.
type ruleGate struct {
	path *regexp.Regexp   // the rule's path pattern, or nil
	pre  []*regexp.Regexp // supersets of its expression, each with a literal prefix; nil: no test
	// pathOnly is a rule without an expression: its path pattern alone decides.
	pathOnly bool
}

// minPrefix is the shortest literal prefix worth a superset test: one byte would stop Go's
// search on most bytes of a note.
const minPrefix = 2

func newGate(r config.Rule) ruleGate {
	g := ruleGate{path: r.Path, pathOnly: r.Regex == nil}
	if r.Regex != nil {
		g.pre = supersets(r.Regex.String())
	}
	return g
}

// may reports whether the rule may report anything in text stored at path (slash-separated,
// as gitleaks is given it).
func (g ruleGate) may(path string, text []byte) bool {
	if g.path != nil && !g.path.MatchString(path) {
		return false
	}
	if g.pathOnly || g.pre == nil {
		return true
	}
	for _, re := range g.pre {
		if re.Match(text) {
			return true
		}
	}
	return false
}

// supersets returns expressions whose matches, together, include every match of expr, each
// starting with a literal of at least minPrefix bytes; nil when expr does not lend itself.
func supersets(expr string) []*regexp.Regexp {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = withoutAssertions(re.Simplify())
	hs := heads(re)
	for i, h := range hs {
		if len(literalStart(h)) < minPrefix {
			return nil
		}
		if hs[i], _ = cheapPrefix(h); hs[i] == nil {
			return nil
		}
	}
	var out []*regexp.Regexp
	for _, h := range hs {
		c, err := regexp.Compile(h.String())
		if err != nil {
			return nil
		}
		if p, _ := c.LiteralPrefix(); len(p) < minPrefix {
			return nil
		}
		out = append(out, c)
	}
	return out
}

// withoutAssertions replaces every empty-width assertion in re by the empty string: every
// string re matches at an offset, the result matches there too.
func withoutAssertions(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch, Flags: re.Flags}
	}
	cp := *re
	cp.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		cp.Sub[i] = withoutAssertions(s)
	}
	return &cp
}

// heads splits re on an alternation it starts with (after empty strings and groups): every
// match of re is a match of one of the results, each a branch followed by the rest of re.
func heads(re *syntax.Regexp) []*syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpAlternate:
		return re.Sub
	case syntax.OpConcat:
		i := 0
		for i < len(re.Sub) && re.Sub[i].Op == syntax.OpEmptyMatch {
			i++
		}
		if i == len(re.Sub) {
			return []*syntax.Regexp{re}
		}
		first := re.Sub[i]
		for first.Op == syntax.OpCapture {
			first = first.Sub[0]
		}
		if first.Op != syntax.OpAlternate {
			return []*syntax.Regexp{re}
		}
		out := make([]*syntax.Regexp, 0, len(first.Sub))
		for _, br := range first.Sub {
			cat := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags}
			cat.Sub = append([]*syntax.Regexp{br}, re.Sub[i+1:]...)
			out = append(out, cat)
		}
		return out
	}
	return []*syntax.Regexp{re}
}

// literalStart returns the bytes every match of re starts with, as far as a look at its first
// literal tells (Go's own LiteralPrefix decides in the end).
func literalStart(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpCapture:
		return literalStart(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if s.Op != syntax.OpEmptyMatch {
				return literalStart(s)
			}
		}
	case syntax.OpLiteral:
		n := len(re.Rune)
		if re.Flags&syntax.FoldCase != 0 {
			n = 0
			for n < len(re.Rune) && unicode.SimpleFold(re.Rune[n]) == re.Rune[n] {
				n++
			}
		}
		return string(re.Rune[:n])
	}
	return ""
}

// maxPrinted bounds the characters of the classes an expression printed for a superset may
// hold: printing checks each character of a class for case folds, and a class such as [^"]
// holds a million (100 ms for one rule).
const maxPrinted = 512

// cheapPrefix returns an expression that matches, at every offset where re matches, a prefix
// of that match (a superset, for the question whether re matches anywhere), holding no wide
// class; complete is true when it is re itself.
func cheapPrefix(re *syntax.Regexp) (p *syntax.Regexp, complete bool) {
	if classWidth(re) <= maxPrinted {
		return re, true
	}
	switch re.Op {
	case syntax.OpCapture:
		p, _ := cheapPrefix(re.Sub[0])
		return p, false
	case syntax.OpConcat:
		cat := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags}
		for _, s := range re.Sub {
			p, complete := cheapPrefix(s)
			if p != nil {
				cat.Sub = append(cat.Sub, p)
			}
			if !complete {
				break
			}
		}
		if len(cat.Sub) == 0 {
			return nil, false
		}
		return cat, false
	}
	return nil, false
}

// classWidth is the number of characters in re's character classes, all told.
func classWidth(re *syntax.Regexp) int {
	n := 0
	if re.Op == syntax.OpCharClass {
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
		}
	}
	for _, s := range re.Sub {
		n += classWidth(s)
	}
	return n
}
