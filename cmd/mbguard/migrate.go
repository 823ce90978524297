package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/lifecycle"
)

func newMigrateCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "migrate [--apply] [--rollback] [--git-cli] [--no-git] [--no-rewrite-links] [--force] [--diff]", Short: "migrate a memory bank (memory-bank-skill legacy, Cline, Roo Code, Cursor, Kilo Code, unmarked MEMORY.md; also from .cursor/rules/memory-bank/, .kilocode/rules/memory-bank/ or .memory-bank/) to v7.1 (plan; --apply to execute)", Args: noArgs}
	apply := c.Flags().Bool("apply", false, "execute the plan (commits: the moves, then MEMORY.md, then the rewritten links); resumes an interrupted run")
	rollback := c.Flags().Bool("rollback", false, "undo a migration: restore memory-bank/ and the branch to the starting commit")
	gitCLI := c.Flags().Bool("git-cli", false, "move and commit through the git CLI, so hooks, signing and filters apply")
	noGit := c.Flags().Bool("no-git", false, "move files without git: no commits, no history, no rollback")
	noLinks := c.Flags().Bool("no-rewrite-links", false, "leave links and paths to moved files, in the bank and outside it, as they are (no links commit)")
	diff := c.Flags().Bool("diff", false, "print the content the plan would write (MEMORY.md, legacy.md, every link rewrite) without changing anything")
	force := c.Flags().Bool("force", false, "migrate a bank that does not look enough like its convention, or merge entry files still referenced from outside the bank")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if *rollback && (*apply || *noGit) {
			return e.usage(c, "--rollback goes alone: it cannot be combined with --apply or --no-git")
		}
		o := lifecycle.MigrateOptions{Apply: *apply, Rollback: *rollback, GitCLI: *gitCLI, NoGit: *noGit, NoRewriteLinks: *noLinks, Force: *force,
			// Fault injection for the resume tests; an unset variable is the real world.
			FailAfter: e.getenv("MBGUARD_TEST_FAIL_AFTER")}
		r, err := e.repo()
		switch {
		case err == nil:
			o.Root, o.GitDir, o.StateDir = r.Root, r.GitDir, r.StateDir()
		case *noGit:
			if o.Root, err = absDir(e.dir); err != nil {
				return e.fail(err)
			}
		default:
			return e.fail(fmt.Errorf("%w; or pass --no-git for plain moves without history", err))
		}
		if *diff {
			if *apply || *rollback {
				return e.usage(c, "--diff only shows the plan's content: run it without --apply or --rollback")
			}
			return e.migrateDiff(o)
		}
		if e.isTerminal() {
			o.Progress = e.moveProgress
		}
		res, err := lifecycle.Migrate(ctx, o)
		return e.migrated(r, res, err)
	})
	return c
}

// migrated reports what lifecycle.Migrate did, or why it did not, and returns the exit code.
func (e *env) migrated(r repo.Repo, res lifecycle.MigrateResult, err error) int {
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "mbguard: warning: %s\n", w)
	}
	if err != nil {
		if errors.Is(err, lifecycle.ErrRefused) {
			printPlan(e, res.Plan)
		}
		return e.fail(err)
	}
	switch {
	case res.RolledBack != "":
		fmt.Fprintf(e.stdout, "rolled back to %s\n", res.RolledBack)
		fmt.Fprintln(e.stderr, "mbguard: memory-bank/ is as it was before the migration; run mbguard migrate to see the plan again")
	case res.NoOp:
		fmt.Fprintln(e.stderr, "mbguard: memory-bank/ already has MEMORY.md; nothing to migrate (run mbguard upgrade for an older template)")
	case !res.Applied:
		printPlan(e, res.Plan)
		fmt.Fprintln(e.stderr, "mbguard: this is the plan; nothing changed: run mbguard migrate --apply")
	default:
		e.prime(r) // the first hook call must not build the known-good store
		printMigrated(e, res)
	}
	return exitOK
}

// moveProgress shows how many files a large migration has moved (a terminal only).
func (e *env) moveProgress(done, total int) {
	if total < 200 {
		return
	}
	fmt.Fprintf(e.stderr, "\rmbguard: moving %d/%d", done, total)
	if done == total {
		fmt.Fprintln(e.stderr)
	}
}

// migrateDiff prints the content the plan would write, changing nothing.
func (e *env) migrateDiff(o lifecycle.MigrateOptions) int {
	plan, pv, err := lifecycle.PreviewMigration(o)
	if err != nil {
		if errors.Is(err, lifecycle.ErrRefused) {
			printPlan(e, plan)
		}
		return e.fail(err)
	}
	if len(plan.Refusals) > 0 {
		printPlan(e, plan)
		return e.fail(fmt.Errorf("%w: %s", lifecycle.ErrRefused, strings.Join(plan.Refusals, "; ")))
	}
	fmt.Fprint(e.stdout, pv.Diff())
	for _, m := range pv.Mentions {
		fmt.Fprintf(e.stdout, "mention  %s:%d %s (now %s): %s\n", m.Path, m.Line, m.Text, m.Now, m.Why)
	}
	if len(pv.Files) == 0 {
		fmt.Fprintln(e.stderr, "mbguard: nothing to migrate: no content would change")
		return exitOK
	}
	fmt.Fprintln(e.stderr, "mbguard: this is what mbguard migrate --apply would write; nothing changed")
	return exitOK
}

