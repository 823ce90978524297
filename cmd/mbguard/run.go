package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/lifecycle"
	"github.com/mbguard/mbguard/outcome"
)

// Exit codes, stated in --help.
const (
	exitOK       = 0 // success, nothing found, write allowed
	exitFindings = 1 // findings, a decision that blocks, or a refused request
	exitUsage    = 2 // usage or internal error
)

const exitCodesHelp = "Exit codes: 0 ok, 1 findings, blocked or refused, 2 usage or internal error."

// exitCodes are the footers of the commands whose exit codes differ from exitCodesHelp; a
// subcommand has its parent's.
var exitCodes = map[string]string{
	"hook":       "Exit codes: 0 the host reads the reply on stdout (a refusal included, for hosts that take it as JSON); 2 blocks the call on hosts that refuse by exit code, the reason on stderr, or a usage error.",
	"jail":       "Exit codes: the command's own; 2 usage error; 126 the jail could not be set up.",
	"completion": "Exit codes: 0 ok, 2 usage error.",
	"help":       "Exit codes: 0 ok, 2 usage error (no such help topic).",
	"version":    "Exit codes: 0 ok, 2 usage error.",
}

const exitCodesKey = "mbguard-exit-codes"

// exitCodesOf is the exit-code footer of c's help: its own, its parent's, else the common one.
func exitCodesOf(c *cobra.Command) string {
	for p := c; p != nil; p = p.Parent() {
		if codes, ok := p.Annotations[exitCodesKey]; ok {
			return codes
		}
	}
	return exitCodesHelp
}

// env is what every subcommand may touch: no globals, so tests run the CLI in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	dir            string   // -C: where to start looking for the repository
	sets           []string // --set key=value
	verbose        bool
	code           int // the exit code the subcommand chose
}

// commands lists the constructors; one per subcommand, no init() registration.
func commands(e *env) []*cobra.Command {
	return []*cobra.Command{
		newHookCmd(e),
		newServeCmd(e),
		newWatchCmd(e),
		newCheckCmd(e),
		newInstallCmd(e),
		newInitCmd(e),
		newUpgradeCmd(e),
		newMigrateCmd(e),
		newStatusCmd(e),
		newDoctorCmd(e),
		newConfigCmd(e),
		newVersionCmd(e),
		newDemoCmd(e),
		newQuarantineCmd(e),
		newJailCmd(e),
		newUninstallCmd(e),
		newSettleCmd(e),
		newScanEngineCmd(e),
	}
}

const rootLong = `mbguard keeps AI coding agents honest about memory-bank/.

Configuration (later wins): defaults, ~/.config/mbguard/config.yaml, .mbguard.yaml in the
repository, environment (MEMORY_BANK_GUARD_MODE, MEMORY_BANK_DOC_FIRST_MODE,
MEMORY_BANK_MAX_CHARS, then MBGUARD_<KEY>), flags.`

// newRootCmd builds the command tree for one run. Building it costs microseconds, and cobra
// does no work at package initialisation, so the hook path pays only for what it runs.
func newRootCmd(e *env) *cobra.Command {
	var showVersion bool
	root := &cobra.Command{
		Use:           "mbguard",
		Short:         "keep AI coding agents honest about memory-bank/",
		Long:          rootLong,
		SilenceErrors: true, // run prints errors once, as mbguard: …
		SilenceUsage:  true, // a mistake gets one line naming --help, not a page of flags
		RunE: func(c *cobra.Command, args []string) error {
			if showVersion {
				fmt.Fprintln(e.stdout, currentBuild())
				return nil
			}
			// bare `mbguard` prints help and succeeds, as gh and kubectl do
			return c.Help()
		},
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			if err := e.checkDir(); err != nil {
				e.code = e.fail(err)
				return errReported
			}
			return nil
		},
	}
	root.Flags().BoolVar(&showVersion, "version", false, "print the version (same as mbguard version)")
	pf := root.PersistentFlags()
	pf.StringVarP(&e.dir, "dir", "C", ".", "run as if started in `dir`")
	pf.StringArrayVar(&e.sets, "set", nil, "override a configuration `key=value` (repeatable; see mbguard config)")
	pf.BoolVarP(&e.verbose, "verbose", "v", e.verbose, "log to stderr (also MBGUARD_DEBUG=1)")
	// Every command's help ends with the exit codes. A usage func, not SetUsageTemplate: a
	// reachable text/template execution turns off the linker's dead-code elimination of
	// methods for the whole binary (spf13/cobra#1956), which made it 10 MB larger and each
	// hook call ~1 ms slower to start.
	usage := root.UsageFunc()
	root.SetUsageFunc(func(c *cobra.Command) error {
		if err := usage(c); err != nil {
			return err
		}
		fmt.Fprintf(c.OutOrStderr(), "\n%s\n", exitCodesOf(c))
		return nil
	})
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{c, flagMessage(err)}
	})
	root.AddCommand(commands(e)...)
	root.SetHelpCommand(newHelpCmd())
	// cobra's own completion command, worded like ours
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "completion":
			c.Short = "print a shell completion script (bash, zsh, fish, powershell)"
			// runnable, so cobra reports an unknown shell instead of printing help and exiting 0
			c.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
			for _, sh := range c.Commands() {
				sh.Short = "print the " + sh.Name() + " completion script"
			}
		}
		if codes, ok := exitCodes[c.Name()]; ok {
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			c.Annotations[exitCodesKey] = codes
		}
	}
	for _, c := range root.Commands() {
		if c.HasSubCommands() {
			groupArgs(c)
		}
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	return root
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	getenv = config.WithUserHome(getenv)
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, dir: "."}
	e.verbose = getenv("MBGUARD_DEBUG") != "" && getenv("MBGUARD_DEBUG") != "0"
	root := newRootCmd(e)
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		var ue usageError
		switch {
		case errors.Is(err, errReported):
			return e.code
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "mbguard: %s (see %s --help)\n", ue.msg, ue.cmd.CommandPath())
		default:
			// cobra's own errors (an unknown command, with its suggestions) are usage errors too
			first, rest, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
			fmt.Fprintf(stderr, "mbguard: %s (see mbguard --help)\n", first)
			if rest = strings.TrimSpace(rest); rest != "" {
				fmt.Fprintln(stderr, rest)
			}
		}
		return exitUsage
	}
	return e.code
}

