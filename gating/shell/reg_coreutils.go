package shell

import (
	"strings"
	"sync"
)

// The coreutils family: commands that write the files they are handed (rm, touch, cp,
// chmod …), that read them and write only through an output option (sort -o, tree -o,
// pandoc -o), and the commands that only print, compute or ask.
func coreutilCommands() []command {
	return []command{
		{names: "rm rmdir unlink trash trash-put srm", family: "coreutils", does: "writes (removes) its operands", handle: always(writeOperands)},
		{names: "shred", family: "coreutils", does: "writes its operands",
			flags: flagSpec{short: "ns", long: []string{"--iterations", "--size"}}, handle: always(writeOperands)},
		{names: "touch", family: "coreutils", does: "writes its operands",
			flags: flagSpec{short: "dtr", long: []string{"--date", "--reference", "--time"}}, handle: always(writeOperands)},
		{names: "mkdir mkfifo", family: "coreutils", does: "writes its operands",
			flags: flagSpec{short: "mZ", long: []string{"--mode"}}, handle: always(writeOperands)},
		{names: "truncate", family: "coreutils", does: "writes its operands",
			flags: flagSpec{short: "sr", long: []string{"--size", "--reference"}}, handle: always(writeOperands)},
		{names: "tee sponge", family: "coreutils", does: "writes its operands", handle: always(writeOperands)},
		{names: "fallocate", family: "coreutils", does: "writes its operands",
			flags: flagSpec{short: "lo", long: []string{"--length", "--offset"}}, handle: always(writeOperands)},
		{names: "mknod", family: "coreutils", does: "writes its first operand",
			flags: flagSpec{short: "mZ", long: []string{"--mode"}}, handle: always(func(w *walker, c *invocation) {
				_, ops := parseArgs(c.args, c.spec.flags)
				if len(ops) > 0 {
					w.writeArg(ops[0], c.name, c.e)
				}
			})},
		{names: "chmod chown chgrp", family: "coreutils", does: "writes the files after the mode or owner", handle: always(func(w *walker, c *invocation) {
			w.chmod(c.name, c.args, c.e)
		})},
		{names: "cp mv ln link", family: "coreutils", does: "writes the destination; mv and hard links their sources too",
			flags: flagSpec{short: "tS", long: []string{"--target-directory", "--suffix"}}, handle: always((*walker).copy)},
		{names: "install", family: "coreutils", does: "writes the destination, -d its operands",
			flags: flagSpec{short: "tmogS", long: []string{"--target-directory", "--mode", "--owner", "--group", "--suffix"}}, handle: always((*walker).copy)},
		{names: "dd", family: "coreutils", does: "writes of=FILE", handle: always(func(w *walker, c *invocation) {
			w.res.Write = true
			for _, a := range c.args {
				if strings.HasPrefix(a.s, "of=") {
					w.writeArg(arg{s: a.s[3:], exact: a.exact}, "dd of=", c.e)
				}
			}
		})},
		{names: "split csplit", family: "coreutils", does: "writes files named by a prefix: unknown", handle: always(func(w *walker, c *invocation) {
			w.unknownWrite()
		})},
		{names: "mktemp", family: "coreutils", does: "writes its template, below -p DIR",
			flags: flagSpec{short: "p", long: []string{"--tmpdir", "--suffix"}}, handle: always(func(w *walker, c *invocation) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				w.res.Write = true
				dir := c.e
				if d, ok := optValue(opts, "-p", "--tmpdir"); ok {
					dir = chdir(c.e, d)
				}
				w.writeAll(ops, c.name, dir)
			})},
		{names: "sort", family: "coreutils", does: "reads its operands, writes -o FILE",
			flags: flagSpec{short: "ktSTo", long: []string{"--key", "--field-separator", "--buffer-size", "--temporary-directory", "--output"}}, handle: always(func(w *walker, c *invocation) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				if o, ok := optValue(opts, "-o", "--output"); ok {
					w.writeArg(o, "sort -o", c.e)
				}
				w.readAll(ops, c.name, c.e)
			})},
		{names: "uniq xxd", family: "coreutils", does: "reads its first operand, writes its second",
			flags: flagSpec{short: "fswclgo", long: []string{"--skip-fields", "--skip-chars", "--check-chars"}}, handle: always(func(w *walker, c *invocation) {
				_, ops := parseArgs(c.args, c.spec.flags)
				if len(ops) > 0 {
					w.readArg(ops[0], c.name, c.e)
				}
				if len(ops) > 1 {
					w.writeArg(ops[1], c.name, c.e)
				}
			})},
		{names: "tree", family: "coreutils", does: "reads its operands, writes -o FILE",
			flags: flagSpec{short: "LIPo", long: []string{"--filelimit", "--timefmt", "--sort", "--charset"}}, handle: always(func(w *walker, c *invocation) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				if o, ok := optValue(opts, "-o"); ok {
					w.writeArg(o, "tree -o", c.e)
				}
				w.readAll(ops, c.name, c.e)
			})},
		{names: "fd fdfind", family: "coreutils", does: "reads, unless -x runs a command on what it finds",
			flags: flagSpec{short: "edtEScjx", long: []string{"--extension", "--max-depth", "--type", "--exclude", "--size", "--changed-within", "--changed-before", "--threads", "--exec", "--exec-batch", "--base-directory", "--search-path", "--owner", "--format", "--max-results"}},
			handle: always(func(w *walker, c *invocation) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				if hasOpt(opts, "-x", "-X", "--exec", "--exec-batch") {
					w.unknownWrite()
					w.namedArgs(c.name, ops, c.e)
					return
				}
				if len(ops) > 1 {
					w.readAll(ops[1:], c.name, c.e)
				}
			})},
		{names: "find", family: "coreutils", does: "reads its roots; -delete and writing -exec write the tree, -fprint a file", handle: always(func(w *walker, c *invocation) {
			w.find(c.args, c.e, c.depth)
		})},
		{names: "iconv xmllint pandoc openssl gpg", family: "coreutils", does: "reads its operands, writes -o/--output FILE", handle: always(func(w *walker, c *invocation) {
			w.outputFlag(c.name, c.args, c.e)
		})},
	}
}