// printMigrated reports an applied (or resumed) migration: its commits, files, links and
// mentions, and the next step.
func printMigrated(e *env, res lifecycle.MigrateResult) {
	if res.Resumed {
		fmt.Fprintln(e.stderr, "mbguard: resumed the interrupted migration")
	}
	if res.NoMoves {
		fmt.Fprintln(e.stdout, "nothing to move: no rename commit")
	}
	for _, c := range res.Commits {
		fmt.Fprintf(e.stdout, "commit %s %s\n", c.Hash, c.Subject)
	}
	if res.Legacy {
		fmt.Fprintln(e.stdout, "created memory-bank/legacy.md")
	}
	for _, l := range res.Rewritten {
		fmt.Fprintf(e.stdout, "link     %s:%d %s -> %s\n", l.Path, l.Line, l.Target, l.New)
	}
	for _, l := range res.Unresolved {
		fmt.Fprintf(e.stdout, "broken   %s:%d %s (its target was missing before the migration: left as it was)\n", l.Path, l.Line, l.Target)
	}
	for _, m := range res.Mentions {
		now := ""
		if m.Now != "" {
			now = " (now " + m.Now + ")"
		}
		fmt.Fprintf(e.stdout, "mention  %s:%d %s%s: %s\n", m.Path, m.Line, m.Text, now, m.Why)
	}
	if len(res.Mentions) > 0 {
		fmt.Fprintf(e.stderr, "mbguard: %d reference(s) to moved or merged bank files were not rewritten (listed as mention): change them by hand\n", len(res.Mentions))
	}
	if len(res.Unresolved) > 0 {
		fmt.Fprintf(e.stderr, "mbguard: %d link(s) pointed at nothing before the migration and were left as they were: fix them by hand\n", len(res.Unresolved))
	}
	review := "MEMORY.md"
	if res.Legacy {
		review = "MEMORY.md and legacy.md"
	}
	fmt.Fprintf(e.stderr, "mbguard: migrated memory-bank/ to v7.1: review %s, then run mbguard check --all\n", review)
}

func printPlan(e *env, p lifecycle.Plan) {
	if len(p.Moves)+len(p.Merges)+len(p.Create)+len(p.Rewrite)+len(p.Delete)+len(p.Notes)+len(p.Refusals) == 0 {
		return // no legacy bank, or a refusal before planning: no plan to show
	}
	if p.Kind != "" && p.Kind != "v7" {
		where := ""
		if p.From != "" {
			where = " (kept in " + p.From + "/, brought to memory-bank/)"
		}
		fmt.Fprintf(e.stdout, "%-8s %s%s\n", "layout", p.Kind, where)
	}
	for _, m := range p.Moves {
		fmt.Fprintf(e.stdout, "%-8s %s -> %s\n", "move", m.From, m.To)
	}
	for _, m := range p.Merges {
		fmt.Fprintf(e.stdout, "%-8s %s -> %s\n", "merge", m.From, m.To)
	}
	for _, c := range p.Create {
		fmt.Fprintf(e.stdout, "%-8s %s\n", "create", c)
	}
	for _, c := range p.Rewrite {
		fmt.Fprintf(e.stdout, "%-8s %s\n", "rewrite", c)
	}
	if len(p.Create) > 0 {
		fmt.Fprintf(e.stdout, "%-8s %s\n", "maybe", "memory-bank/legacy.md (an index's topic routing, user blocks of other files, files with broken markers)")
	}
	if len(p.Moves) > 0 {
		fmt.Fprintf(e.stdout, "%-8s %s\n", "links", "links, paths and wiki-links to moved files, in the bank and in the repository's other text files, are rewritten in a separate commit (--no-rewrite-links to skip)")
	}
	for _, d := range p.Delete {
		fmt.Fprintf(e.stdout, "%-8s %s\n", "delete", d)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(e.stdout, "%-8s %s\n", "note", n)
	}
	for _, r := range p.Refusals {
		fmt.Fprintf(e.stdout, "%-8s %s\n", "refuse", r)
	}
}

// isTerminal reports whether stderr is a terminal (a character device): progress bars only there.
func (e *env) isTerminal() bool {
	f, ok := e.stderr.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func absDir(d string) (string, error) {
	fi, err := os.Stat(d)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", d)
	}
	return d, nil
}
