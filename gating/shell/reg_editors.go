package shell

import "strings"

// The editor family: interactive editors write the files they open; stream editors (sed,
// awk, perl -i, yq -i) write only in place; sqlite3 writes its database and its
// dot-commands' files.
func editorCommands() []command {
	return []command{
		{names: "vi vim nvim nano emacs ed ex pico micro hx kak sudoedit", family: "editors", does: "writes the files it opens; editor commands (-c, ex -s, a script on stdin) any file",
			flags: flagSpec{short: "cSuiTwW", long: []string{"--cmd", "--eval", "--execute", "--load", "-l"}}, handle: always(editor)},
		{names: "sed", family: "editors", does: "reads its operands; -i writes them; w commands write their files",
			flags: flagSpec{short: "efl", optional: "i", long: []string{"--expression", "--file", "--line-length"}}, handle: always((*walker).sed)},
		{names: "awk gawk mawk nawk", family: "editors", does: "reads its operands; -i inplace writes them; the program may redirect",
			flags: flagSpec{short: "fvFEil", long: []string{"--file", "--assign", "--field-separator", "--include", "--load", "--exec"}}, handle: always((*walker).awk)},
		{names: "perl ruby", family: "editors", does: "-i writes its operands; otherwise judged as an interpreter", handle: always(func(w *walker, c *invocation) {
			w.inplaceInterp(c.name, c.args, c.e, c.in)
		})},
		{names: "yq", family: "editors", does: "reads its files; -i writes them",
			flags: flagSpec{short: "pIo", long: []string{"--input-format", "--output-format", "--indent"}}, handle: always(func(w *walker, c *invocation) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				if hasOpt(opts, "-i", "--inplace") && len(ops) > 1 {
					w.writeAll(ops[1:], "yq -i", c.e)
				} else if len(ops) > 1 {
					w.readAll(ops[1:], c.name, c.e)
				}
			})},
		{names: "sqlite3 sqlite", family: "editors", does: "writes its database and the files of .output/.save; .shell runs commands",
			flags: flagSpec{long: []string{"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs", "-maxsize", "-mmap", "-pagecache", "-lookaside", "-heap"}}, handle: always((*walker).sqlite)},
	}
}

// editor judges an interactive editor: the files it opens are written, and editor
// commands (vim -c, ex -s, a script on stdin) can write any file.
func editor(w *walker, c *invocation) {
	name, in, e := c.name, c.in, c.e
	opts, ops := parseArgs(c.args, c.spec.flags)
	w.res.Write = true
	cmds := in.hdoc != nil || in.piped || in.file || name == "ed" || name == "ex" && hasOpt(opts, "-s")
	for _, o := range opts {
		switch o.name {
		case "-c", "--cmd", "-S", "--eval", "--execute", "--load", "-l", "-s", "-w", "-W":
			cmds = true
			if o.has {
				w.namedArg(name, arg{s: o.value.s, exact: o.value.exact, pat: o.value.pat}, e)
			}
		}
	}
	for _, a := range ops {
		if strings.HasPrefix(a.s, "+") {
			// +cmd runs an editor command; +N and +/pattern only move the cursor
			cmds = cmds || len(a.s) > 1 && !isDigits(a.s[1:]) && a.s[1] != '/' && a.s[1] != '?'
			continue
		}
		w.writeArg(a, "editor", e)
	}
	if cmds {
		// Editor commands (vim -c, ex -s, a script on stdin) can write any file.
		w.unknownWrite()
	}
}
