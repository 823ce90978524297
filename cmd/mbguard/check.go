package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/gitexec"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/scanner"
	"github.com/mbguard/mbguard/stale"
)

func newCheckCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "check [--staged | --all | --stale | paths...] [--format text|json|sarif|github]",
		Short: "check memory-bank/ (markers, template, secrets, stray files, stale references)",
		Long: `Checks memory-bank/ for broken block markers, an old template, secrets and stray files.

  --staged  what the next commit holds: index blobs; secrets only in the lines it adds
  --all     every file under memory-bank/ in the working tree, stale references as warnings
            (the default)
  --stale   only stale references: paths, make targets, npm scripts and symbols the notes
            name that the repository no longer has, with the commit that removed them
            (--since REV: notes and paths changed since REV; --fix: rewrite renamed paths)
  paths     these files or directories (as the pre-commit framework passes them)

Stale findings are warnings unless check.stale (off, warning, error) or check.stale_rules
(stale-path=error, stale-symbol=off…) say otherwise. A note marked
<!-- mbguard:historical --> is not checked for stale references.`,
	}
	staged := c.Flags().Bool("staged", false, "check what the next commit holds (the index, not the working tree)")
	all := c.Flags().Bool("all", false, "check every file under memory-bank/")
	staleOnly := c.Flags().Bool("stale", false, "check only for references the repository moved past")
	since := c.Flags().String("since", "", "with --stale: only notes and paths changed since this `rev`")
	fix := c.Flags().Bool("fix", false, "with --stale: rewrite paths git renamed, printing each change")
	format := c.Flags().String("format", "text", "output `format`: text, json, sarif (SARIF 2.1.0) or github (Actions annotations, plus a job summary when $GITHUB_STEP_SUMMARY is set)")
	c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "sarif", "github"}, cobra.ShellCompDirectiveNoFileComp))
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if hooks.Escaped(e.getenv) {
			// the one escape hatch, honoured here too so that every way of running the
			// check (git hook, pre-commit framework, lefthook, husky, CI) skips alike
			fmt.Fprintln(e.stderr, "mbguard: MBGUARD=0: check skipped (unset MBGUARD to check again)")
			return exitOK
		}
		f := checkFlags{staged: *staged, all: *all, staleOnly: *staleOnly, since: *since, fix: *fix, format: *format}
		if code, bad := f.validate(e, c, args); bad {
			return code
		}
		r, err := e.repo()
		if err != nil {
			if bareRepo(e.dir) {
				return e.fail(errors.New("this is a bare repository: it has no index or work tree to check (run mbguard check in a clone with a work tree)"))
			}
			return e.fail(err)
		}
		cfg, err := e.config(r.Root)
		if err != nil {
			return e.fail(err)
		}
		if len(cfg.Issues) > 0 {
			// a typo must never turn a team's gate off silently: CI and the Action stop here
			return configInvalid(e, r.Root, cfg, f.format)
		}
		if f.staleOnly {
			return runStale(ctx, e, r.Root, cfg, f.format, f.since, f.fix)
		}
		return runCheck(ctx, e, f, r, cfg, args)
	})
	return c
}

// checkFlags are the check command's flags.
type checkFlags struct {
	staged, all, staleOnly, fix bool
	since, format               string
}

// validate refuses flags that do not go together (bad true, with the exit code) and makes
// --all the default when no mode is given.
func (f *checkFlags) validate(e *env, c *cobra.Command, args []string) (int, bool) {
	modes := 0
	for _, on := range []bool{f.staged, f.all, f.staleOnly, len(args) > 0} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return e.usage(c, "check takes one of --staged, --all, --stale or paths, not several"), true
	}
	if modes == 0 {
		f.all = true // like lefthook and pre-commit: no argument checks everything
	}
	if (f.since != "" || f.fix) && !f.staleOnly {
		return e.usage(c, "--since and --fix go with --stale"), true
	}
	switch f.format {
	case "text", "json", "sarif", "github":
	default:
		return e.usage(c, "--format %q: want text, json, sarif or github", f.format), true
	}
	return 0, false
}

