package scanner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// Every session start scans MEMORY.md, which rarely changes between sessions, and a fresh
// process pays for the rules the text triggers (generic-api-key alone, with its 1,500 stop
// words, costs more than the rest of the hook call). ScanCached keeps the last answer per path
// in a file under the git directory, keyed by the content and everything that decides the
// findings: the rules (gitleaks' default text or the repository's .gitleaks.toml), the
// .gitleaksignore and this scanner's version. The file holds rule ids and offsets only, never
// a secret.

// scanCacheVersion changes whenever Scan's answer for the same inputs could change.
const scanCacheVersion = "mbguard-scan-1"

// DefaultRulesSum is the SHA-256 of gitleaks' default rules (config.DefaultConfig of the
// gitleaks go.mod pins), so that a cache key names the rules without linking gitleaks: a
// program without the engine (mbguard-hook) answers from the same cache. scanner/engine's
// TestDefaultRulesSum fails when a gitleaks update changes the rules and not this.
const DefaultRulesSum = "e163e53b9e7e8a8511e77271e2b323ed057759542a6d988258afe3a1fa329caf"

type scanCache struct {
	Key      string          `json:"key"`
	Findings []SecretFinding `json:"findings"`
}

// ScanCached is Scan, answered from dir (created if missing) when the same content was
// scanned there under the same rules. A missing, unreadable or corrupt cache only means a
// scan; failing to write one is not an error.
func (s *Secrets) ScanCached(dir, path string, content []byte) ([]SecretFinding, error) {
	key, ok := s.scanKey(path, content)
	if !ok {
		return s.Scan(path, content)
	}
	name := filepath.Join(dir, "scan-"+hashHex([]byte(filepath.ToSlash(path)))[:16]+".json")
	if b, err := os.ReadFile(name); err == nil {
		if string(b) == `{"key":"`+key+`","findings":null}` {
			return nil, nil // what json.Marshal writes for no findings: no decoding needed
		}
		var c scanCache
		if json.Unmarshal(b, &c) == nil && c.Key == key && validFindings(c.Findings, len(content)) {
			return c.Findings, nil
		}
	}
	found, err := s.Scan(path, content)
	if err != nil {
		return nil, err
	}
	if b, err := json.Marshal(scanCache{Key: key, Findings: found}); err == nil && os.MkdirAll(dir, 0o700) == nil {
		_ = fsutil.WriteFileAtomic(name, b, 0o600)
	}
	return found, nil
}

// scanKey hashes what decides Scan's answer; false when a rule file cannot be read (Scan
// then reports it).
func (s *Secrets) scanKey(path string, content []byte) (string, bool) {
	h := sha256.New()
	part := func(b []byte) {
		var n [8]byte
		for i, l := 0, len(b); i < 8; i, l = i+1, l>>8 {
			n[i] = byte(l)
		}
		h.Write(n[:])
		h.Write(b)
	}
	part([]byte(scanCacheVersion))
	part([]byte(filepath.ToSlash(path)))
	part(content)
	for _, f := range []string{GitleaksConfig, GitleaksIgnore} {
		b, err := os.ReadFile(filepath.Join(s.root, f))
		switch {
		case s.root == "" || errors.Is(err, fs.ErrNotExist):
			part([]byte("absent"))
			if f == GitleaksConfig {
				part([]byte(DefaultRulesSum))
			}
		case err != nil:
			return "", false
		default:
			part([]byte("present"))
			part(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// validFindings rejects a cache whose offsets do not fit the content (a corrupt file).
func validFindings(fs []SecretFinding, n int) bool {
	for _, f := range fs {
		if f.Rule == "" || f.Line < 1 || f.Start < 0 || f.End > n || f.Start > f.End {
			return false
		}
	}
	return true
}