// harmless are the commands that only print, compute or ask, whatever files they name.
var harmless = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"echo": true, "printf": true, "true": true, "false": true, ":": true, "basename": true, "dirname": true,
		"pwd": true, "which": true, "type": true, "whoami": true, "id": true, "date": true, "uname": true,
		"hostname": true, "sleep": true, "wait": true, "exit": true, "return": true, "set": true, "unset": true,
		"shift": true, "read": true, "let": true, "local": true, "declare": true, "export": true, "typeset": true,
		"readonly": true, "shopt": true, "hash": true, "jobs": true, "kill": true, "ps": true, "df": true,
		"free": true, "uptime": true, "env": true, "printenv": true, "seq": true, "expr": true, "bc": true,
		"[": true, "[[": true, "test": true, "getopts": true, "umask": true, "ulimit": true, "history": true,
		"tokei": true, "cloc": true, "scc": true, "glow": true, "mdcat": true, "vale": true,
		"lychee": true, "tput": true, "clear": true, "open": true, "xdg-open": true, "code": true, "cursor": true,
		"break": true, "continue": true, "help": true, "man": true, "info": true, "whatis": true, "apropos": true,
		// they read the files they are handed (gh --body-file, delta a b) or only
		// copy text to the clipboard
		"gh": true, "glab": true, "lsd": true, "delta": true, "difft": true, "colordiff": true, "rga": true,
		"fzf": true, "pbcopy": true, "xclip": true, "wl-copy": true, "du": true, "dust": true, "ncdu": true,
		// prose and link checkers that only report
		"cspell": true, "mdl": true, "proselint": true, "alex": true, "write-good": true, "markdown-link-check": true,
		"aspell-list": true, "hunspell": true,
	}
})

// harmlessCommands registers the commands that write nothing they are handed.
func harmlessCommands() []command {
	return []command{{names: mapKeys(harmless()), family: "harmless", does: "writes nothing it is handed",
		handle: func(w *walker, c *invocation) bool { return true }},
		{names: "mbguard mbguard-hook", family: "harmless", does: "writes nothing it is handed; the person's commands (uninstall, quarantine drop|restore …) are named",
			handle: always(func(w *walker, c *invocation) {
				if op := personCommand(c.args); op != "" {
					w.res.Person = append(w.res.Person, op)
				}
			})}}
}
