package scanner

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

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
)

// SecretFinding is a secret found by gitleaks, never carrying the secret itself.
type SecretFinding struct {
	Rule string // gitleaks rule id, e.g. "aws-access-token"
	Line int    // 1-based line in the scanned content
	// Start and End are byte offsets of the secret in the scanned content, for redaction.
	Start, End int
}

// GitleaksConfig and GitleaksIgnore are the files, at the repository root, that tune the
// secret scan exactly as they tune the gitleaks CLI.
const (
	GitleaksConfig = ".gitleaks.toml"
	GitleaksIgnore = ".gitleaksignore"
)

// MaxDecodeDepth matches the gitleaks CLI's default, so that base64- or hex-wrapped secrets
// are found here exactly when `gitleaks dir` would find them.
const MaxDecodeDepth = 5

// Secrets is one lazily built gitleaks detector for a repository (honouring its .gitleaks.toml
// and .gitleaksignore). Building it costs tens of milliseconds, so it happens on first use only.
// It is safe for concurrent use.
type Secrets struct {
	root string

	once sync.Once
	det  *detect.Detector // every rule, decoding as the gitleaks CLI does; holds .gitleaksignore
	// plain has every rule and no decoding, for fragments with nothing to decode; lite also
	// lacks generic-api-key, for fragments that cannot hold it (nil when the configuration's
	// rule is not the one mayHoldGeneric knows). See prefilter.go.
	plain, lite *detect.Detector
	err         error
	// add serialises AddFinding, whose only use here is its .gitleaksignore check: the
	// detector appends to one shared slice, and we read its length around the call.
	add sync.Mutex
}

// NewSecrets returns a detector for the repository at root. It is cheap: nothing is built yet.
func NewSecrets(root string) *Secrets { return &Secrets{root: root} }

// gitleaksMu guards gitleaks' package globals (its viper instance, its logger and the config
// extension depth) while a detector is built.
var gitleaksMu sync.Mutex

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
func (s *Secrets) Ready() error {
	s.once.Do(s.build)
	return s.err
}

func (s *Secrets) build() {
	gitleaksMu.Lock()
	defer gitleaksMu.Unlock()
	// gitleaks logs to stderr through a package global; a library must stay silent.
	logging.Logger = zerolog.Nop()

	cfgPath := filepath.Join(s.root, GitleaksConfig)
	raw, err := os.ReadFile(cfgPath)
	var cfg config.Config
	switch {
	case errors.Is(err, fs.ErrNotExist) || s.root == "":
		cfg, err = defaultConfig()
		if err != nil {
			s.err = fmt.Errorf("loading gitleaks' default rules: %w", err)
			return
		}
	case err != nil:
		s.err = fmt.Errorf("reading %s: %w (fix its permissions or remove it)", GitleaksConfig, unwrapPath(err))
		return
	default:
		cfg, err = translate(string(raw))
		if err != nil {
			s.err = fmt.Errorf("%s: %w (fix it; see https://github.com/gitleaks/gitleaks#configuration)", GitleaksConfig, err)
			return
		}
		cfg.Path = GitleaksConfig
	}
	d := detect.NewDetector(cfg)
	d.MaxDecodeDepth = MaxDecodeDepth
	ign := filepath.Join(s.root, GitleaksIgnore)
	if fi, err := os.Stat(ign); err == nil && !fi.IsDir() && s.root != "" {
		if err := d.AddGitleaksIgnore(ign); err != nil {
			s.err = fmt.Errorf("reading %s: %w (fix its permissions or remove it)", GitleaksIgnore, unwrapPath(err))
			return
		}
	} else if err == nil && fi.IsDir() {
		s.err = fmt.Errorf("reading %s: is a directory (remove it)", GitleaksIgnore)
		return
	}
	s.det = d
	s.plain = detect.NewDetector(cfg)
	s.plain.MaxDecodeDepth = 0
	if lite, ok := withoutGeneric(cfg); ok {
		s.lite = detect.NewDetector(lite)
		s.lite.MaxDecodeDepth = 0
	}
}

// detectorFor picks the cheapest detector that finds in frag exactly what det would.
func (s *Secrets) detectorFor(frag []byte) *detect.Detector {
	switch {
	case mayHoldEncoded(frag):
		return s.det
	case s.lite == nil || mayHoldGeneric(frag):
		return s.plain
	default:
		return s.lite
	}
}

// unwrapPath drops the absolute path from an *fs.PathError: messages name the file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// chunkTarget is the size from which Scan cuts content into fragments at Markdown block
// boundaries. gitleaks runs a rule's regular expression over a whole fragment as soon as one
// of the rule's keywords occurs anywhere in it; in prose ("token", "key", "password" are
// common words in engineering notes) smaller fragments keep the costly generic rules off most
// of the text. Measured on bench/check's fixture: 512 bytes is ~20% faster than whole files.
const chunkTarget = 512

type chunk struct{ start, end, line int }

