package scanner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// check runs over the same notes again and again (each commit, each CI run) and most of them
// have not changed: Options.CacheDir keeps the secret scan's answer per file between runs, in
// one file keyed by what decides it (the content, the path, the rules and .gitleaksignore,
// this scanner's version: scanKey), as ScanCached does for MEMORY.md at session start. Like
// that cache it holds rule ids and offsets, never a secret.

// MemoFile is the name of check's scan cache under Options.CacheDir.
const MemoFile = "check-scan.json"

// maxMemo bounds the entries kept: those this run used, then earlier ones up to the bound.
const maxMemo = 8192

type scanMemo struct {
	s    *Secrets
	path string
	base []byte // scanKey's rules part, hashed once per run
	ok   bool   // false: a rule file cannot be read; scan without the cache

	mu   sync.Mutex
	old  map[string][]SecretFinding
	used map[string][]SecretFinding
	new  bool
}

func openMemo(s *Secrets, dir string) *scanMemo {
	m := &scanMemo{s: s, path: filepath.Join(dir, MemoFile), used: map[string][]SecretFinding{}}
	key, ok := s.scanKey("", nil) // the rules part: the path and content are hashed per file
	m.base, m.ok = []byte(key), ok
	if b, err := os.ReadFile(m.path); err == nil {
		_ = json.Unmarshal(b, &m.old) // corrupt: start over
	}
	return m
}

func (m *scanMemo) scan(path string, content []byte) ([]SecretFinding, error) {
	if !m.ok {
		return m.s.Scan(path, content)
	}
	h := sha256.New()
	h.Write(m.base)
	h.Write([]byte{0})
	h.Write([]byte(filepath.ToSlash(path)))
	h.Write([]byte{0})
	h.Write(content)
	key := hex.EncodeToString(h.Sum(nil))
	m.mu.Lock()
	fs, hit := m.used[key]
	if !hit {
		fs, hit = m.old[key]
	}
	m.mu.Unlock()
	if hit && validFindings(fs, len(content)) {
		m.mu.Lock()
		m.used[key] = fs
		m.mu.Unlock()
		return fs, nil
	}
	fs, err := m.s.Scan(path, content)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.used[key], m.new = fs, true
	m.mu.Unlock()
	return fs, nil
}

// save writes the cache when this run scanned something new; failing to is not an error.
func (m *scanMemo) save() {
	if !m.new || !m.ok {
		return
	}
	out := make(map[string][]SecretFinding, min(maxMemo, len(m.used)+len(m.old)))
	for k, v := range m.used {
		out[k] = v
	}
	for k, v := range m.old {
		if len(out) >= maxMemo {
			break
		}
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	if b, err := json.Marshal(out); err == nil && os.MkdirAll(filepath.Dir(m.path), 0o700) == nil {
		_ = fsutil.WriteFileAtomic(m.path, b, 0o600)
	}
}
