package scanner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/fsutil"
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
// under stateDir. Everything mbguard shows the model is redacted by them (InjectedRedactor)
// and every read is judged by them, by content: a copy of a bank file outside the bank holds
// the same secret.
//
// A bank whose files have not changed since the last call is answered from one summary
// (bankSummary): the walk, a stat of each file, and a read of only the files that hold a
// secret. Otherwise each file is read, hashed and looked up in its scan cache (ScanRead).
func (s *Secrets) BankSecrets(stateDir, root string) []BankSecret {
	if !s.oneCall {
		return s.bankSecrets(stateDir, root)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := stateDir + "\x00" + root
	found, ok := s.banks[k]
	if !ok {
		found = s.bankSecrets(stateDir, root)
		if s.banks == nil {
			s.banks = map[string][]BankSecret{}
		}
		s.banks[k] = found
	}
	return slices.Clip(found) // a caller's append never writes into the kept answer
}

// ForgetBank drops the answers a NewCallSecrets keeps: the bank may have changed since (an
// outcome check put a file back).
func (s *Secrets) ForgetBank() {
	s.mu.Lock()
	s.banks = nil
	s.mu.Unlock()
}

func (s *Secrets) bankSecrets(stateDir, root string) []BankSecret {
	files := bankFiles(root)
	key, keyed := s.bankSummaryKey(root)
	if keyed {
		if out, ok := readBankSummary(stateDir, key, files); ok {
			return out
		}
	}
	now := time.Now()
	var out []BankSecret
	sum := bankSummary{Key: key, Files: make([]summaryFile, 0, len(files))}
	trusted := keyed
	for _, f := range files {
		found, b, ok := s.scanBankFile(stateDir, f)
		for _, fd := range found {
			out = append(out, BankSecret{Rel: f.rel, ReadSecret: ReadSecret{Rule: fd.Rule, Line: fd.Line, Secret: string(b[fd.Start:fd.End])}})
		}
		// a file changed too recently could change again within its timestamps' resolution
		// (racy-git): its stat would not tell, so no summary is kept until it settles
		trusted = trusted && ok && f.id.ok && f.id.settled(now)
		sum.Files = append(sum.Files, summaryFile{Rel: f.rel, ID: f.id, Findings: found})
	}
	if trusted {
		writeBankSummary(stateDir, sum)
	}
	return out
}

// bankFile is one regular file of the bank, in walk order, with the identity of its lstat.
type bankFile struct {
	rel, path string
	id        fileID
}

// bankFiles walks the bank of root: its regular files, at most MaxBankFiles, symlinks not
// followed.
func bankFiles(root string) []bankFile {
	var out []bankFile
	dir := filepath.Join(root, bank.Dir)
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || len(out) >= MaxBankFiles {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		f := bankFile{rel: filepath.ToSlash(rel), path: p}
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			f.id = idOf(fi)
		}
		out = append(out, f)
		return nil
	})
	return out
}

// scanBankFile is ScanRead of one bank file; ok is false when the answer is not the file's
// (it could not be read or scanned), so it must not be kept.
func (s *Secrets) scanBankFile(stateDir string, f bankFile) (found []SecretFinding, b []byte, ok bool) {
	fi, err := os.Stat(f.path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, nil, false
	}
	if fi.Size() > MaxReadScan {
		return nil, nil, true // never scanned (ScanRead): the size is in the file's identity
	}
	b, err = os.ReadFile(f.path)
	if err != nil {
		return nil, nil, false
	}
	fs, err := s.ScanCached(stateDir, f.rel, b)
	if err != nil {
		return nil, nil, false
	}
	for _, fd := range fs {
		if fd.Start >= 0 && fd.End <= len(b) && fd.Start < fd.End {
			found = append(found, fd)
		}
	}
	return found, b, true
}

// The bank summary, .git/mbguard/bank-secrets, keeps the last BankSecrets answer as the
// files it walked (name, and the size, times and inode of their lstat) and each file's
// findings: rule ids and offsets, never a secret. It answers while the walk finds the same
// files with the same identities under the same rules, so a warm session start neither reads
// nor hashes the bank's files, only those that hold a secret (for the secret's text). A write
// changes a file's modification and change times (the latter no tool can set back), a
// replacement its inode: the summary then no longer answers and every file is looked up again.
// A file modified within bankSettle of the walk is never kept in a summary, since a second
// write in the same timestamp tick would not show in its stat.

// BankSummaryFile is the summary's name under the state directory.
const BankSummaryFile = "bank-secrets"

// bankSummaryVersion changes whenever the summary's format or meaning does.
const bankSummaryVersion = "mbguard-bank-1"

// bankSettle is how old a file's modification and change times must be for its stat to stand
// for its content: far above any file system's timestamp resolution (FAT's is 2 s).
var bankSettle = 5 * time.Second

// SetBankSettle sets how old a bank file's times must be before the bank summary keeps it, and
// returns the function that restores the default. Tests set 0: a file they just wrote is
// summarised at once, and each change they make must then change its size or inode.
func SetBankSettle(d time.Duration) (restore func()) {
	old := bankSettle
	bankSettle = d
	return func() { bankSettle = old }
}

