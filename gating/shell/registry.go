package shell

import (
	"path"
	"strings"
	"sync"
)

// This file is the command registry: everything the classifier knows about a command by
// its name is one entry here, filled from one file per family (reg_*.go; pkgmanagers.go,
// formatters.go, readers.go and interp.go register their tables). A name no entry knows is
// judged by the paths it names (unknownCommand).

// invocation is one run of a command as its entry's handler sees it.
type invocation struct {
	name  string // the program's name, without its directory
	args  []arg  // the words after the name
	e     *env
	depth int
	in    *stdin
	spec  *command // the entry being run, for handlers that read their data from it
}

// A handler judges one run. It reports false when the line is not one its entry knows
// (uv without run, go without a package subcommand): the name's next entry is then tried,
// and when none is left the command is judged like an unknown one.
type handler func(w *walker, c *invocation) bool

// A prefix runs its arguments as a command (sudo, env, nohup, xargs …). It judges its
// own options and returns the command line it runs (nil when nothing more is to be
// judged) and the directory that runs in.
type prefix func(w *walker, c *invocation) (next []arg, e *env)

// command is the registry's entry for one command or a family of commands.
type command struct {
	// names are the names it is run by, separated by spaces.
	names string
	// family is the file it comes from: coreutils, archivers, vcs, editors, interpreters,
	// shells, network, build, wrappers, package managers, formatters, readers, harmless.
	family string
	// does says in a few words what it reads and writes.
	does string
	// flags are the options that take a value (a target, a mode, a size), for the
	// handlers that parse the line with the entry's own spec.
	flags flagSpec
	// at most one of prefix and handle is set; neither when the entry only runs files
	prefix prefix
	handle handler
	// weak marks an entry that knows one subcommand of a tool mbguard otherwise knows
	// nothing about (docker exec, conda run): a wrapper looking for the command it runs
	// does not stop at its name.
	weak bool
	// runs records the files it runs, which a caller reads before judging the line
	// (make's Makefile, a package.json script, git apply's patches).
	runs func(w *walker, c *invocation)
}

// families lists the registry's entries in the order they are tried where a name has
// several: the first entry whose handler knows the line judges it. Commands handled
// whole come before the tables, so `perl -i` is an in-place edit before it is an
// interpreter, and `set` sets parameters before it is harmless.
func families() [][]command {
	return [][]command{
		shellCommands(),
		coreutilCommands(),
		archiverCommands(),
		vcsCommands(),
		buildCommands(),
		editorCommands(),
		networkCommands(),
		runnerCommands(),
		wrapperCommands(),
		pkgManagerCommands(),
		readerCommands(),
		interpreterCommands(),
		formatterCommands(),
		harmlessCommands(),
	}
}

var (
	registryOnce sync.Once
	registry     map[string][]*command
)

// registered returns the entries for exactly name, in the order they are tried. The
// registry is built on first use, not at start: most hook calls classify no command.
func registered(name string) []*command {
	registryOnce.Do(func() {
		registry = make(map[string][]*command, 512)
		for _, fam := range families() {
			for i := range fam {
				c := &fam[i]
				for _, n := range strings.Fields(c.names) {
					registry[n] = append(registry[n], c)
				}
			}
		}
	})
	return registry[name]
}

// lookup returns the entries that judge a command named name. Versioned names
// (python3.12, pip3.11, php8.2) fold onto their family's entry; only that family's
// entry judges them.
func lookup(name string) []*command {
	if cs := registered(name); len(cs) > 0 {
		return cs
	}
	if n, ok := windowsProgram(name); ok {
		return lookup(n)
	}
	if n := pkgManagerName(name); n != "" && n != name {
		return ofFamily(registered(n), "package managers")
	}
	if n := interpName(name); n != name {
		return ofFamily(registered(n), "interpreters")
	}
	return nil
}

// progBase is the file name of a command word, whichever separator its path uses
// (C:\tools\git.exe from PowerShell or cmd).
func progBase(s string) string { return path.Base(strings.ReplaceAll(s, `\`, "/")) }

// windowsProgram is a program named with a Windows extension (git.exe, MBGUARD.EXE, npm's
// mbguard.cmd shim) by the name the registry knows it under: Windows runs it whatever the
// case and with or without the extension, so `mbguard.exe uninstall` is `mbguard uninstall`.
func windowsProgram(name string) (string, bool) {
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		if len(name) > len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext) {
			return strings.ToLower(name[:len(name)-len(ext)]), true
		}
	}
	return "", false
}

func ofFamily(cs []*command, family string) []*command {
	var out []*command
	for _, c := range cs {
		if c.family == family {
			out = append(out, c)
		}
	}
	return out
}

// knownCommand reports a command name the classifier has a rule for: an entry that
// judges it, other than a weak one.
func knownCommand(name string) bool {
	for _, c := range lookup(name) {
		if (c.handle != nil || c.prefix != nil) && !c.weak {
			return true
		}
	}
	return false
}

// unwrap strips a command prefix that runs its arguments as a command (sudo,
// env, nohup …). ok is false when name is not such a prefix.
func (w *walker) unwrap(name string, rest []arg, ep **env, depth int, in *stdin) (next []arg, ok bool) {
	for _, c := range lookup(name) {
		if c.prefix != nil {
			next, *ep = c.prefix(w, &invocation{name: name, args: rest, e: *ep, depth: depth, in: in, spec: c})
			return next, true
		}
	}
	return nil, false
}

// runsOf records the files name runs that no other handler records: an executable named
// by its path, and what its entry says it runs (make's Makefile, a package's script).
func (w *walker) runsOf(path0 string, name string, args []arg, e *env) {
	if strings.Contains(path0, "/") {
		w.addRun(arg{s: path0, exact: true}, "sh", "", e)
		return
	}
	for _, c := range lookup(name) {
		if c.runs != nil {
			c.runs(w, &invocation{name: name, args: args, e: e, spec: c})
			return
		}
	}
}

// command classifies a command whose name is no longer a prefix: the first of its
// entries that knows the line judges it.
func (w *walker) command(name string, args []arg, e *env, depth int, in *stdin) {
	for _, c := range lookup(name) {
		if c.handle != nil && c.handle(w, &invocation{name: name, args: args, e: e, depth: depth, in: in, spec: c}) {
			return
		}
	}
	w.unknownCommand(name, args, e, depth)
}

// always turns a handler that judges every line it is handed into a registry handler.
func always(f func(w *walker, c *invocation)) handler {
	return func(w *walker, c *invocation) bool {
		f(w, c)
		return true
	}
}

// writeOperands: the operands are written (rm, touch, tee …); c.spec.flags take values.
func writeOperands(w *walker, c *invocation) {
	_, ops := parseArgs(c.args, c.spec.flags)
	w.writeAll(ops, c.name, c.e)
}