// runCheck checks the files f selects (--staged, --all or the paths in args) and writes the
// findings.
func runCheck(ctx context.Context, e *env, f checkFlags, r repo.Repo, cfg *config.Config, args []string) int {
	o := scanner.Options{Minimum: cfg.MinimumTemplate(), AllowedFiles: cfg.Check.AllowedFiles, Secrets: scanner.NewSecrets(r.Root), MaxChars: cfg.Context.MaxChars,
		CacheDir: r.StateDir()}
	produce, code, ok := checkSource(ctx, e, f, r, args)
	if !ok {
		return code
	}
	var bg *staleJob
	if f.all && !staleOff(cfg) {
		produce, bg = withStale(ctx, produce, r.Root, cfg)
	}
	var files atomic.Int64
	findings, err := scanner.Check(ctx, o, func(emit func(scanner.File) error) error {
		return produce(func(f scanner.File) error { files.Add(1); return emit(f) })
	})
	if err != nil {
		bg.cancel()
		return e.fail(err)
	}
	if kind, legacy := legacyBank(r); legacy && (f.all || files.Load() > 0) {
		// doctor FAILs it; the gate (CI, the Action) must not stay green on it either
		findings = append(findings, scanner.Finding{Path: bank.Dir + "/", Rule: scanner.RuleLegacyLayout, Severity: scanner.SeverityError,
			Message: fmt.Sprintf("memory-bank/ has the legacy layout (%s memory bank); mbguard checks and guards the v7.1 layout", kind),
			Fix:     "run mbguard migrate (it shows the plan; --apply moves the files with their history)"})
	}
	if bg != nil {
		sf, err := bg.wait(func(f string, a ...any) { fmt.Fprintf(e.stderr, f+"\n", a...) })
		if err != nil {
			return e.fail(err)
		}
		findings = append(findings, sf.Findings...)
		scanner.SortFindings(findings)
	}
	e.logf("checked %d files, %d findings", files.Load(), len(findings))
	if f.format == "text" && !scanner.Failing(findings) {
		checkPassed(ctx, e, r, int(files.Load()), f.staged)
	}
	return writeFindings(e, f.format, findings)
}

// staleJob is check --all's stale check, run beside the scan on the notes its walk read:
// one walk of the bank, and the stale check's git calls and parsing while the scan ends.
type staleJob struct {
	stop     context.CancelFunc
	done     chan struct{} // closed when res and err are set; nil: never started
	res      stale.Result
	err      error
	warnings [][]any // logf's arguments, printed by wait in order
}

// withStale returns produce, which now also collects the notes and starts the stale check on
// them when its walk has ended without error.
func withStale(ctx context.Context, produce func(emit func(scanner.File) error) error, root string, cfg *config.Config) (func(emit func(scanner.File) error) error, *staleJob) {
	j := &staleJob{}
	ctx, j.stop = context.WithCancel(ctx)
	return func(emit func(scanner.File) error) error {
		var notes []stale.Note
		err := produce(func(f scanner.File) error {
			if n, ok := staleNote(f); ok {
				notes = append(notes, n)
			}
			return emit(f)
		})
		if err != nil {
			return err
		}
		j.done = make(chan struct{})
		go func() {
			defer close(j.done)
			j.res, j.err = judgeStale(ctx, root, cfg, "", notes, func(format string, a ...any) {
				j.warnings = append(j.warnings, append([]any{format}, a...))
			})
		}()
		return nil
	}, j
}

// wait returns the stale check's result, printing its warnings with logf. A walk that failed
// never started it: then the check itself has failed.
func (j *staleJob) wait(logf func(string, ...any)) (stale.Result, error) {
	if j.done == nil {
		return stale.Result{}, errors.New("the stale check did not run: the walk of memory-bank/ failed")
	}
	<-j.done
	j.stop()
	for _, w := range j.warnings {
		logf(w[0].(string), w[1:]...)
	}
	return j.res, j.err
}

// cancel stops the stale check, if it runs, and waits for it to end.
func (j *staleJob) cancel() {
	if j == nil {
		return
	}
	j.stop()
	if j.done != nil {
		<-j.done
	}
}

// checkSource is what feeds the check the files f selects; ok false carries the exit code of
// a check that ends here (no memory-bank/ to check, bad paths).
func checkSource(ctx context.Context, e *env, f checkFlags, r repo.Repo, args []string) (produce func(emit func(scanner.File) error) error, code int, ok bool) {
	switch {
	case f.staged:
		if _, err := os.Stat(filepath.Join(r.GitDir, "MERGE_HEAD")); err == nil {
			e.logf("merge in progress: checking the merge result as staged")
		}
		return func(emit func(scanner.File) error) error { return scanner.Staged(ctx, r.Root, emit) }, 0, true
	case f.all:
		if fi, err := os.Stat(r.BankDir()); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
			fmt.Fprintf(e.stderr, "mbguard: no %s/ in %s: nothing to check (mbguard init creates one)\n", bank.Dir, r.Root)
			return nil, writeFindings(e, f.format, nil), false
		}
		return func(emit func(scanner.File) error) error {
			return scanner.Disk(ctx, r.Root, []string{bank.Dir}, emit)
		}, 0, true
	default:
		rels, err := repoPaths(e.dir, r.Root, args)
		if err != nil {
			return nil, e.fail(err), false
		}
		return func(emit func(scanner.File) error) error { return scanner.Disk(ctx, r.Root, rels, emit) }, 0, true
	}
}

