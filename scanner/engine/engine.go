package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/scanner"

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
)

// MaxDecodeDepth matches the gitleaks CLI's default, so that base64- or hex-wrapped secrets
// are found here exactly when `gitleaks dir` would find them.
const MaxDecodeDepth = 5

// Detector is one lazily built gitleaks detector for a repository (honouring its .gitleaks.toml
// and .gitleaksignore). Building it costs tens of milliseconds, so it happens on first use only.
// It is safe for concurrent use.
type Detector struct {
	root string

	once sync.Once
	// lazy is the default configuration's rules, compiled as texts need them (lazy.go); nil
	// for a repository's own .gitleaks.toml, which is built whole into det and plan.
	lazy *lazyRules
	// det is every rule, decoding as the gitleaks CLI does: built at once for a custom
	// configuration, on first need (text the decoder may rewrite) for the default one.
	det        *detect.Detector
	detOnce    sync.Once
	plan       plan             // det's rules split by how their text may be cut; see plan.go
	ignore     *detect.Detector // holds .gitleaksignore (det itself for a custom configuration)
	err        error
	decodeSync // the rules split for text the decoder rewrites (decode.go)
	// add serialises AddFinding, whose only use here is its .gitleaksignore check: the
	// detector appends to one shared slice, and we read its length around the call.
	add sync.Mutex
}

// New returns a detector for the repository at root. It is cheap: nothing is built yet.
func New(root string) *Detector { return &Detector{root: root} }

// gitleaksMu guards gitleaks' package globals (its viper instance, its logger and the config
// extension depth) while a detector is built.
var gitleaksMu sync.Mutex

// quietGitleaks silences gitleaks, which logs to stderr through a package global: a library
// must stay silent. It runs once, before the first detector exists, because detectors read
// the global while they scan.
var quietGitleaks = sync.OnceFunc(func() { logging.Logger = zerolog.Nop() })

// defaultConfig is gitleaks' built-in configuration, translated once per process: its ~200
// regular expressions cost more to compile than a whole mbguard run otherwise takes.
var defaultConfig = sync.OnceValues(func() (config.Config, error) {
	return translate(config.DefaultConfig)
})

// translate turns TOML text into a gitleaks configuration through gitleaks' own loader (the
// only one that knows [extend] and allowlists). Callers hold gitleaksMu.
func translate(toml string) (config.Config, error) {
	viper.Reset()
	viper.SetConfigType("toml")
	if err := viper.ReadConfig(strings.NewReader(toml)); err != nil {
		return config.Config{}, err
	}
	var vc config.ViperConfig
	if err := viper.Unmarshal(&vc); err != nil {
		return config.Config{}, err
	}
	return vc.Translate()
}

// Ready builds the detector now (it is otherwise built on the first Scan) and reports a
// broken .gitleaks.toml or .gitleaksignore.
func (s *Detector) Ready() error {
	s.once.Do(s.build)
	return s.err
}

func (s *Detector) build() {
	gitleaksMu.Lock()
	defer gitleaksMu.Unlock()
	quietGitleaks()

	cfg, ok := s.loadRules()
	if !ok {
		return
	}
	var d *detect.Detector
	if s.lazy != nil {
		d = detect.NewDetector(config.Config{}) // only for .gitleaksignore
	} else {
		d = detect.NewDetector(cfg)
		d.MaxDecodeDepth = MaxDecodeDepth
	}
	ign := filepath.Join(s.root, scanner.GitleaksIgnore)
	if fi, err := os.Stat(ign); err == nil && !fi.IsDir() && s.root != "" {
		if err := d.AddGitleaksIgnore(ign); err != nil {
			s.err = fmt.Errorf("reading %s: %w (fix its permissions or remove it)", scanner.GitleaksIgnore, fsutil.WithoutPath(err))
			return
		}
	} else if err == nil && fi.IsDir() {
		s.err = fmt.Errorf("reading %s: is a directory (remove it)", scanner.GitleaksIgnore)
		return
	}
	s.ignore = d
	switch {
	case s.lazy != nil:
	case cfg.Path == "":
		s.det, s.plan = d, defaultPlan()
	default:
		s.det, s.plan = d, newPlan(cfg)
	}
}

