package scanner

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// MaxReadScan bounds a file scanned after an agent's tool read it; a larger one is left to
// `mbguard check`.
const MaxReadScan = 4 << 20

// ReadSecret is one secret in a file an agent's tool read: where it is, and its text (for
// redacting what the tool returned; never printed).
type ReadSecret struct {
	Rule   string
	Line   int
	Secret string
}

// ScanRead returns the secrets in the file at path (rel is its repository-relative name, for
// the rules and the scan cache under stateDir) and the file's content. It returns nothing for
// a file missing, not regular or over MaxReadScan, and when the detector fails (a broken
// .gitleaks.toml is reported by `mbguard check` and doctor). The hook adapters and `mbguard
// serve` share it.
func (s *Secrets) ScanRead(stateDir, rel, path string) ([]ReadSecret, []byte) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxReadScan {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	fs, err := s.ScanCached(stateDir, rel, b)
	if err != nil {
		return nil, nil
	}
	var out []ReadSecret
	for _, f := range fs {
		if f.Start < 0 || f.End > len(b) || f.Start >= f.End {
			continue
		}
		out = append(out, ReadSecret{Rule: f.Rule, Line: f.Line, Secret: string(b[f.Start:f.End])})
	}
	return out, b
}

// Where names the secret for the model: file, line and rule, never the secret.
func (r ReadSecret) Where(rel string) string {
	return fmt.Sprintf("%s line %d holds a secret (gitleaks rule %s)", rel, r.Line, r.Rule)
}

// ReadNotice tells the model where the secrets a tool read are (Where of each) and what to do.
func ReadNotice(where []string) string {
	return "[mbguard] " + strings.Join(where, "; ") +
		". Do not repeat it anywhere; remove it from the file and keep only where the secret lives (a vault, an environment variable name)."
}

// minForm is the shortest encoded form SecretForms returns: shorter ones could match text that
// has nothing to do with the secret.
const minForm = 16

// SecretForms are the texts a secret takes when a command re-encodes what it read (`base64`,
// `basenc --base64url`, `xxd -p`, `rev`): the secret itself, then the base64 (standard and
// URL alphabets) of its bytes at each of the three alignments a stream can give them (the
// whole 3-byte groups only, so each form appears verbatim wherever the secret does), its hex in
// both cases, and its reverse. Replacing every form keeps a re-encoded secret from reaching the
// model; the few bytes at its edges that share a group with other text stay.
func SecretForms(secret string) []string {
	if secret == "" {
		return nil
	}
	out := []string{secret}
	add := func(f string) {
		if len(f) >= minForm && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	b := []byte(secret)
	for o := 0; o < 3 && o < len(b); o++ {
		n := (len(b) - o) / 3 * 3
		add(base64.StdEncoding.EncodeToString(b[o : o+n]))
		add(base64.URLEncoding.EncodeToString(b[o : o+n]))
	}
	h := hex.EncodeToString(b)
	add(h)
	add(strings.ToUpper(h))
	r := []rune(secret)
	slices.Reverse(r)
	add(string(r))
	return out
}

// RedactTexts replaces every secret text in s by "REDACTED": verbatim, across the line breaks
// a re-encoding command puts in its output (`base64` wraps at 76 columns, `xxd -p` at 60), and
// in hex dumps (`xxd`, `od -An -tx1`, `hexdump -C`: byte groups with spaces between, line
// offsets, the character column). It takes time linear in len(s) for each secret text.
func RedactTexts(s string, secrets []string) string {
	return redactDump(redactFlat(s, secrets), secrets)
}

// ShowsAny reports whether s shows one of the secret texts in a form RedactTexts replaces.
func ShowsAny(s string, secrets []string) bool {
	return RedactTexts(s, secrets) != s
}

func redactFlat(s string, secrets []string) string {
	var flat string // s without line breaks, made on first need
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "REDACTED")
			continue
		}
		if len(sec) < minForm || !strings.ContainsAny(s, "\n") {
			continue
		}
		if flat == "" {
			flat = strings.NewReplacer("\r", "", "\n", "").Replace(s)
		}
		if !strings.Contains(flat, sec) {
			continue
		}
		parts := make([]string, 0, len(sec))
		for _, r := range sec {
			parts = append(parts, regexp.QuoteMeta(string(r)))
		}
		s = regexp.MustCompile(strings.Join(parts, `(?:\r?\n)?`)).ReplaceAllString(s, "REDACTED")
		flat = ""
	}
	return s
}