// checkPassed tells people on stderr that the check passed, and how many files it read.
func checkPassed(ctx context.Context, e *env, r repo.Repo, n int, staged bool) {
	what := fmt.Sprintf("%d %s checked", n, plural(n, "file", "files"))
	if staged {
		what = fmt.Sprintf("%d %s of the next commit checked", n, plural(n, "file", "files"))
		if _, err := gitexec.Run(ctx, r.Root, "diff", "--cached", "--quiet", "--", bank.Dir+"/"); err == nil {
			what += "; nothing in it is staged"
		}
	}
	fmt.Fprintf(e.stderr, "mbguard: memory-bank/ passed (%s)\n", what)
}

// writeFindings prints the report on stdout and a one-line summary for people on stderr.
func writeFindings(e *env, format string, findings []scanner.Finding) int {
	var err error
	switch format {
	case "json":
		err = scanner.WriteJSON(e.stdout, findings)
	case "github":
		err = scanner.WriteGitHub(e.stdout, findings)
		if p := e.getenv("GITHUB_STEP_SUMMARY"); err == nil && p != "" {
			err = appendSummary(p, findings)
		}
	case "sarif":
		err = scanner.WriteSARIF(e.stdout, findings, versionString())
	default:
		err = scanner.WriteText(e.stdout, findings)
	}
	if err != nil {
		return e.fail(fmt.Errorf("writing the report: %w", err))
	}
	if !scanner.Failing(findings) {
		return exitOK
	}
	if format == "text" {
		n := 0
		for _, f := range findings {
			if f.Severity == scanner.SeverityError {
				n++
			}
		}
		root := ""
		if r, err := e.repo(); err == nil {
			root = r.Root
		}
		fmt.Fprintf(e.stderr, "mbguard: %d problem(s) in memory-bank/: fix them as shown above, then check again (to commit anyway, once: %s)\n", n, hooks.SkipHint(root, e.getenv))
	}
	return exitFindings
}

// repoPaths turns command-line paths (relative to dir) into repository-relative ones.
func repoPaths(dir, root string, args []string) ([]string, error) {
	base, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("locating %s: %w", dir, err)
	}
	var out []string
	for _, a := range args {
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		p = filepath.Clean(p)
		// resolve the parent's links (e.g. /tmp → /private/tmp) but not the file's own: a
		// symlink in memory-bank/ is a finding, not something to follow
		if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(d, filepath.Base(p))
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s is outside the repository %s (pass paths inside it)", a, root)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}

// bareRepo reports whether dir is inside a bare repository, to explain why there is nothing
// to check instead of saying "not a git repository".
func bareRepo(dir string) bool {
	out, err := gitexec.Run(context.Background(), dir, "rev-parse", "--is-bare-repository")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// appendSummary adds the Markdown job summary to the file GitHub Actions names.
func appendSummary(path string, findings []scanner.Finding) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("writing the job summary: %w", err)
	}
	if err := scanner.WriteSummary(f, findings); err != nil {
		f.Close()
		return fmt.Errorf("writing the job summary: %w", err)
	}
	return f.Close()
}

// configInvalid reports every configuration problem, with its file, line and key, on stderr
// (and as error annotations with --format github) and returns exit 2: check does not run on a
// configuration it cannot read as written.
func configInvalid(e *env, root string, cfg *config.Config, format string) int {
	if format == "github" {
		var fs []scanner.Finding
		for _, is := range cfg.Issues {
			path := is.File
			if rel, err := filepath.Rel(root, path); err == nil && path != "" && !strings.HasPrefix(rel, "..") {
				path = filepath.ToSlash(rel)
			}
			fs = append(fs, scanner.Finding{Path: path, Line: is.Line, Rule: "config", Severity: scanner.SeverityError,
				Message: is.Text, Fix: "fix it; mbguard config shows every value and where it came from"})
		}
		_ = scanner.WriteGitHub(e.stdout, fs)
	}
	for _, p := range cfg.Problems {
		fmt.Fprintf(e.stderr, "mbguard: %s\n", p)
	}
	fmt.Fprintln(e.stderr, "mbguard: check did not run: the configuration above is invalid; fix it (mbguard config shows every value and where it came from)")
	return exitUsage
}