// loadRules reads the project's gitleaks configuration, or takes the default rules (built
// lazily when they can be); ok is false when s.err says why neither can be used.
func (s *Detector) loadRules() (cfg config.Config, ok bool) {
	cfgPath := filepath.Join(s.root, scanner.GitleaksConfig)
	raw, err := os.ReadFile(cfgPath)
	switch {
	case (errors.Is(err, fs.ErrNotExist) || s.root == "") && defaultLazy() != nil:
		s.lazy = defaultLazy()
	case errors.Is(err, fs.ErrNotExist) || s.root == "":
		cfg, err = defaultConfig()
		if err != nil {
			s.err = fmt.Errorf("loading gitleaks' default rules: %w", err)
			return cfg, false
		}
	case err != nil:
		s.err = fmt.Errorf("reading %s: %w (fix its permissions or remove it)", scanner.GitleaksConfig, fsutil.WithoutPath(err))
		return cfg, false
	default:
		cfg, err = translate(string(raw))
		if err != nil {
			s.err = fmt.Errorf("%s: %w (fix it; see https://github.com/gitleaks/gitleaks#configuration)", scanner.GitleaksConfig, err)
			return cfg, false
		}
		cfg.Path = scanner.GitleaksConfig
	}
	return cfg, true
}

// full returns the detector of every rule, decoding as the gitleaks CLI does, building the
// default one on first need. Callers have called Ready without error.
func (s *Detector) full() *detect.Detector {
	s.detOnce.Do(func() {
		if s.det != nil {
			return
		}
		gitleaksMu.Lock()
		cfg, err := defaultConfig()
		gitleaksMu.Unlock()
		if err != nil {
			// The same text split into rules just now; translating it whole cannot fail
			// where its parts did not. Scan nothing rather than crash a hook.
			cfg = config.Config{}
		}
		d := detect.NewDetector(cfg)
		d.MaxDecodeDepth = MaxDecodeDepth
		s.det = d
	})
	return s.det
}

// planFor returns the plan to cut content, stored at path, by: the custom configuration's, or
// that of the default rules that may report something in it.
func (s *Detector) planFor(path string, content []byte) *plan {
	if s.lazy == nil {
		return &s.plan
	}
	p, err := s.lazy.planFor(path, content)
	if err != nil {
		// Not expected (the parts of a configuration that translates whole); stay exact.
		gitleaksMu.Lock()
		full := defaultPlan()
		gitleaksMu.Unlock()
		return &full
	}
	return p
}

// defaultPlan is newPlan for gitleaks' default rules, built once per process (classifying
// ~220 expressions costs about as much as translating them).
var defaultPlan = sync.OnceValue(func() plan {
	cfg, _ := defaultConfig()
	return newPlan(cfg)
})

// Scan returns the secrets in content, which would be stored at the repository-relative path:
// exactly what gitleaks' detector (every rule, decoding as its CLI does) reports on the whole
// content, less the findings listed in .gitleaksignore and lines marked gitleaks:allow.
func (s *Detector) Scan(path string, content []byte) ([]scanner.SecretFinding, error) {
	if err := s.Ready(); err != nil {
		return nil, err
	}
	found := s.detect(filepath.ToSlash(path), content, 1)
	lineStart := lineOffsets(content)
	var out []scanner.SecretFinding
	for _, f := range found {
		if f.StartLine < 1 {
			f.StartLine = 1
		}
		if !s.keep(f) {
			continue
		}
		out = append(out, locate(content, lineStart, f))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Start < out[j].Start
	})
	return out, nil
}

// detect returns gitleaks' findings in content, whose first line is line firstLine of the
// file, before .gitleaksignore. They are those of the full detector on the whole of content:
// see plan.go for why each cut is sound.
func (s *Detector) detect(path string, content []byte, firstLine int) []report.Finding {
	twin := twinPicker(path, content)
	whole := func(d *detect.Detector) []report.Finding {
		return twin(d).Detect(detect.Fragment{Raw: string(content), FilePath: path, StartLine: firstLine})
	}
	if mayHoldEncoded(content) {
		// The decoder found something (or may): the raw text's findings as always, the
		// decoding passes' around the encoded lines (decode.go).
		p := s.decoding()
		w, ok := p.windows(content, newLines(content))
		if !ok || !foldFree(content, w) {
			return whole(s.full())
		}
		found := s.cut(path, content, firstLine, twin)
		if p.whole != nil {
			found = append(found, decodedOnly(whole(p.whole))...)
		}
		if p.win != nil {
			for _, c := range w {
				found = append(found, decodedOnly(twin(p.win).Detect(fragment(path, content, c, firstLine)))...)
			}
		}
		return dropGenericDuplicates(found)
	}
	return s.cut(path, content, firstLine, twin)
}

