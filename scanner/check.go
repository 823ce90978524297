package scanner

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"runtime"
	"strings"
	"sync"

	"github.com/mbguard/mbguard/bank"
)

// MaxFileSize is the largest file checked; a larger one is a finding (nobody reads a 10 MB
// memory file, and scanning it would stall a commit).
const MaxFileSize = 10 << 20

// Git file modes, as `git ls-files -s` prints them.
const (
	ModeSymlink = 0o120000
	ModeGitlink = 0o160000
)

// File is one file to check: its repository-relative path and what the commit (or the disk)
// holds for it.
type File struct {
	Path    string // repository-relative, with /
	Mode    uint32 // git mode (0o100644, 0o120000…); 0 when read from disk and not a symlink
	Size    int64  // the full size, also when Content was not loaded because it is too large
	Content []byte
	// Added lists the 1-based line numbers the commit adds, in order; only these are scanned
	// for secrets. Nil means the whole file is new to the check.
	Added []int
	// AddedOnly is true when Added applies (staged checks); an empty Added then means that
	// the commit adds no line to this file.
	AddedOnly bool
	// Tracked is true when git's index holds the path (always for staged files; asked for
	// symlinks found on disk), so advice can name git rm --cached or plain rm.
	Tracked bool
}

// Options are the rules' settings.
type Options struct {
	Minimum      bank.Version // templates.minimum
	AllowedFiles []string     // non-.md names allowed under memory-bank/ (check.allowed_files)
	Secrets      *Secrets     // nil: no secret scan
	MaxChars     int          // context.max_chars: MEMORY.md over it is an entry-too-long warning; 0 off
	// CacheDir keeps Check's secret-scan answers between runs (memo.go); empty: none.
	CacheDir string

	memo *scanMemo // set by Check
}

// inBank reports whether p lies under memory-bank/.
func inBank(p string) bool { return strings.HasPrefix(p, bank.Dir+"/") }

// CheckFile applies every rule to one file. The error is only for a broken secret-scan
// configuration; problems in the file are findings.
func CheckFile(f File, o Options) ([]Finding, error) {
	if f.Mode == ModeSymlink || f.Mode == ModeGitlink {
		return linkFindings(f), nil
	}
	var out []Finding
	add := func(line int, rule string, fix, format string, a ...any) {
		out = append(out, fileFinding(f.Path, line, rule, fix, format, a...))
	}
	md := strings.EqualFold(path.Ext(f.Path), ".md")
	if inBank(f.Path) && !md && !Allowed(path.Base(f.Path), o.AllowedFiles) {
		add(0, RuleNonMD, fmt.Sprintf("move it out of memory-bank/ (or add %q to check.allowed_files)", path.Base(f.Path)),
			"is not a Markdown file; memory-bank/ holds only .md files")
	}
	if f.Size > MaxFileSize || len(f.Content) > MaxFileSize {
		// Named at once and never read: scanning 64 MB for secrets took minutes, and the
		// finding blocks the commit anyway; the parts it is split into are checked in full.
		add(0, RuleTooLarge, "split it into smaller files (each is then checked, secrets included), or move it out of memory-bank/",
			"%s", tooLargeMessage(max(f.Size, int64(len(f.Content)))))
		return out, nil
	}
	if binary(f.Content) {
		if md {
			add(0, RuleNonMD, "replace it with Markdown text, or move it out of memory-bank/", "holds binary data, not Markdown text")
		}
		return out, nil
	}
	if md {
		out = append(out, CheckMarkdown(f.Path, f.Content, f.Path == bank.Entry, o.Minimum)...)
		out = append(out, CheckEntryLength(f.Path, f.Content, o.MaxChars)...)
		out = append(out, CheckPlaceholders(f.Path, f.Content)...)
	}
	secrets, err := secretFindings(f, o)
	return append(out, secrets...), err
}

func fileFinding(p string, line int, rule, fix, format string, a ...any) Finding {
	return Finding{Path: p, Line: line, Rule: rule, Severity: SeverityError, Message: fmt.Sprintf(format, a...), Fix: fix}
}

