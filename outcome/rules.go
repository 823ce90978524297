package outcome

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/scanner"
)

// Rules are the settings of the outcome rules: the same as `mbguard check`'s.
type Rules struct {
	Minimum      bank.Version
	AllowedFiles []string
	// Secrets returns the repository's gitleaks detector; nil (or returning nil) skips the
	// secret scan. It is called only when a file's bytes changed: building it is not free.
	Secrets func() *scanner.Secrets
}

// Problem is one rule a resulting entry breaks.
type Problem struct {
	Path string
	Line int
	Rule string
	Text string
}

func (p Problem) String() string {
	loc := p.Path
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.Path, p.Line)
	}
	return fmt.Sprintf("%s: %s (%s)", loc, p.Text, p.Rule)
}

// Rule names only the outcome check uses; the others are scanner's.
const (
	RuleHardLink   = "hard-link"
	RuleUserBlock  = "user-block-changed"
	RuleTemplate   = "template-lowered"
	RuleEntryGone  = "entry-missing"
	RuleNotAllowed = "not-through-write-tool"
	RuleOther      = "special-file"
	// RuleConflict: a merge git stopped left conflict markers; the person resolves them.
	RuleConflict = "merge-conflict"
	// RuleGitDiscarded: a git command took away uncommitted bank work, which was put back.
	RuleGitDiscarded = "git-discarded-work"
	// RuleProtected: mbguard's configuration, hook files and risky git config keys are the
	// user's to change.
	RuleProtected = "protected-config"
)

// judge applies the rules to one path's new state d (nil: deleted) against its known-good
// state b (nil: new), with new and old the files' bytes. It returns what the result breaks
// that the known-good version did not already break.
func (r Rules) judge(path string, b, d *Entry, old, new []byte) ([]Problem, error) {
	if d == nil || d.Kind != KindFile {
		return notAFile(path, d), nil
	}
	var out []Problem
	if d.Nlink > 1 {
		out = append(out, Problem{path, 0, RuleHardLink, "is a hard link shared with another file; memory-bank/ files must not be linked"})
	}
	opts := scanner.Options{Minimum: r.Minimum, AllowedFiles: r.AllowedFiles}
	f := scanner.File{Path: path, Size: d.Size, Content: new}
	if b != nil && b.Kind == KindFile && !bytes.Equal(old, new) {
		f.Added, f.AddedOnly = addedLines(old, new), true
	}
	if (b == nil || !bytes.Equal(old, new)) && r.Secrets != nil {
		opts.Secrets = r.Secrets()
	}
	now, err := scanner.CheckFile(f, opts)
	if err != nil {
		return out, err
	}
	if b == nil || b.Kind != KindFile {
		return append(out, newFindings(path, nil, now)...), nil
	}
	before, _ := scanner.CheckFile(scanner.File{Path: path, Size: b.Size, Content: old},
		scanner.Options{Minimum: r.Minimum, AllowedFiles: r.AllowedFiles})
	out = append(out, newFindings(path, before, now)...)
	return append(out, markersKept(path, old, new)...), nil
}

// notAFile judges a deleted path, a folder, a symbolic link or another kind of entry.
func notAFile(path string, d *Entry) []Problem {
	var out []Problem
	add := func(line int, rule, text string) { out = append(out, Problem{path, line, rule, text}) }
	switch {
	case d == nil:
		if path == bank.Entry || path == bank.Dir {
			add(0, RuleEntryGone, "MEMORY.md must stay: it is the memory bank's entry")
		}
	case d.Kind == KindSymlink:
		// scanner's own rule and words, from the same code `mbguard check` runs
		fs, _ := scanner.CheckFile(scanner.File{Path: path, Mode: scanner.ModeSymlink}, scanner.Options{})
		for _, f := range fs {
			add(f.Line, f.Rule, f.Message)
		}
		if len(out) == 0 {
			add(0, scanner.RuleSymlink, "is a symbolic link; memory-bank/ holds only real files")
		}
	case d.Kind == KindOther:
		add(0, RuleOther, "is not a regular file; memory-bank/ holds only Markdown files")
	}
	return out
}

// newFindings are the errors in now that the known-good version (before) did not already
// have; a secret is always new (the scan looked only at added lines).
func newFindings(path string, before, now []scanner.Finding) []Problem {
	had := map[string]int{}
	for _, x := range before {
		if x.Severity == scanner.SeverityError {
			had[x.Rule]++
		}
	}
	var out []Problem
	for _, x := range now {
		if x.Severity != scanner.SeverityError {
			continue
		}
		if !strings.HasPrefix(x.Rule, scanner.SecretRulePrefix) && had[x.Rule] > 0 {
			had[x.Rule]-- // the known-good version broke this rule already
			continue
		}
		out = append(out, Problem{path, x.Line, x.Rule, x.Message})
	}
	return out
}

// markersKept checks what the known-good file old holds and new must keep: the USER_BLOCK
// byte for byte, and MEMORY.md's template version (never removed, never lower).
func markersKept(path string, old, new []byte) []Problem {
	var out []Problem
	add := func(rule, text string) { out = append(out, Problem{path, 0, rule, text}) }
	if ub, ok := bank.UserBlock(old); ok {
		if nb, ok := bank.UserBlock(new); !ok || !bytes.Equal(ub, nb) {
			add(RuleUserBlock, "the USER_BLOCK changed; it belongs to the user and must stay byte for byte")
		}
	}
	if path != bank.Entry {
		return out
	}
	if ov, ok := templateOf(old); ok {
		nv, ok := templateOf(new)
		switch {
		case !ok:
			add(RuleTemplate, fmt.Sprintf("the template version marker %s was removed", bank.TemplateMarker(ov)))
		case nv.Less(ov):
			add(RuleTemplate, fmt.Sprintf("the template version went down from %s to %s", ov, nv))
		}
	}
	return out
}

func templateOf(content []byte) (bank.Version, bool) {
	sc := bank.ScanMarkers(content)
	for _, t := range sc.Templates {
		if t.Valid {
			return t.Version, true
		}
	}
	return bank.Version{}, false
}

// addedLines are the 1-based lines of new whose text is not a line of old: the secret scan
// looks only there, so a secret the known-good file already held is not new.
func addedLines(old, new []byte) []int {
	have := map[string]int{}
	for _, l := range bytes.Split(old, []byte{'\n'}) {
		have[string(l)]++
	}
	var out []int
	for i, l := range bytes.Split(new, []byte{'\n'}) {
		if have[string(l)] > 0 {
			have[string(l)]--
			continue
		}
		out = append(out, i+1)
	}
	return out
}