// chunks cuts content into fragments at blank lines, only where no secret can span the cut:
// never inside a fenced code block (configuration and YAML live there) or a PEM block, and
// not where the text around the blank line continues an assignment ("password:" then the
// value below).
func chunks(content []byte) []chunk {
	if len(content) <= chunkTarget {
		return []chunk{{0, len(content), 1}}
	}
	var out []chunk
	start, startLine, line := 0, 1, 1
	inPEM := false
	var fence byte
	var prev []byte // the last non-blank line
	for off := 0; off < len(content); line++ {
		end := len(content)
		if i := bytes.IndexByte(content[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		l := bytes.TrimSpace(content[off:end])
		switch {
		case bytes.HasPrefix(l, []byte("```")) || bytes.HasPrefix(l, []byte("~~~")):
			if fence == 0 {
				fence = l[0]
			} else if fence == l[0] {
				fence = 0
			}
		case bytes.Contains(l, []byte("-----BEGIN")):
			inPEM = true
		case bytes.Contains(l, []byte("-----END")):
			inPEM = false
		}
		if len(l) == 0 && fence == 0 && !inPEM && end-start >= chunkTarget && !continues(prev) && !continues(nextLine(content[end:])) {
			out = append(out, chunk{start, end, startLine})
			start, startLine = end, line+1
		}
		if len(l) > 0 {
			prev = l
		}
		off = end
	}
	if start < len(content) {
		out = append(out, chunk{start, len(content), startLine})
	}
	return out
}

// continues reports whether a line edge could be part of an assignment split by a blank line.
func continues(edge []byte) bool {
	if len(edge) == 0 {
		return false
	}
	return bytes.IndexByte([]byte(":=,|>'\"`\\"), edge[len(edge)-1]) >= 0 || bytes.IndexByte([]byte(":=,|>'\"`"), edge[0]) >= 0
}

// nextLine returns the first non-blank line of b, trimmed.
func nextLine(b []byte) []byte {
	for len(b) > 0 {
		l := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if l = bytes.TrimSpace(l); len(l) > 0 {
			return l
		}
	}
	return nil
}

// Scan returns the secrets in content, which would be stored at the repository-relative path.
// Findings listed in .gitleaksignore and lines marked gitleaks:allow are left out.
func (s *Secrets) Scan(path string, content []byte) ([]SecretFinding, error) {
	if err := s.Ready(); err != nil {
		return nil, err
	}
	path = filepath.ToSlash(path)
	var found []report.Finding
	for _, c := range chunks(content) {
		found = append(found, s.detectorFor(content[c.start:c.end]).Detect(detect.Fragment{
			Raw:       string(content[c.start:c.end]),
			FilePath:  path,
			StartLine: c.line,
		})...)
	}
	lineStart := lineOffsets(content)
	var out []SecretFinding
	seen := map[[2]int]map[string]bool{}
	for _, f := range found {
		if f.StartLine < 1 {
			f.StartLine = 1
		}
		if !s.keep(f) {
			continue
		}
		key := [2]int{f.StartLine, 0}
		if seen[key] == nil {
			seen[key] = map[string]bool{}
		}
		if seen[key][f.RuleID+"\x00"+f.Secret] {
			continue // path-only rules fire once per fragment
		}
		seen[key][f.RuleID+"\x00"+f.Secret] = true
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

// keep routes a finding through the detector's AddFinding, which alone applies the
// .gitleaksignore fingerprints, and reports whether it survived.
func (s *Secrets) keep(f report.Finding) bool {
	s.add.Lock()
	defer s.add.Unlock()
	n := len(s.det.Findings())
	s.det.AddFinding(f)
	return len(s.det.Findings()) > n
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
func locate(content []byte, lineStart []int, f report.Finding) SecretFinding {
	sf := SecretFinding{Rule: f.RuleID, Line: f.StartLine}
	from := len(content)
	if f.StartLine-1 < len(lineStart) {
		from = lineStart[f.StartLine-1]
	}
	to := len(content)
	if f.EndLine < len(lineStart) && f.EndLine >= f.StartLine {
		to = lineStart[f.EndLine]
	}
	if f.Secret != "" {
		if i := bytes.Index(content[from:to], []byte(f.Secret)); i >= 0 {
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

// Redact returns content with every finding's bytes replaced by "REDACTED". content itself is
// not changed.
func Redact(content []byte, fs []SecretFinding) []byte {
	if len(fs) == 0 {
		return content
	}
	spans := make([]SecretFinding, 0, len(fs))
	for _, f := range fs {
		if f.Start < 0 || f.End > len(content) || f.Start >= f.End {
			continue
		}
		spans = append(spans, f)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	var b bytes.Buffer
	at := 0
	for _, f := range spans {
		if f.End <= at {
			continue // inside a span already redacted
		}
		if f.Start < at {
			f.Start = at
		} else {
			b.Write(content[at:f.Start])
			b.WriteString("REDACTED")
		}
		at = f.End
	}
	b.Write(content[at:])
	return b.Bytes()
}
