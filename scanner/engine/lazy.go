package engine

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
)

// Building gitleaks' default configuration (parsing ~100 KB of TOML, compiling ~220 regular
// expressions, classifying them for plan.go) costs 100-300 ms, far more than a hook call may
// take. Yet gitleaks runs a rule only on text holding one of its keywords, and a note holds
// the keywords of a handful of rules. So for the default rules Scan compiles only the rules
// whose keywords occur in the text, plus every rule without keywords and the rules those
// require; the rest cannot produce a finding, so the findings are exactly the full
// detector's. Compiled rules and the plans built from them are kept per process, so that
// serve and watch pay for each rule once.
//
// A repository's own .gitleaks.toml is built whole, as before: its [extend] and allowlists
// are gitleaks' to interpret. Text the decoder may rewrite (mayHoldEncoded) is also scanned by
// the whole default set: decoded text may hold keywords the raw text lacks.

// ruleBlock is one [[rules]] table of the default configuration, uncompiled.
type ruleBlock struct {
	id       string
	keywords []string // lower-cased, as gitleaks compares them
	text     string   // the table and its sub-tables, as TOML
}

// splitRules cuts TOML text into what precedes the first [[rules]] table (title, global
// allowlists) and the rule tables, reading each rule's id and keywords by hand. It fails
// on anything it does not recognise; the caller then builds the whole configuration.
// (Tests check the result against gitleaks' own parse of the same text.)
func splitRules(text string) (head string, rules []ruleBlock, err error) {
	const marker = "\n[[rules]]\n"
	i := strings.Index(text, marker)
	if i < 0 {
		return "", nil, errors.New("no [[rules]] table")
	}
	head, rest := text[:i+1], text[i+1:]
	for rest != "" {
		block := rest
		if j := strings.Index(rest[1:], marker); j >= 0 {
			block, rest = rest[:j+2], rest[j+2:]
		} else {
			rest = ""
		}
		r, err := readRule(block)
		if err != nil {
			return "", nil, err
		}
		rules = append(rules, r)
	}
	return head, rules, nil
}

// readRule reads the id and keywords lines of one rule table (before its sub-tables).
func readRule(block string) (ruleBlock, error) {
	r := ruleBlock{text: block}
	top := block[len("[[rules]]\n"):]
	if i := strings.Index(top, "\n["); i >= 0 {
		top = top[:i]
	}
	for line := range strings.Lines(top) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "id = "):
			id, err := strconv.Unquote(line[len("id = "):])
			if err != nil || id == "" {
				return r, errors.New("unreadable rule id")
			}
			r.id = id
		case strings.HasPrefix(line, "keywords = ["):
			at := strings.Index(top, line)
			end := strings.IndexByte(top[at:], ']')
			if end < 0 {
				return r, errors.New("unterminated keywords")
			}
			list := top[at+len("keywords = [") : at+end]
			for _, item := range strings.Split(list, ",") {
				item = strings.TrimSpace(item)
				if item == "" {
					continue
				}
				k, err := strconv.Unquote(item)
				if err != nil || strings.ContainsAny(k, "\\") {
					return r, errors.New("unreadable keyword")
				}
				r.keywords = append(r.keywords, strings.ToLower(k))
			}
		}
	}
	if r.id == "" {
		return r, errors.New("rule without id")
	}
	return r, nil
}

// lazyRules is a configuration's rules compiled on demand. It is safe for concurrent use.
type lazyRules struct {
	text     string
	rules    []ruleBlock
	byID     map[string]int
	keywords []string // every keyword once, lower-cased
	kwRule   [][]int  // kwRule[i]: the rules holding keywords[i]
	always   []int    // rules without keywords
	// generic is the index of generic-api-key when it is the rule genericWindows knows (see
	// newPlan), else -1: text without a candidate for it (mayHoldGeneric) skips the rule,
	// whose expression and 1,500 stop words cost more to build than the rest of a hook call.
	generic func() int
	// kwSet finds all keywords in one pass, for long texts.
	kwSet func() *kwSet

	mu       sync.Mutex
	base     config.Config          // the head: global allowlists, no rules
	compiled map[string]config.Rule // by id
	gates    map[string]ruleGate    // by id, for the compiled rules (gate.go)
	plans    map[string]*plan       // by the selected ids, joined
}

