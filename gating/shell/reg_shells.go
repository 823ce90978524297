package shell

import "strings"

// The shell family: builtins that move the working directory, run code they are handed
// (bash -c, eval, source, trap, alias bodies) or change how later words are read.
func shellCommands() []command {
	return []command{
		{names: "cd pushd", family: "shells", does: "moves the working directory", handle: always(func(w *walker, c *invocation) {
			_, ops := parseArgs(c.args, flagSpec{})
			if len(ops) == 0 {
				c.e.known = false // $HOME
				return
			}
			c.e.cd(ops[0])
		})},
		{names: "popd", family: "shells", does: "moves the working directory somewhere unknown", handle: always(func(w *walker, c *invocation) {
			c.e.known = false
		})},
		{names: "bash sh zsh dash ksh mksh ash fish", family: "shells", does: "runs -c code, a script or stdin",
			flags: flagSpec{short: "oO", long: []string{"--rcfile", "--init-file"}, stopAtOperand: true}, handle: always((*walker).shell)},
		{names: "eval", family: "shells", does: "runs its arguments as code", handle: always(func(w *walker, c *invocation) {
			w.evalArgs(c.args, c.e, c.depth)
		})},
		{names: "trap", family: "shells", does: "runs its code later, in this shell", handle: always(func(w *walker, c *invocation) {
			_, ops := parseArgs(c.args, flagSpec{})
			if len(ops) > 1 && ops[0].s != "-" {
				w.codeArg(ops[0], c.e, c.depth)
			}
		})},
		{names: "source .", family: "shells", does: "runs a file in this shell", handle: always(func(w *walker, c *invocation) {
			w.source(c.args, c.e, c.depth, c.in)
		})},
		{names: "mapfile readarray", family: "shells", does: "runs its -C callback as a command",
			flags: flagSpec{short: "dnOsuCct"}, handle: always(func(w *walker, c *invocation) {
				opts, _ := parseArgs(c.args, c.spec.flags)
				if cb, ok := optValue(opts, "-C"); ok {
					w.codeArg(cb, c.e, c.depth)
				}
			})},
		{names: "alias", family: "shells", does: "defines code: its body is judged", handle: always(func(w *walker, c *invocation) {
			// Non-interactive bash expands aliases only after shopt -s
			// expand_aliases, but an alias is code all the same: judge its body.
			for _, a := range c.args {
				if _, body, ok := strings.Cut(a.s, "="); ok {
					w.codeArg(arg{s: body, exact: a.exact}, c.e, c.depth)
				}
			}
		})},
		{names: "shopt", family: "shells", does: "sets nocaseglob for later globs", handle: always(func(w *walker, c *invocation) {
			opts, ops := parseArgs(c.args, flagSpec{})
			if hasOpt(opts, "-s") {
				for _, o := range ops {
					if o.s == "nocaseglob" {
						c.e.nocase = true
					}
				}
			}
		})},
		{names: "set", family: "shells", does: "assigns the positional parameters", handle: always(func(w *walker, c *invocation) {
			// set -- a b (or set a b) assigns the positional parameters $1, $2 …
			ops := c.args
			if len(ops) > 0 && ops[0].exact && ops[0].s == "--" {
				ops = ops[1:]
			} else if len(ops) > 0 && ops[0].exact && strings.HasPrefix(ops[0].s, "-") {
				return
			}
			for i, a := range ops {
				a.pos, a.end = 0, 0
				c.e.vars = bind(c.e.vars, itoa(i+1), a)
			}
		})},
	}
}
