package scanner

import (
	"fmt"
	"os"
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
