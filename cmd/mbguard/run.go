package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
)

// Exit codes, stated in --help.
const (
	exitOK       = 0 // success, nothing found, write allowed
	exitFindings = 1 // findings, or a decision that blocks
	exitUsage    = 2 // usage or internal error
)

// env is what every subcommand may touch: no globals, so tests run the CLI in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	dir            string   // -C: where to start looking for the repository
	sets           []string // --set key=value
	verbose        bool
}

// command is one subcommand: its flags are bound to locals in its constructor.
type command struct {
	name  string
	short string
	flags *flag.FlagSet
	// run receives the arguments left after flag parsing.
	run func(ctx context.Context, args []string) int
}

// commands lists the constructors; one per subcommand, no init() registration.
func commands(e *env) []*command {
	return []*command{
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
	}
}

const usageHead = `mbguard keeps AI coding agents honest about memory-bank/.

Usage: mbguard [-C dir] [--set key=value]... <command> [flags]

Commands:
`

const usageTail = `
Global flags:
  -C dir             run as if started in dir
  --set key=value    override a configuration key (repeatable; see mbguard config)
  -v, --verbose      log to stderr (also MBGUARD_DEBUG=1)

Configuration (later wins): defaults, ~/.config/mbguard/config.yaml, .mbguard.yaml in the
repository, environment (MEMORY_BANK_GUARD_MODE, MEMORY_BANK_DOC_FIRST_MODE,
MEMORY_BANK_MAX_CHARS, then MBGUARD_<KEY>), flags.

Exit codes: 0 ok, 1 findings or blocked, 2 usage or internal error.
Run 'mbguard <command> --help' for a command's flags.
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, dir: "."}
	e.verbose = getenv("MBGUARD_DEBUG") != "" && getenv("MBGUARD_DEBUG") != "0"
	// global flags come before the command name
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		switch {
		case a == "-C" || a == "--set":
			if len(args) < 2 {
				fmt.Fprintf(stderr, "mbguard: %s needs a value (see mbguard --help)\n", a)
				return exitUsage
			}
			if a == "-C" {
				e.dir = args[1]
			} else {
				e.sets = append(e.sets, args[1])
			}
			args = args[2:]
		case strings.HasPrefix(a, "--set="):
			e.sets = append(e.sets, strings.TrimPrefix(a, "--set="))
			args = args[1:]
		case a == "-v" || a == "--verbose":
			e.verbose = true
			args = args[1:]
		case a == "-h" || a == "--help" || a == "-help":
			printUsage(e)
			return exitOK
		case a == "--version":
			fmt.Fprintln(stdout, "mbguard", versionString())
			return exitOK
		default:
			fmt.Fprintf(stderr, "mbguard: unknown flag %s (see mbguard --help)\n", a)
			return exitUsage
		}
	}
	if len(args) == 0 {
		printUsage(e)
		return exitUsage
	}
	for _, c := range commands(e) {
		if c.name != args[0] {
			continue
		}
		c.flags.SetOutput(stderr)
		if err := c.flags.Parse(args[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return exitOK
			}
			return exitUsage
		}
		return c.run(ctx, c.flags.Args())
	}
	fmt.Fprintf(stderr, "mbguard: unknown command %q (see mbguard --help)\n", args[0])
	return exitUsage
}

func printUsage(e *env) {
	fmt.Fprint(e.stdout, usageHead)
	cs := commands(e)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(e.stdout, "  %-10s %s\n", c.name, c.short)
	}
	fmt.Fprint(e.stdout, usageTail)
}

// newFlags makes a command's flag set with a usage line that ends in the exit codes.
func newFlags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: mbguard %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\nExit codes: 0 ok, 1 findings or blocked, 2 usage or internal error.\n")
	}
	return fs
}

// repo locates the repository from -C.
func (e *env) repo() (repo.Repo, error) { return repo.Find(e.dir) }

// config loads the configuration for a repository (root may be empty outside one).
func (e *env) config(root string) (*config.Config, error) {
	return config.Load(config.Options{RepoRoot: root, Getenv: e.getenv, Sets: e.sets})
}

// fail prints an error once, as main's single voice, and returns the usage/internal exit code.
func (e *env) fail(err error) int {
	fmt.Fprintf(e.stderr, "mbguard: %v\n", err)
	return exitUsage
}

// logf logs for people when --verbose or MBGUARD_DEBUG is set; libraries stay silent.
func (e *env) logf(format string, a ...any) {
	if e.verbose {
		fmt.Fprintf(e.stderr, "mbguard: "+format+"\n", a...)
	}
}