// cut is detect for text without anything gitleaks' decoder would decode: every rule but
// generic-api-key on fragments as its expression allows, generic-api-key on the windows
// around its possible matches. twin swaps a detector for an equivalent one (lean.go).
func (s *Detector) cut(path string, content []byte, firstLine int, twin func(*detect.Detector) *detect.Detector) []report.Finding {
	whole := func(d *detect.Detector) []report.Finding {
		return twin(d).Detect(detect.Fragment{Raw: string(content), FilePath: path, StartLine: firstLine})
	}
	p := s.planFor(path, content)
	var found []report.Finding
	fpath, decided := path, false
	run := func(d *detect.Detector, frags []span) {
		if !decided && len(frags) > 0 { // matching the allowlists' paths costs more than most notes' scan
			if p.pathFree(path) {
				fpath = ""
			}
			decided = true
		}
		d = twin(d)
		for _, c := range frags {
			for _, f := range d.Detect(fragment(fpath, content, c, firstLine)) {
				f.File = path
				found = append(found, f)
			}
		}
	}
	if p.line != nil {
		run(p.line, cutAfterLines(content, fragmentTarget))
	}
	if p.blank != nil {
		run(p.blank, cutAfterBlankLines(content, fragmentTarget))
	}
	if p.whole != nil {
		found = append(found, whole(p.whole)...)
	}
	var idx *lines
	index := func() *lines {
		if idx == nil {
			idx = newLines(content)
		}
		return idx
	}
	if p.near != nil {
		if w, ok := nearWindows(content, p.nearKeywords, p.nearReach, index); ok && !hasCaseFolder(content) {
			run(p.near, w)
		} else {
			found = append(found, whole(p.near)...)
		}
	}
	if p.generic != nil {
		if hasCaseFolder(content) {
			found = append(found, whole(p.generic)...)
		} else {
			run(p.generic, genericWindows(content, index))
		}
	}
	return dropGenericDuplicates(found)
}

// fragmentTarget is the size from which detect cuts text for cutLine and cutBlank rules.
// gitleaks runs a rule over a whole fragment as soon as one of its keywords occurs anywhere
// in it, so smaller fragments keep rules off more text, at a fixed cost per fragment. (A
// variable only so that the fuzz test can cut at nearly every line.)
var fragmentTarget = 1024

// span is a piece of content: [start, end), start at a line start, end just after a newline
// (or at the end); line is the 1-based line of start, relative to content.
type span struct{ start, end, line int }

// fragment gives gitleaks the span together with the newline before it, so that the line it
// reports and matches allowlists against is the one it sees in the whole text.
func fragment(path string, content []byte, c span, firstLine int) detect.Fragment {
	if c.start == 0 {
		return detect.Fragment{Raw: string(content[:c.end]), FilePath: path, StartLine: firstLine}
	}
	return detect.Fragment{Raw: string(content[c.start-1 : c.end]), FilePath: path, StartLine: firstLine + c.line - 2}
}

// cutAfterLines cuts content after newlines into spans of at least target bytes.
func cutAfterLines(content []byte, target int) []span {
	var out []span
	start, line := 0, 1
	for start < len(content) {
		end := len(content)
		if from := start + target - 1; from < len(content) {
			if i := bytes.IndexByte(content[from:], '\n'); i >= 0 {
				end = from + i + 1
			}
		}
		out = append(out, span{start, end, line})
		line += bytes.Count(content[start:end], []byte{'\n'})
		start = end
	}
	return out
}

// cutAfterBlankLines cuts content after empty lines ("" or "\r") into spans of at least
// target bytes.
func cutAfterBlankLines(content []byte, target int) []span {
	var out []span
	start, line := 0, 1
	for start < len(content) {
		end := len(content)
		if from := start + target - 1; from < len(content) {
			if i := nextBlank(content, from); i >= 0 {
				end = i
			}
		}
		out = append(out, span{start, end, line})
		line += bytes.Count(content[start:end], []byte{'\n'})
		start = end
	}
	return out
}

// nextBlank returns the offset just after the first empty line that ends at or after from, or -1.
func nextBlank(content []byte, from int) int {
	for {
		i := bytes.IndexByte(content[from:], '\n')
		if i < 0 {
			return -1
		}
		nl := from + i
		ls := bytes.LastIndexByte(content[:nl], '\n') + 1
		if nl == ls || nl == ls+1 && content[ls] == '\r' {
			return nl + 1
		}
		from = nl + 1
	}
}

