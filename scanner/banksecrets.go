package scanner

import (
	"os"
	"path/filepath"

	"github.com/mbguard/mbguard/bank"
)

// BankSecret is one secret in a bank file: the file (repository-relative, slash-separated) and
// the finding.
type BankSecret struct {
	Rel string
	ReadSecret
}

// MaxBankFiles bounds the bank files BankSecrets scans.
const MaxBankFiles = 256

// BankSecrets returns the secrets in the regular files of the memory bank of the repository at
// root (at most MaxBankFiles files, symlinks not followed), each file scanned through the cache
// under stateDir: once a bank is scanned, asking again costs a read and a hash per file.
// Everything mbguard shows the model is redacted by them (InjectedRedactor) and every read is
// judged by them, by content: a copy of a bank file outside the bank holds the same secret.
func (s *Secrets) BankSecrets(stateDir, root string) []BankSecret {
	var out []BankSecret
	n := 0
	dir := filepath.Join(root, bank.Dir)
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || n >= MaxBankFiles {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		n++
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		found, _ := s.ScanRead(stateDir, rel, p)
		for _, f := range found {
			out = append(out, BankSecret{Rel: rel, ReadSecret: f})
		}
		return nil
	})
	return out
}

// Forms are the texts RedactTexts replaces for secrets: SecretForms of each.
func Forms(secrets []BankSecret) []string {
	var out []string
	for _, f := range secrets {
		out = append(out, SecretForms(f.Secret)...)
	}
	return out
}

// Shown returns the secrets that text shows in one of their forms.
func Shown(text string, secrets []BankSecret) []BankSecret {
	var out []BankSecret
	for _, f := range secrets {
		if ShowsAny(text, SecretForms(f.Secret)) {
			out = append(out, f)
		}
	}
	return out
}

// RedactInjected replaces, in every text mbguard itself puts before the model (the context
// block, the anchor block after a compaction, notices, refusal reasons, stale lists), each of
// the bank's secrets in every form RedactTexts knows. It is the one redaction those texts go
// through; empty texts cost nothing.
func RedactInjected(secrets []BankSecret, texts ...*string) {
	var forms []string
	for _, t := range texts {
		if *t == "" || len(secrets) == 0 {
			continue
		}
		if forms == nil {
			forms = Forms(secrets)
		}
		*t = RedactTexts(*t, forms)
	}
}