// groupArgs makes a command that only groups others (quarantine, completion) refuse an
// unknown subcommand as a usage error (exit 2); alone it prints its help and succeeds, as bare
// mbguard does.
func groupArgs(c *cobra.Command) {
	c.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		var names []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		return usageError{c, fmt.Sprintf("unknown %s subcommand %q (want %s)", c.Name(), args[0], strings.Join(names, ", "))}
	}
	if c.RunE == nil && c.Run == nil {
		c.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
	}
}

// newHelpCmd is `mbguard help [command]`: cobra's, except that an unknown topic is a usage
// error (exit 2) rather than help and exit 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:         "help [command]",
		Short:       "show help for any command",
		Annotations: map[string]string{exitCodesKey: exitCodes["help"]},
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			parent, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range parent.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				return usageError{c.Root(), fmt.Sprintf("no help topic %q", strings.Join(args, " "))}
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
	}
}

// errReported means the message is already printed and e.code holds the exit code.
var errReported = errors.New("reported")

// usageError is a mistake on the command line: printed with the command's --help to read.
type usageError struct {
	cmd *cobra.Command
	msg string
}

func (u usageError) Error() string { return u.msg }

// runs adapts a subcommand body that returns an exit code to cobra: the code is kept for run.
func (e *env) runs(body func(ctx context.Context, args []string) int) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		e.code = body(c.Context(), args)
		return nil
	}
}

// usage reports a command-line mistake in one line naming the command's help; exit 2.
func (e *env) usage(c *cobra.Command, format string, a ...any) int {
	fmt.Fprintf(e.stderr, "mbguard: %s (see %s --help)\n", fmt.Sprintf(format, a...), c.CommandPath())
	return exitUsage
}

// flagMessage words a flag parsing error for people: pflag's bad-value errors carry Go's
// (`strconv.ParseInt: parsing "abc": invalid syntax`).
func flagMessage(err error) string {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err.Error()
	}
	f := iv.GetFlag()
	want := map[string]string{
		"int":      "a whole number",
		"bool":     "true or false",
		"duration": "a duration such as 150ms or 2s",
	}[f.Value.Type()]
	if want == "" {
		want = "a " + f.Value.Type()
	}
	return fmt.Sprintf("--%s %q: want %s", f.Name, iv.GetValue(), want)
}

// noArgs is cobra.NoArgs with a message that names the command's help.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{c, fmt.Sprintf("%s takes no arguments, got %q", c.CommandPath(), strings.Join(args, " "))}
	}
	return nil
}

// checkDir makes -C name a directory that exists, so a typo is not reported as "not inside a
// git repository".
func (e *env) checkDir() error {
	if e.dir == "" || e.dir == "." {
		return nil
	}
	fi, err := os.Stat(e.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-C %s: no such directory (pass a directory that exists)", e.dir)
	case err != nil:
		return fmt.Errorf("-C %s: %w", e.dir, err)
	case !fi.IsDir():
		return fmt.Errorf("-C %s: not a directory (pass a directory)", e.dir)
	}
	return nil
}

// repo locates the repository from -C.
func (e *env) repo() (repo.Repo, error) { return repo.Find(e.dir) }

// config loads the configuration for a repository (root may be empty outside one).
func (e *env) config(root string) (*config.Config, error) {
	return config.Load(config.Options{RepoRoot: root, Getenv: e.getenv, Sets: e.sets})
}

// fail prints an error once, as main's single voice, and returns the usage/internal exit code.
// fail reports err in one line: exit 1 when the request was refused (outcome.ErrRefused,
// lifecycle's refusals), exit 2 for anything else.
func (e *env) fail(err error) int {
	fmt.Fprintf(e.stderr, "mbguard: %v\n", err)
	if errors.Is(err, outcome.ErrRefused) || errors.Is(err, lifecycle.ErrRefused) {
		return exitFindings
	}
	return exitUsage
}

// logf logs for people when --verbose or MBGUARD_DEBUG is set; libraries stay silent.
func (e *env) logf(format string, a ...any) {
	if e.verbose {
		fmt.Fprintf(e.stderr, "mbguard: "+format+"\n", a...)
	}
}
