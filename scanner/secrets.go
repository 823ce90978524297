package scanner

import (
	"bytes"
	"errors"
	"sort"
	"sync"
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

// Engine is what finds secrets: gitleaks' detector (package scanner/engine, linked into
// mbguard) or a client of it in another process (scanner/remote, linked into mbguard-hook,
// which must start faster than gitleaks' package initialisation allows).
type Engine interface {
	// Ready reports a broken .gitleaks.toml or .gitleaksignore (or an engine that cannot run).
	Ready() error
	// Scan returns the secrets in content, which would be stored at the repository-relative
	// path, sorted by line and offset.
	Scan(path string, content []byte) ([]SecretFinding, error)
}

// newEngine makes the engine for a repository root; set once, at init, by the engine's
// package (UseEngine).
var newEngine func(root string) Engine

// UseEngine makes every Secrets scan with the engine f builds. The engine packages call it
// from their init; a program links exactly one of them.
func UseEngine(f func(root string) Engine) { newEngine = f }

// errNoEngine is the answer of a program that links no engine: a build mistake, never a
// user's.
var errNoEngine = errors.New("this mbguard build has no secret scanner linked (import scanner/engine or scanner/remote); reinstall mbguard")

// Secrets scans a repository's content for secrets with the program's engine, built on first
// use: NewSecrets is cheap. It is safe for concurrent use.
type Secrets struct {
	root string
	once sync.Once
	eng  Engine

	// oneCall (NewCallSecrets) keeps BankSecrets' answers in banks for the scanner's life
	oneCall bool
	mu      sync.Mutex
	banks   map[string][]BankSecret
}

// NewSecrets returns the secret scanner for the repository at root (its .gitleaks.toml and
// .gitleaksignore tune it as they tune the gitleaks CLI).
func NewSecrets(root string) *Secrets { return &Secrets{root: root} }

// NewCallSecrets is NewSecrets for one hook call: BankSecrets looks the bank up once and gives
// the same answer again (until ForgetBank), so the call's Service and the hook redact with the
// same secrets and a session start does not walk the bank twice. Not for a long-lived process,
// whose bank changes between calls.
func NewCallSecrets(root string) *Secrets { return &Secrets{root: root, oneCall: true} }

func (s *Secrets) engine() Engine {
	s.once.Do(func() {
		if newEngine != nil {
			s.eng = newEngine(s.root)
		}
	})
	return s.eng
}

// Ready builds the engine now (it is otherwise built on the first Scan) and reports a broken
// .gitleaks.toml or .gitleaksignore.
func (s *Secrets) Ready() error {
	e := s.engine()
	if e == nil {
		return errNoEngine
	}
	return e.Ready()
}

// Scan returns the secrets in content, which would be stored at the repository-relative path:
// exactly what gitleaks' detector (every rule, decoding as its CLI does) reports on the whole
// content, less the findings listed in .gitleaksignore and lines marked gitleaks:allow.
func (s *Secrets) Scan(path string, content []byte) ([]SecretFinding, error) {
	e := s.engine()
	if e == nil {
		return nil, errNoEngine
	}
	return e.Scan(path, content)
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