// maxPlans bounds the plans a long-running process keeps; past it they are rebuilt.
const maxPlans = 64

// defaultLazy is gitleaks' default configuration, split once per process (nil when it
// cannot be split: then the whole configuration is built, as for a custom one). Callers hold
// gitleaksMu.
var defaultLazy = sync.OnceValue(func() *lazyRules {
	l, err := newLazyRules(config.DefaultConfig)
	if err != nil {
		return nil
	}
	return l
})

// newLazyRules splits a configuration's text. Callers hold gitleaksMu.
func newLazyRules(text string) (*lazyRules, error) {
	head, rules, err := splitRules(text)
	if err != nil {
		return nil, err
	}
	var vc config.ViperConfig
	if err := toml.Unmarshal([]byte(head), &vc); err != nil {
		return nil, err
	}
	base, err := vc.Translate()
	if err != nil {
		return nil, err
	}
	l := &lazyRules{text: text, rules: rules, byID: map[string]int{}, base: base,
		compiled: map[string]config.Rule{}, gates: map[string]ruleGate{}, plans: map[string]*plan{}}
	kwIndex := map[string]int{}
	for i, r := range rules {
		if _, dup := l.byID[r.id]; dup {
			return nil, errors.New("duplicate rule id " + r.id)
		}
		l.byID[r.id] = i
		if len(r.keywords) == 0 {
			l.always = append(l.always, i)
		}
		for _, k := range r.keywords {
			n, ok := kwIndex[k]
			if !ok {
				n = len(l.keywords)
				kwIndex[k] = n
				l.keywords = append(l.keywords, k)
				l.kwRule = append(l.kwRule, nil)
			}
			l.kwRule[n] = append(l.kwRule[n], i)
		}
	}
	l.generic = sync.OnceValue(l.genericApart)
	l.kwSet = sync.OnceValue(func() *kwSet { return newKwSet(l.keywords) })
	return l, nil
}

// genericApart returns the index of generic-api-key if no other rule names it and it is the
// rule genericWindows is proved for, else -1.
func (l *lazyRules) genericApart() int {
	i, ok := l.byID[genericRule]
	if !ok || strings.Count(l.text, `"`+genericRule+`"`) != 1 {
		return -1
	}
	// Its own keys only: the sub-tables are allowlists (1,500 stop words, slow to read) and
	// required rules, which disqualify it.
	text := l.rules[i].text
	if strings.Contains(text, "[[rules.required]]") {
		return -1
	}
	if j := strings.Index(text, "\n[[rules."); j >= 0 {
		text = text[:j+1]
	}
	var one config.ViperConfig
	if err := toml.Unmarshal([]byte(text), &one); err != nil || len(one.Rules) != 1 {
		return -1
	}
	r := one.Rules[0]
	if r.Regex != genericRegex || r.Path != "" || len(r.Required) > 0 || r.SkipReport || !genericKeywordsCovered(l.rules[i].keywords) {
		return -1
	}
	return i
}

// selectRules returns, in the configuration's order, the rules gitleaks could run on text:
// those with a keyword in it (lower-cased, as gitleaks looks for them) and those without
// keywords.
func (l *lazyRules) selectRules(text []byte) []int {
	on := make([]bool, len(l.rules))
	for _, i := range l.always {
		on[i] = true
	}
	lower := strings.ToLower(string(text))
	if len(lower) > bigText {
		// One pass for all keywords: a search per keyword would cost ~240 passes.
		l.kwSet().each([]byte(lower), func(n, _ int) {
			for _, i := range l.kwRule[n] {
				on[i] = true
			}
		})
		return l.pick(text, on)
	}
	// Which byte pairs occur: most keywords are ruled out without searching the text.
	var pairs [1 << 16 / 64]uint64
	for i := 0; i+1 < len(lower); i++ {
		p := uint16(lower[i])<<8 | uint16(lower[i+1])
		pairs[p/64] |= 1 << (p % 64)
	}
	for n, k := range l.keywords {
		if len(k) >= 2 {
			if p := uint16(k[0])<<8 | uint16(k[1]); pairs[p/64]&(1<<(p%64)) == 0 {
				continue
			}
		}
		if strings.Contains(lower, k) {
			for _, i := range l.kwRule[n] {
				on[i] = true
			}
		}
	}
	return l.pick(text, on)
}

