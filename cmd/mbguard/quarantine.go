package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/scanner"
)

// newQuarantineCmd manages what the outcome check moved out of memory-bank/: the bytes an
// agent wrote there that the rules forbid, kept under the git directory.
func newQuarantineCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "quarantine", Short: "list, show, restore or drop what mbguard undid in memory-bank/",
		Long: "After every tool call that may write, mbguard undoes changes to memory-bank/ that the rules forbid\n" +
			"and keeps the agent's bytes in .git/mbguard/quarantine/ (never committed). Restoring puts them back;\n" +
			"mbguard then treats them as your own edit and keeps them."}
	c.AddCommand(newQuarantineList(e), newQuarantineShow(e), newQuarantineRestore(e), newQuarantineDrop(e))
	return c
}

func exactlyOneID(c *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError{c, c.Name() + " takes one quarantine id, as mbguard quarantine list shows it"}
	}
	return nil
}

func newQuarantineList(e *env) *cobra.Command {
	c := &cobra.Command{Use: "list [--json]", Short: "list quarantine entries, oldest first", Args: noArgs}
	asJSON := c.Flags().Bool("json", false, "print JSON")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		r, err := e.repo()
		if err != nil {
			return e.fail(err)
		}
		qs, err := outcome.ListQuarantine(r)
		if err != nil {
			return e.fail(err)
		}
		if *asJSON {
			if qs == nil {
				qs = []outcome.Quarantined{}
			}
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(qs); err != nil {
				return e.fail(err)
			}
			return exitOK
		}
		if len(qs) == 0 {
			fmt.Fprintln(e.stdout, "quarantine: empty")
			return exitOK
		}
		for _, q := range qs {
			if q.Damaged != "" {
				fmt.Fprintf(e.stdout, "%s  (damaged record: run mbguard quarantine show %s)\n", q.ID, q.ID)
				continue
			}
			var paths []string
			for _, en := range q.Entries {
				paths = append(paths, scanner.DisplayPath(en.Path))
			}
			fmt.Fprintf(e.stdout, "%s  %s  %s  %s\n", q.ID, orDash(q.Tool), orDash(q.Session), strings.Join(paths, ", "))
		}
		fmt.Fprintln(e.stdout, "next: mbguard quarantine show <id>")
		return exitOK
	})
	return c
}

func newQuarantineShow(e *env) *cobra.Command {
	c := &cobra.Command{Use: "show <id>|last", Short: "show what an entry holds (secrets redacted)", Args: exactlyOneID}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		r, err := e.repo()
		if err != nil {
			return e.fail(err)
		}
		q, err := outcome.GetQuarantine(r, args[0])
		if err != nil {
			return e.fail(err)
		}
		fmt.Fprintf(e.stdout, "id:      %s\ntime:    %s\nsession: %s\ntool:    %s (call %s)\n", q.ID, q.Time, orDash(q.Session), orDash(q.Tool), orDash(q.Call))
		for _, en := range q.Entries {
			fmt.Fprintf(e.stdout, "\n%s: %s — %s\n", scanner.DisplayPath(en.Path), en.Change, terminalSafe(en.Why))
			b, err := outcome.ReadQuarantined(r, q, en)
			switch {
			case err != nil:
				fmt.Fprintf(e.stdout, "  (bytes unreadable: %v)\n", err)
			case en.File == "":
				fmt.Fprintln(e.stdout, "  (no bytes of the agent's to keep)")
			case en.Kind == outcome.KindSymlink:
				fmt.Fprintf(e.stdout, "  symbolic link to %s\n", b)
			default:
				showBytes(e, r, en.Path, b)
			}
		}
		// a changed file is on disk again (the undo put the previous bytes back): restore
		// refuses without --force, so the step offered is the one that works
		var there []string
		for _, en := range q.Entries {
			if _, err := os.Lstat(filepath.Join(r.Root, filepath.FromSlash(en.Path))); err == nil && en.File != "" {
				there = append(there, scanner.DisplayPath(en.Path))
			}
		}
		if len(there) > 0 {
			fmt.Fprintf(e.stdout, "\nnext: mbguard quarantine restore --force %s (replaces %s with the agent's bytes) or mbguard quarantine drop %s\n", q.ID, strings.Join(there, ", "), q.ID)
			return exitOK
		}
		fmt.Fprintf(e.stdout, "\nnext: mbguard quarantine restore %s (puts the bytes back) or mbguard quarantine drop %s\n", q.ID, q.ID)
		return exitOK
	})
	return c
}

