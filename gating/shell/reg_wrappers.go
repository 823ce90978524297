package shell

import "strings"

// The wrapper family: prefixes that run the rest of the line as a command (sudo, env,
// nohup, xargs …), the wrappers table (flock, strace, npx …) and the run subcommands of
// tool managers (uv run, poetry run …).
func prefixCommands() []command {
	return []command{
		{names: "sudo doas", family: "wrappers", does: "runs a command; -e edits files, -s reads a shell from stdin",
			flags: flagSpec{short: "CDghpRrTtUu", long: []string{"--chdir", "--group", "--user", "--prompt", "--host", "--role", "--type", "--other-user", "--close-from", "--command-timeout", "--chroot"}, stopAtOperand: true},
			prefix: func(w *walker, c *invocation) ([]arg, *env) {
				e, out := c.e, c.e
				opts, ops := parseArgs(c.args, c.spec.flags)
				if d, ok := optValue(opts, "-D", "--chdir"); ok {
					out = chdir(e, d)
				}
				if hasOpt(opts, "-e", "--edit") {
					w.writeAll(ops, "sudoedit", e)
					return nil, out
				}
				if len(ops) == 0 && hasOpt(opts, "-s", "-i", "--shell", "--login") {
					// sudo -s with no command runs a shell reading stdin
					w.stdinCode(c.in, func(code string) { w.reparse(code, e, c.depth) })
					return nil, out
				}
				return ops, out
			}},
		{names: "env", family: "wrappers", does: "runs a command with variables set, -C in a directory, -S split",
			flags: flagSpec{short: "uCS", long: []string{"--unset", "--chdir", "--split-string"}, stopAtOperand: true},
			prefix: func(w *walker, c *invocation) ([]arg, *env) {
				out := c.e
				opts, ops := parseArgs(c.args, c.spec.flags)
				if d, ok := optValue(opts, "-C", "--chdir"); ok {
					out = chdir(c.e, d)
				}
				for len(ops) > 0 && ops[0].exact && strings.IndexByte(ops[0].s, '=') > 0 {
					ops = ops[1:]
				}
				if s, ok := optValue(opts, "-S", "--split-string"); ok {
					if !s.exact {
						w.unknownWrite()
						return nil, out
					}
					var split []arg
					for _, f := range strings.Fields(s.s) {
						split = append(split, arg{s: f, exact: true})
					}
					ops = append(split, ops...)
				}
				return ops, out
			}},
		{names: "nice", family: "wrappers", does: "runs a command",
			flags: flagSpec{short: "n", long: []string{"--adjustment"}, stopAtOperand: true}, prefix: runsOperands},
		{names: "ionice", family: "wrappers", does: "runs a command", flags: flagSpec{short: "cnp", stopAtOperand: true}, prefix: runsOperands},
		{names: "nohup builtin unbuffer caffeinate chronic setsid noglob", family: "wrappers", does: "runs a command",
			flags: flagSpec{stopAtOperand: true}, prefix: runsOperands},
		{names: "exec", family: "wrappers", does: "runs a command", flags: flagSpec{short: "a", stopAtOperand: true}, prefix: runsOperands},
		{names: "stdbuf", family: "wrappers", does: "runs a command",
			flags: flagSpec{short: "ioe", long: []string{"--input", "--output", "--error"}, stopAtOperand: true}, prefix: runsOperands},
		{names: "busybox", family: "wrappers", does: "runs the applet it names", prefix: func(w *walker, c *invocation) ([]arg, *env) {
			return c.args, c.e
		}},
		{names: "time", family: "wrappers", does: "runs a command; -o writes a file",
			flags: flagSpec{short: "fo", long: []string{"--format", "--output"}, stopAtOperand: true},
			prefix: func(w *walker, c *invocation) ([]arg, *env) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				if o, ok := optValue(opts, "-o", "--output"); ok {
					w.writeArg(o, "time -o", c.e)
				}
				return ops, c.e
			}},
		{names: "command", family: "wrappers", does: "runs a command; -v only looks it up", flags: flagSpec{stopAtOperand: true},
			prefix: func(w *walker, c *invocation) ([]arg, *env) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				if hasOpt(opts, "-v", "-V") {
					return nil, c.e // a lookup, nothing runs
				}
				return ops, c.e
			}},
		{names: "timeout", family: "wrappers", does: "runs a command after its duration",
			flags: flagSpec{short: "sk", long: []string{"--signal", "--kill-after"}, stopAtOperand: true},
			prefix: func(w *walker, c *invocation) ([]arg, *env) {
				_, ops := parseArgs(c.args, c.spec.flags)
				if len(ops) > 0 {
					ops = ops[1:] // the duration
				}
				return ops, c.e
			}},
		{names: "xargs", family: "wrappers", does: "runs a command on names from stdin: where it writes is unknown",
			flags: flagSpec{short: "aEdILnPs", optional: "iel", long: []string{"--arg-file", "--delimiter", "--max-args", "--max-lines", "--max-procs", "--max-chars", "--replace", "--eof", "--process-slot-var"}, stopAtOperand: true},
			prefix: func(w *walker, c *invocation) ([]arg, *env) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				if f, ok := optValue(opts, "-a", "--arg-file"); ok {
					// the names come from this file, and echo prints them
					w.readArg(f, "xargs -a", c.e)
				}
				if len(ops) == 0 {
					return nil, c.e // runs echo
				}
				// The files come from stdin: if the command writes, where is unknown.
				was := w.res.Write
				w.res.Write = false
				w.call(ops, c.e, c.depth, &stdin{})
				if _, reads := readers()[ops[0].s]; reads && ops[0].exact {
					// cat, head, grep … on names from stdin (find . | xargs cat): any file below
					w.search(nil, "xargs "+ops[0].s, false, c.e)
				}
				if w.res.Write {
					w.res.Unknown = true
				}
				w.res.Write = w.res.Write || was
				return nil, c.e
			}},
		{names: "watch", family: "wrappers", does: "runs its arguments as code, -x as a command",
			flags: flagSpec{short: "nd", long: []string{"--interval", "--differences"}, stopAtOperand: true},
			prefix: func(w *walker, c *invocation) ([]arg, *env) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				if hasOpt(opts, "-x", "--exec") {
					return ops, c.e
				}
				w.evalArgs(ops, c.e, c.depth)
				return nil, c.e
			}},
	}
}

// runsOperands is the prefix that runs its first operand as a command (nohup CMD …).
func runsOperands(w *walker, c *invocation) ([]arg, *env) {
	_, ops := parseArgs(c.args, c.spec.flags)
	return ops, c.e
}

// runnerCommands are the tool managers whose run subcommand runs the rest of the line.
func runnerCommands() []command {
	return []command{{names: mapKeys(wrapperRunners), family: "wrappers", does: "its run subcommand runs a command", weak: true,
		handle: func(w *walker, c *invocation) bool { return w.runner(c.name, c.args, c.e, c.depth, c.in) }}}
}

// wrapperCommands are the wrappers table's commands, and the prefixes.
func wrapperCommands() []command {
	return append(prefixCommands(), command{names: mapKeys(wrappers()), family: "wrappers", does: "runs a command found in its arguments",
		handle: func(w *walker, c *invocation) bool { return w.wrapper(c.name, c.args, c.e, c.depth, c.in) }})
}

// mapKeys returns a table's names as a names list.
func mapKeys[V any](m map[string]V) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return strings.Join(out, " ")
}