// bigText is the size from which selectRules looks for all keywords in one pass.
const bigText = 16 << 10

// pick returns the rules on, less generic-api-key where it would run on nothing.
func (l *lazyRules) pick(text []byte, on []bool) []int {
	if g := l.generic(); g >= 0 && on[g] && !mayHoldGeneric(text) {
		on[g] = false // genericWindows(text) is empty: the rule would run on nothing
	}
	var out []int
	for i, ok := range on {
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// planFor returns the plan of the rules selectRules picks for text, stored at path, less
// those whose gate proves they report nothing in it.
func (l *lazyRules) planFor(path string, text []byte) (*plan, error) {
	sel := l.selectRules(text)
	ids := make([]string, len(sel))
	for n, i := range sel {
		ids[n] = l.rules[i].id
	}
	l.mu.Lock()
	if err := l.compile(ids); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	ids, gates, tied := l.withRequired(ids)
	l.mu.Unlock()
	kept := ids[:0]
	for n, id := range ids {
		if tied[id] || gates[n].may(path, text) {
			kept = append(kept, id)
		}
	}
	ids = kept
	l.mu.Lock()
	defer l.mu.Unlock()
	sort.Slice(ids, func(a, b int) bool { return l.byID[ids[a]] < l.byID[ids[b]] })
	key := strings.Join(ids, "\x00")
	if p, ok := l.plans[key]; ok {
		return p, nil
	}
	cfg := l.base
	cfg.Rules = make(map[string]config.Rule, len(ids))
	cfg.Keywords = map[string]struct{}{}
	cfg.OrderedRules = ids
	for _, id := range ids {
		r := l.compiled[id]
		cfg.Rules[id] = r
		for _, k := range r.Keywords {
			cfg.Keywords[k] = struct{}{}
		}
	}
	p := newPlan(cfg)
	if len(l.plans) >= maxPlans {
		clear(l.plans)
	}
	l.plans[key] = &p
	return &p, nil
}

// withRequired adds to ids the rules they require (a composite rule needs them in the same
// detector) and returns each rule's gate and the rules tied to others, which are never gated.
// Callers hold l.mu and have compiled ids.
func (l *lazyRules) withRequired(ids []string) ([]string, []ruleGate, map[string]bool) {
	tied := map[string]bool{}
	for n := 0; n < len(ids); n++ {
		r := l.compiled[ids[n]]
		if len(r.RequiredRules) > 0 || r.SkipReport {
			tied[ids[n]] = true
		}
		for _, q := range r.RequiredRules {
			tied[q.RuleID] = true
			if !slices.Contains(ids, q.RuleID) {
				ids = append(ids, q.RuleID)
			}
		}
	}
	gates := make([]ruleGate, len(ids))
	for n, id := range ids {
		gates[n] = l.gates[id]
	}
	return ids, gates, tied
}

// compile translates the listed rules not compiled yet, with every rule they require, in
// one pass of gitleaks' own translation. Callers hold l.mu.
func (l *lazyRules) compile(ids []string) error {
	var todo []string
	for _, id := range ids {
		if _, ok := l.compiled[id]; !ok {
			todo = append(todo, id)
		}
	}
	for len(todo) > 0 {
		var b strings.Builder
		for _, id := range todo {
			b.WriteString(l.rules[l.byID[id]].text)
		}
		var vc config.ViperConfig
		if err := toml.Unmarshal([]byte(b.String()), &vc); err != nil {
			return err
		}
		// Pull in required rules that are missing, then translate again.
		missing := false
		for _, vr := range vc.Rules {
			for _, q := range vr.Required {
				if _, ok := l.byID[q.ID]; ok && !slices.Contains(todo, q.ID) {
					todo = append(todo, q.ID)
					missing = true
				}
			}
		}
		if missing {
			continue
		}
		gitleaksMu.Lock()
		cfg, err := vc.Translate()
		gitleaksMu.Unlock()
		if err != nil {
			return err
		}
		for id, r := range cfg.Rules {
			l.compiled[id] = r
			l.gates[id] = newGate(r)
		}
		return nil
	}
	return nil
}

// compiledCount reports how many rules have been compiled so far (for tests).
func (l *lazyRules) compiledCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.compiled)
}