// linkFindings judges a symbolic link or a submodule: memory-bank/ holds neither.
func linkFindings(f File) []Finding {
	switch {
	case !inBank(f.Path):
		return nil
	case f.Mode == ModeGitlink:
		return []Finding{fileFinding(f.Path, 0, RuleNonMD, "remove the submodule from memory-bank/", "is a submodule; memory-bank/ holds only Markdown files")}
	}
	rm := "rm "
	if f.Tracked {
		rm = "git rm --cached "
	}
	return []Finding{fileFinding(f.Path, 0, RuleSymlink, "replace the link with the Markdown file itself: "+rm+shellQuote(f.Path)+", then put the file's content there",
		"is a symbolic link; memory-bank/ holds only real files")}
}

// secretFindings scans the file, or only its added lines, for secrets.
func secretFindings(f File, o Options) ([]Finding, error) {
	if o.Secrets == nil || (f.AddedOnly && len(f.Added) == 0) {
		return nil, nil
	}
	content := f.Content
	if f.AddedOnly {
		content = OnlyLines(f.Content, f.Added)
	}
	scan := o.Secrets.Scan
	if o.memo != nil {
		scan = o.memo.scan
	}
	secrets, err := scan(f.Path, content)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, s := range secrets {
		out = append(out, fileFinding(f.Path, s.Line, SecretRulePrefix+s.Rule, secretFix(f.Path, s), "a secret (gitleaks rule %s); its value is not shown", s.Rule))
	}
	return out, nil
}

// Allowed reports whether a non-Markdown file name may sit in memory-bank/: the default
// dotfiles or a check.allowed_files pattern. Every reader of the rule (check, the outcome
// check, the watcher) asks here.
func Allowed(name string, list []string) bool {
	for _, a := range append(DefaultAllowedFiles[:len(DefaultAllowedFiles):len(DefaultAllowedFiles)], list...) {
		if ok, _ := path.Match(a, name); ok || a == name {
			return true
		}
	}
	return false
}

// binary uses git's own test: a NUL byte in the first 8000 bytes.
func binary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}

// OnlyLines keeps the listed lines and empties the others, so that gitleaks' line numbers
// still match the file's.
func OnlyLines(content []byte, lines []int) []byte {
	out := make([]byte, 0, len(content))
	want := 0
	line := 1
	for off := 0; off < len(content); line++ {
		end := len(content)
		nl := false
		if i := bytes.IndexByte(content[off:], '\n'); i >= 0 {
			end, nl = off+i, true
		}
		for want < len(lines) && lines[want] < line {
			want++
		}
		if want < len(lines) && lines[want] == line {
			out = append(out, content[off:end]...)
		}
		if nl {
			out = append(out, '\n')
			end++
		}
		off = end
	}
	return out
}

// Check runs CheckFile over every file that produce emits, on all cores, and returns the
// findings sorted. It stops at the first error from produce or from the secret scanner.
func Check(ctx context.Context, o Options, produce func(emit func(File) error) error) ([]Finding, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.CacheDir != "" && o.Secrets != nil {
		o.memo = openMemo(o.Secrets, o.CacheDir)
	}
	files := make(chan File, 16)
	var (
		mu       sync.Mutex
		findings []Finding
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range files {
				if ctx.Err() != nil {
					continue
				}
				fs, err := CheckFile(f, o)
				if err != nil {
					fail(err)
					continue
				}
				mu.Lock()
				findings = append(findings, fs...)
				mu.Unlock()
			}
		}()
	}
	perr := produce(func(f File) error {
		select {
		case files <- f:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(files)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if perr != nil {
		return nil, perr
	}
	if o.memo != nil {
		o.memo.save()
	}
	SortFindings(findings)
	return findings, nil
}

// shellQuote quotes p for a shell command in a fix hint.
func shellQuote(p string) string {
	if strings.IndexFunc(p, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