// The summary is lines of text, not JSON: a hook process decodes it once, and encoding/json's
// first decode of a type costs more than the rest of the summary's reading.
//
//	mbguard-bank-1 KEY
//	f SIZE MTIME CTIME INO REL      one per file, in walk order
//	s LINE START END RULE           one per finding of the file above
//	end                             a summary cut short is no summary
type bankSummary struct {
	Key   string
	Files []summaryFile
}

type summaryFile struct {
	Rel      string
	ID       fileID
	Findings []SecretFinding
}

// fileID is what a file's lstat says of its content.
type fileID struct {
	Size  int64
	MTime int64 // UnixNano
	CTime int64 // UnixNano; the status change time
	Ino   uint64
	ok    bool // the system tells the change time and inode (idOf)
}

func (sum bankSummary) encode() ([]byte, bool) {
	var b strings.Builder
	b.WriteString(bankSummaryVersion + " " + sum.Key + "\n")
	for _, f := range sum.Files {
		if strings.ContainsAny(f.Rel, "\n\r") {
			return nil, false
		}
		fmt.Fprintf(&b, "f %d %d %d %d %s\n", f.ID.Size, f.ID.MTime, f.ID.CTime, f.ID.Ino, f.Rel)
		for _, fd := range f.Findings {
			if strings.ContainsAny(fd.Rule, "\n\r") {
				return nil, false
			}
			fmt.Fprintf(&b, "s %d %d %d %s\n", fd.Line, fd.Start, fd.End, fd.Rule)
		}
	}
	b.WriteString("end\n")
	return []byte(b.String()), true
}

// decodeBankSummary reads what encode wrote; false for anything else.
func decodeBankSummary(text string) (bankSummary, bool) {
	var sum bankSummary
	head, rest, ok := strings.Cut(text, "\n")
	if !ok {
		return sum, false
	}
	if sum.Key, ok = strings.CutPrefix(head, bankSummaryVersion+" "); !ok {
		return sum, false
	}
	for {
		var line string
		line, rest, ok = strings.Cut(rest, "\n")
		if !ok {
			return sum, false // cut short
		}
		if line == "end" {
			return sum, rest == ""
		}
		kind, fields, _ := strings.Cut(line, " ")
		var n [4]int64
		var last string
		for i := range n {
			var f string
			if f, fields, ok = strings.Cut(fields, " "); !ok {
				return sum, false
			}
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return sum, false
			}
			n[i] = v
			if kind == "s" && i == 2 {
				break
			}
		}
		last = fields
		switch {
		case kind == "f":
			sum.Files = append(sum.Files, summaryFile{Rel: last, ID: fileID{Size: n[0], MTime: n[1], CTime: n[2], Ino: uint64(n[3])}})
		case kind == "s" && len(sum.Files) > 0 && last != "":
			f := &sum.Files[len(sum.Files)-1]
			f.Findings = append(f.Findings, SecretFinding{Rule: last, Line: int(n[0]), Start: int(n[1]), End: int(n[2])})
		default:
			return sum, false
		}
	}
}

// settled reports whether the file's times are bankSettle older than now.
func (id fileID) settled(now time.Time) bool {
	limit := now.Add(-bankSettle).UnixNano()
	return id.MTime < limit && id.CTime < limit
}

// bankSummaryKey hashes what decides the findings besides the files: the rules and
// .gitleaksignore and the scanner's version (scanKey), and the repository; false when a rule
// file cannot be read.
func (s *Secrets) bankSummaryKey(root string) (string, bool) {
	base, ok := s.scanKey("", nil)
	if !ok {
		return "", false
	}
	return hashHex([]byte(bankSummaryVersion + "\x00" + base + "\x00" + filepath.Clean(root))), true
}

// readBankSummary answers from the summary when it is for key and lists exactly files, with
// the same identities; false sends the caller to the files.
func readBankSummary(stateDir, key string, files []bankFile) ([]BankSecret, bool) {
	b, err := os.ReadFile(filepath.Join(stateDir, BankSummaryFile))
	if err != nil {
		return nil, false
	}
	sum, ok := decodeBankSummary(string(b))
	if !ok || sum.Key != key || len(sum.Files) != len(files) {
		return nil, false
	}
	var out []BankSecret
	for i, f := range files {
		c := sum.Files[i]
		if !f.id.ok || c.Rel != f.rel || !c.ID.same(f.id) {
			return nil, false
		}
		if len(c.Findings) == 0 {
			continue
		}
		text, err := os.ReadFile(f.path)
		if err != nil || int64(len(text)) != f.id.Size || !validFindings(c.Findings, len(text)) {
			return nil, false
		}
		for _, fd := range c.Findings {
			if fd.Start >= fd.End {
				return nil, false
			}
			out = append(out, BankSecret{Rel: f.rel, ReadSecret: ReadSecret{Rule: fd.Rule, Line: fd.Line, Secret: string(text[fd.Start:fd.End])}})
		}
	}
	return out, true
}

func (id fileID) same(o fileID) bool {
	return id.Size == o.Size && id.MTime == o.MTime && id.CTime == o.CTime && id.Ino == o.Ino
}

// writeBankSummary keeps sum; failing to is not an error (the files are looked up again).
func writeBankSummary(stateDir string, sum bankSummary) {
	if b, ok := sum.encode(); ok && os.MkdirAll(stateDir, 0o700) == nil {
		_ = fsutil.WriteFileAtomic(filepath.Join(stateDir, BankSummaryFile), b, 0o600)
	}
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