// genericWindows returns the parts of content that hold every possible match of gitleaks'
// generic-api-key: around each keyword that mayHoldGeneric would keep, from the start of its
// line to the end of the line 64 bytes on (a match takes at most 50 word bytes before the
// keyword, none of them a newline, and reaches its value within 42 bytes of the keyword; the
// value and its one closing byte end that value's line at the latest). Windows that overlap
// are merged, so no match straddles two. Text with a letter that (?i) folds onto ASCII is not
// covered by this reasoning; detect scans it whole.
func genericWindows(content []byte, index func() *lines) []span {
	var out []span
	eachGenericCandidate(content, func(i int) {
		l := index()
		lo, hi := l.start(i), l.after(min(i+64, len(content)))
		if n := len(out); n > 0 && lo <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, hi)
			return
		}
		out = append(out, span{lo, hi, l.line(lo)})
	})
	return out
}

// dropGenericDuplicates applies gitleaks' rule that a generic finding gives way to a specific
// one on the same line whose secret contains it (detect's filter), across the findings of the
// several detectors detect used.
func dropGenericDuplicates(fs []report.Finding) []report.Finding {
	isGeneric := func(f report.Finding) bool { return strings.Contains(strings.ToLower(f.RuleID), "generic") }
	// the specific findings by line: a file of thousands of findings compared each generic
	// one with every other, which grew with the square of their number
	type lineOf struct {
		line   int
		commit string
	}
	specific := map[lineOf][]int{}
	for i, f := range fs {
		if !isGeneric(f) {
			k := lineOf{f.StartLine, f.Commit}
			specific[k] = append(specific[k], i)
		}
	}
	out := fs[:0:0]
	for _, f := range fs {
		drop := false
		if isGeneric(f) {
			for _, i := range specific[lineOf{f.StartLine, f.Commit}] {
				if o := fs[i]; o.RuleID != f.RuleID && strings.Contains(o.Secret, f.Secret) {
					drop = true
					break
				}
			}
		}
		if !drop {
			out = append(out, f)
		}
	}
	return out
}

// keep routes a finding through the detector's AddFinding, which alone applies the
// .gitleaksignore fingerprints, and reports whether it survived.
func (s *Detector) keep(f report.Finding) bool {
	s.add.Lock()
	defer s.add.Unlock()
	n := len(s.ignore.Findings())
	s.ignore.AddFinding(f)
	return len(s.ignore.Findings()) > n
}

// lineOffsets returns the byte offset at which each line starts; index 0 is line 1.
func lineOffsets(content []byte) []int {
	offs := []int{0}
	for i, b := range content {
		if b == '\n' {
			offs = append(offs, i+1)
		}
	}
	return offs
}

// locate finds the secret's bytes in content for redaction. A secret found only after
// decoding (base64, hex…) is not in the text verbatim: then its whole lines are covered.
func locate(content []byte, lineStart []int, f report.Finding) scanner.SecretFinding {
	sf := scanner.SecretFinding{Rule: f.RuleID, Line: f.StartLine}
	from := len(content)
	if f.StartLine-1 < len(lineStart) {
		from = lineStart[f.StartLine-1]
	}
	to := len(content)
	if f.EndLine < len(lineStart) && f.EndLine >= f.StartLine {
		to = lineStart[f.EndLine]
	}
	if f.Secret != "" {
		// from the match's column on (the secret is in the match): a search from the line's
		// start costs the whole line per finding, on a line of megabytes with thousands
		at := from
		if f.StartColumn > 1 && f.StartLine == f.EndLine {
			at = min(max(from, from+f.StartColumn-2), to)
		}
		if i := bytes.Index(content[at:to], []byte(f.Secret)); i >= 0 {
			sf.Start, sf.End = at+i, at+i+len(f.Secret)
			return sf
		}
		if i := bytes.Index(content[from:to], []byte(f.Secret)); at > from && i >= 0 {
			sf.Start, sf.End = from+i, from+i+len(f.Secret)
			return sf
		}
	}
	sf.Start, sf.End = from, to
	for sf.End > sf.Start && (content[sf.End-1] == '\n' || content[sf.End-1] == '\r') {
		sf.End--
	}
	return sf
}

func init() {
	scanner.UseEngine(func(root string) scanner.Engine { return New(root) })
}

// Warm builds what the first scan of any repository without a .gitleaks.toml of its own
// needs (gitleaks' default rules, split for lazy building), for a process that knows a scan
// is coming but not yet of what: `mbguard scan-engine` runs it while mbguard-hook does the
// rest of its call.
func Warm() { _ = New("").Ready() }
