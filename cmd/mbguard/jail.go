package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/jail"
	"github.com/mbguard/mbguard/internal/repo"
)

func newJailCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "jail [--sh | --cwd-file file] -- command [args...]",
		Short: "run a command with memory-bank/ read-only (the kernel line; hooks rewrite agent shells to this)",
		Long: `Runs the command with the repository's memory-bank/ mounted read-only, so nothing it
starts — background jobs included — can write the bank, whatever path it computes. Reading
the bank, writing elsewhere, the exit status and the output are the command's own.

Linux: bubblewrap (bwrap) when installed, else an unprivileged user+mount namespace. Where
neither works (macOS, Windows, Ubuntu's user-namespace restriction without bwrap), the
command runs without the jail and a note says why: the other two lines still hold.

With --sh, the single argument is a shell command line; --cwd-file also writes the directory
it ends in to file, so a host's shell can follow a cd.`,
		Args: cobra.MinimumNArgs(1),
	}
	sh := c.Flags().Bool("sh", false, "run the one argument as a shell command line")
	cwdFile := c.Flags().String("cwd-file", "", "like --sh, and write the `file` with the directory the command ends in")
	method := c.Flags().String("method", "", "force a `method`: userns or bwrap (for benchmarks and tests)")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		argv := args
		if *cwdFile != "" || *sh {
			if len(args) != 1 {
				return e.usage(c, "--sh and --cwd-file take one shell command line after --, got %d arguments", len(args))
			}
			argv = jail.ShellArgv(args[0], *cwdFile)
		}
		bank, where := "", "not inside a git work tree"
		if r, err := e.repo(); err == nil {
			bank, where = filepath.Join(r.Root, "memory-bank"), "no memory-bank/ in "+r.Root
		}
		if fi, err := os.Stat(bank); bank == "" || err != nil || !fi.IsDir() {
			// said, not only logged: the help promises a note whenever the jail is not used
			fmt.Fprintf(e.stderr, "mbguard: %s: ran the command without the jail (nothing to make read-only)\n", where)
			return runPlain(e, argv)
		}
		run := jail.Exec
		if e.stdin != os.Stdin || e.stdout != os.Stdout || e.stderr != os.Stderr {
			run = jail.Run // in-process callers keep their own streams
		}
		code, m, err := run(jail.Options{Bank: bank, Argv: argv, Method: jail.Method(*method),
			Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr})
		switch {
		case errors.Is(err, jail.ErrUnavailable) && *method == "":
			fmt.Fprintf(e.stderr, "mbguard: %v; ran without it (see mbguard doctor)\n", err)
			return runPlain(e, argv)
		case err != nil:
			fmt.Fprintf(e.stderr, "mbguard: jail: %v\n", err)
			return 126
		}
		e.logf("jail: %s ran under %s, exit %d", argv[0], m, code)
		return code
	})
	return c
}

// runPlain runs argv without the jail, with the process's streams.
func runPlain(e *env, argv []string) int {
	code, err := jail.RunPlain(argv)
	if err != nil {
		fmt.Fprintf(e.stderr, "mbguard: %v\n", err)
	}
	return code
}

// kernelJail is how serve rewrites shell calls for the kernel line when kernel.mode is on and
// a jail works here, else nil (said with --verbose; doctor prints why). A command line of git
// branch operations only (jail.BranchOp) is left as it is: it must be able to update the
// bank, and the check after the call judges what it brought.
func kernelJail(e *env, r repo.Repo, cfg *config.Config) func(string) string {
	if cfg.Kernel.Mode != "on" {
		return nil
	}
	if _, err := jail.Probe(""); err != nil {
		e.logf("kernel line off: %v", err)
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	w := jail.NewWrapper(self, filepath.Join(r.Root, "memory-bank"))
	return func(cmd string) string {
		if jail.BranchOp(cmd) {
			return "" // git's branch operations update the bank; judged after the call
		}
		return w.Wrap(cmd)
	}
}
