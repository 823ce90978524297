package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/scanner"
	"github.com/mbguard/mbguard/stale"
)

// runStale is check --stale: the stale-reference findings alone, and with --fix the renamed
// paths rewritten in the bank.
func runStale(ctx context.Context, e *env, root string, cfg *config.Config, format, since string, fix bool) int {
	if fi, err := os.Stat(filepath.Join(root, bank.Dir)); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		fmt.Fprintf(e.stderr, "mbguard: no %s/ in %s: nothing to check (mbguard init creates one)\n", bank.Dir, root)
		return writeFindings(e, format, nil)
	}
	res, err := staleFindings(ctx, root, cfg, since, func(f string, a ...any) { fmt.Fprintf(e.stderr, f+"\n", a...) })
	if err != nil {
		return e.fail(err)
	}
	if fix && len(res.Fixes) > 0 {
		done, err := stale.Apply(root, res.Fixes)
		for _, f := range done {
			fmt.Fprintf(e.stderr, "mbguard: %s:%d: %s → %s\n", scanner.DisplayPath(f.Path), f.Line, f.Old, f.New)
		}
		if err != nil {
			return e.fail(err)
		}
		kept := res.Findings[:0]
		for _, f := range res.Findings {
			if !fixedFinding(f, done) {
				kept = append(kept, f)
			}
		}
		res.Findings = kept
		fmt.Fprintf(e.stderr, "mbguard: rewrote %d renamed path(s) in %s/: review with git diff, then commit\n", len(done), bank.Dir)
	}
	if format == "text" && !scanner.Failing(res.Findings) {
		what := "no stale references"
		if n := len(res.Findings); n > 0 {
			what = fmt.Sprintf("%d %s", n, plural(n, "warning", "warnings"))
		}
		fmt.Fprintf(e.stderr, "mbguard: memory-bank/ passed the stale check (%s)\n", what)
	}
	return writeFindings(e, format, res.Findings)
}

// fixedFinding reports whether --fix rewrote what a finding reported.
func fixedFinding(f scanner.Finding, done []stale.Fix) bool {
	if f.Rule != stale.RulePath {
		return false
	}
	for _, d := range done {
		if d.Path == f.Path && d.Line == f.Line && f.Fix == "write "+d.New+" instead (mbguard check --stale --fix does it)" {
			return true
		}
	}
	return false
}

// staleFindings reads every note under memory-bank/ and checks its references (judgeStale).
func staleFindings(ctx context.Context, root string, cfg *config.Config, since string, logf func(string, ...any)) (stale.Result, error) {
	if staleOff(cfg) {
		return stale.Result{}, nil
	}
	var notes []stale.Note
	err := scanner.Disk(ctx, root, []string{bank.Dir}, func(f scanner.File) error {
		if n, ok := staleNote(f); ok {
			notes = append(notes, n)
		}
		return nil
	})
	if err != nil {
		return stale.Result{}, err
	}
	return judgeStale(ctx, root, cfg, since, notes, logf)
}

// staleOff reports whether the configuration turns every stale rule off.
func staleOff(cfg *config.Config) bool {
	return cfg.Check.Stale == "off" && len(cfg.Check.StaleRules) == 0
}

// staleNote is the note the stale check reads from a file of the bank, if it is one: a
// Markdown file with content, not a link.
func staleNote(f scanner.File) (stale.Note, bool) {
	if f.Mode != scanner.ModeSymlink && len(f.Content) > 0 && strings.EqualFold(path.Ext(f.Path), ".md") {
		return stale.Note{Path: f.Path, Content: f.Content}, true
	}
	return stale.Note{}, false
}

// judgeStale checks the notes' references, with the severities the configuration gives each
// rule ("off" drops the rule).
func judgeStale(ctx context.Context, root string, cfg *config.Config, since string, notes []stale.Note, logf func(string, ...any)) (stale.Result, error) {
	res, err := stale.Check(ctx, root, notes, stale.Options{Since: since})
	if err != nil {
		return res, err
	}
	for _, w := range res.Warnings {
		logf("mbguard: %s", w)
	}
	kept := res.Findings[:0]
	for _, f := range res.Findings {
		switch cfg.StaleSeverityOf(f.Rule) {
		case "off":
			continue
		case "error":
			f.Severity = scanner.SeverityError
		default:
			f.Severity = scanner.SeverityWarning
		}
		kept = append(kept, f)
	}
	res.Findings = kept
	return res, nil
}
