package engine

import (
	"sort"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/detect/codec"
	"github.com/zricethezav/gitleaks/v8/report"
)

// Text the decoder rewrites (base64, hex, percent and unicode escapes that decode to text)
// used to go whole through the full detector: every rule whose keyword occurs anywhere, over
// the whole file, once per decoding pass - quadratic in practice on a large note with one
// encoded value among random ids. gitleaks' findings there split in two:
//
//   - those of the raw text (pass 0): exactly cut's, as for any other text;
//   - those of the decoding passes, which gitleaks keeps only where a match overlaps a segment
//     the pass decoded. Segments lie on suspect lines (encodedLine); rules that may be cut at
//     lines, and cutNear rules, run with decoding on windows around the suspect lines (when
//     no pass makes a caseFolder there: foldFree); every other rule runs with decoding on the
//     whole text.
//
// A window is whole lines whose edges are quiet: no suspect line and no keyword of the
// windowed cutNear rules within reach (the longest match) of an edge. A window's decoding
// passes then find the text's segments inside it, no windowed rule's match straddles an edge
// in any pass (a line rule's stops at a newline, a cutNear rule's is near its keyword), so
// from the edge on the window's matches are the text's (see nearWindows), and each window
// holds the keywords its overlapping matches need.

// decodePlan is the full configuration's rules split as above, both decoding as the CLI does.
type decodePlan struct {
	win, whole *detect.Detector
	keywords   *kwSet // of the cutNear rules in win
	reach      []reach
	margin     reach // the longest reaches
}

func (s *Detector) decoding() *decodePlan {
	s.decOnce.Do(func() {
		s.dec = newDecodePlan(s.full().Config)
	})
	return s.dec
}

func newDecodePlan(cfg config.Config) *decodePlan {
	tied := map[string]bool{}
	for id, r := range cfg.Rules {
		if len(r.RequiredRules) > 0 {
			tied[id] = true
			for _, q := range r.RequiredRules {
				tied[q.RuleID] = true
			}
		}
	}
	var win, whole []string
	kw := map[string]reach{}
	for id, r := range cfg.Rules {
		switch classify(r, tied[id]) {
		case cutLine:
			win = append(win, id)
			continue
		case cutNear:
			// Its keywords are in every match at least in text without a caseFolder: detect
			// windows only text whose decoded windows hold none (foldFree).
			addReach(kw, r)
			win = append(win, id)
			continue
		}
		whole = append(whole, id)
	}
	words, reaches := splitReach(kw)
	margin := reach{-1, -1}
	for _, r := range reaches {
		margin = reach{max(margin.bytes, r.bytes), max(margin.lines, r.lines)}
	}
	return &decodePlan{
		win:      decodingDetector(cfg, win),
		whole:    decodingDetector(cfg, whole),
		keywords: newKwSet(words),
		reach:    reaches,
		margin:   margin,
	}
}

// decodingDetector is subDetector, decoding as the gitleaks CLI does.
func decodingDetector(cfg config.Config, ids []string) *detect.Detector {
	d := subDetector(cfg, ids)
	if d != nil {
		d.MaxDecodeDepth = MaxDecodeDepth
	}
	return d
}

// windows returns the windows of text for win, or false when offsets in the lower-cased
// text are not offsets in text (lowerAligned).
func (p *decodePlan) windows(text []byte, l *lines) ([]span, bool) {
	lower, ok := lowerAligned(text)
	if !ok {
		return nil, false
	}
	type iv struct {
		lo, hi  int
		suspect bool
	}
	var ivs []iv
	for ls := 0; ls < len(text); {
		le := l.after(ls)
		if encodedLine(text[ls:le]) {
			a, _ := l.around(ls, 0, p.margin)
			_, b := l.around(max(le-1, ls), 0, p.margin)
			ivs = append(ivs, iv{a, b, true})
		}
		ls = le
	}
	if len(ivs) == 0 {
		return nil, true
	}
	p.keywords.each(lower, func(k, o int) {
		a, b := l.around(o, len(p.keywords.words[k]), p.reach[k])
		ivs = append(ivs, iv{a, b, false})
	})
	// Line-aligned pieces, merged while they touch; those holding a suspect line are windows.
	for i := range ivs {
		ivs[i].lo, ivs[i].hi = l.start(ivs[i].lo), l.after(max(ivs[i].hi-1, ivs[i].lo))
	}
	sort.Slice(ivs, func(a, b int) bool { return ivs[a].lo < ivs[b].lo })
	var merged []iv
	for _, v := range ivs {
		if n := len(merged); n > 0 && v.lo < merged[n-1].hi {
			merged[n-1].hi = max(merged[n-1].hi, v.hi)
			merged[n-1].suspect = merged[n-1].suspect || v.suspect
			continue
		}
		merged = append(merged, v)
	}
	var out []span
	for _, v := range merged {
		if v.suspect {
			out = append(out, span{v.lo, v.hi, l.line(v.lo)})
		}
	}
	return out, true
}

// encodedLine reports whether the decoder may find a segment on the line (its newline
// included): mayHoldEncoded's test, line by line. Every segment of every pass lies on such
// lines: a pass decodes in place, and its patterns cross a newline only through a run of U+XXXX
// escapes, each on a suspect line.
func encodedLine(line []byte) bool { return mayHoldEncoded(line) }

// foldFree reports whether neither text nor what the decoder makes of its windows, pass after
// pass, holds a caseFolder: then every cutNear rule holds a keyword in every match of every
// pass, as the windows need.
func foldFree(text []byte, w []span) bool {
	if hasCaseFolder(text) {
		return false
	}
	for _, c := range w {
		cur, dec := string(text[c.start:c.end]), codec.NewDecoder()
		var segs []*codec.EncodedSegment
		for range MaxDecodeDepth {
			cur, segs = dec.Decode(cur, segs)
			if len(segs) == 0 {
				break
			}
			if hasCaseFolder([]byte(cur)) {
				return false
			}
		}
	}
	return true
}

// decodedOnly keeps the findings of the decoding passes (tagged decode-depth:N).
func decodedOnly(fs []report.Finding) []report.Finding {
	out := fs[:0]
	for _, f := range fs {
		for _, t := range f.Tags {
			if strings.HasPrefix(t, "decode-depth:") {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// decodeSync guards the decode plan's one-time build; kept apart from Secrets' other onces.
type decodeSync struct {
	decOnce sync.Once
	dec     *decodePlan
}