// showBytes prints text with any secret redacted; binary data only by size.
func showBytes(e *env, r repo.Repo, path string, b []byte) {
	if !utf8.Valid(b) || strings.ContainsRune(string(b[:min(len(b), 8000)]), 0) {
		fmt.Fprintf(e.stdout, "  (%d bytes of binary data)\n", len(b))
		return
	}
	if fs, err := scanner.NewSecrets(r.Root).Scan(path, b); err != nil {
		fmt.Fprintf(e.stdout, "  (%d bytes; not shown: the secret scan failed: %v)\n", len(b), err)
		return
	} else if len(fs) > 0 {
		b = scanner.Redact(b, fs)
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		fmt.Fprintln(e.stdout, "  | "+l)
	}
}

func newQuarantineRestore(e *env) *cobra.Command {
	c := &cobra.Command{Use: "restore <id>|last [--force]", Short: "put an entry's bytes back where the agent wrote them", Args: exactlyOneID}
	force := c.Flags().Bool("force", false, "overwrite files that exist at those paths")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if code, stop := e.refuseUnderAgent("quarantine restore"); stop {
			return code
		}
		r, err := e.repo()
		if err != nil {
			return e.fail(err)
		}
		done, err := outcome.RestoreQuarantine(r, args[0], *force)
		for _, p := range done {
			fmt.Fprintf(e.stdout, "restored %s\n", p)
		}
		if err != nil {
			return e.fail(err)
		}
		if len(done) == 0 {
			fmt.Fprintln(e.stdout, "nothing to restore: the entry kept no bytes; dropped it")
		}
		fmt.Fprintln(e.stdout, "next: mbguard check --all (mbguard keeps these as your own edit)")
		return exitOK
	})
	return c
}

func newQuarantineDrop(e *env) *cobra.Command {
	c := &cobra.Command{Use: "drop <id> | --all", Short: "delete quarantine entries for good"}
	all := c.Flags().Bool("all", false, "drop every entry")
	c.Args = func(c *cobra.Command, args []string) error {
		if *all && len(args) == 0 || !*all && len(args) == 1 {
			return nil
		}
		return usageError{c, "drop takes one quarantine id, or --all"}
	}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if code, stop := e.refuseUnderAgent("quarantine drop"); stop {
			return code
		}
		r, err := e.repo()
		if err != nil {
			return e.fail(err)
		}
		ids := args
		if *all {
			qs, err := outcome.ListQuarantine(r)
			if err != nil {
				return e.fail(err)
			}
			ids = nil
			for _, q := range qs {
				ids = append(ids, q.ID)
			}
		}
		for _, id := range ids {
			if err := outcome.DropQuarantine(r, id); err != nil {
				return e.fail(err)
			}
		}
		fmt.Fprintf(e.stdout, "dropped %d quarantine %s\n", len(ids), plural(len(ids), "entry", "entries"))
		return exitOK
	})
	return c
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkQuarantine is doctor's line about the quarantine.
func checkQuarantine(r repo.Repo) doctorCheck {
	n := outcome.CountQuarantine(r)
	if n == 0 {
		return doctorCheck{Name: "quarantine", Status: checkOK, Detail: "empty"}
	}
	return doctorCheck{Name: "quarantine", Status: checkWarn,
		Detail: fmt.Sprintf("%d %s of bytes mbguard undid in memory-bank/", n, plural(n, "entry", "entries")),
		Next:   "mbguard quarantine list, then restore or drop each entry"}
}

// checkKnownGood fails when every copy of the bank's known-good state was deleted or forged:
// bank writes are refused until the person has looked and reset it.
func checkKnownGood(r repo.Repo) doctorCheck {
	if !outcome.StoreLost(r) {
		return doctorCheck{Name: "known-good store", Status: checkOK, Detail: "authentic"}
	}
	return doctorCheck{Name: "known-good store", Status: checkFail,
		Detail: "every copy of the known-good state of memory-bank/ was deleted or forged; agents' bank writes are refused",
		Next:   "check memory-bank/ (git status memory-bank, git diff memory-bank), then run mbguard doctor --reset-known-good"}
}

func resetKnownGood(r repo.Repo) error { return outcome.ResetKnownGood(r) }
