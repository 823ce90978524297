package shell

import (
	"path"
	"strings"
)

// call classifies one simple command after its redirects were handled.
func (w *walker) call(args []arg, e *env, depth int, in *stdin) {
	for len(args) > 0 {
		if !args[0].exact {
			// `$CMD file` or `"$(which rm)" x`: the program is unknown.
			w.unknownWrite()
			w.namedArgs("a command", args[1:], e)
			return
		}
		name := path.Base(args[0].s)
		rest := args[1:]
		next, ok := w.unwrap(name, rest, &e, depth, in)
		if !ok {
			w.runsOf(args[0].s, name, rest, e)
			w.command(name, rest, e, depth, in)
			return
		}
		args = next
	}
}

// unwrap strips a command prefix that runs its arguments as a command (sudo,
// env, nohup …). ok is false when name is not such a prefix.
func (w *walker) unwrap(name string, rest []arg, ep **env, depth int, in *stdin) (next []arg, ok bool) {
	e := *ep
	switch name {
	case "sudo", "doas":
		opts, ops := parseArgs(rest, flagSpec{short: "CDghpRrTtUu", long: []string{"--chdir", "--group", "--user", "--prompt", "--host", "--role", "--type", "--other-user", "--close-from", "--command-timeout", "--chroot"}, stopAtOperand: true})
		if d, ok := optValue(opts, "-D", "--chdir"); ok {
			*ep = chdir(e, d)
		}
		if hasOpt(opts, "-e", "--edit") {
			w.writeAll(ops, "sudoedit", e)
			return nil, true
		}
		if len(ops) == 0 && hasOpt(opts, "-s", "-i", "--shell", "--login") {
			// sudo -s with no command runs a shell reading stdin
			w.stdinCode(in, func(code string) { w.reparse(code, e, depth) })
			return nil, true
		}
		return ops, true
	case "env":
		opts, ops := parseArgs(rest, flagSpec{short: "uCS", long: []string{"--unset", "--chdir", "--split-string"}, stopAtOperand: true})
		if d, ok := optValue(opts, "-C", "--chdir"); ok {
			*ep = chdir(e, d)
		}
		for len(ops) > 0 && ops[0].exact && strings.IndexByte(ops[0].s, '=') > 0 {
			ops = ops[1:]
		}
		if s, ok := optValue(opts, "-S", "--split-string"); ok {
			if !s.exact {
				w.unknownWrite()
				return nil, true
			}
			var split []arg
			for _, f := range strings.Fields(s.s) {
				split = append(split, arg{s: f, exact: true})
			}
			ops = append(split, ops...)
		}
		return ops, true
	case "nice":
		_, ops := parseArgs(rest, flagSpec{short: "n", long: []string{"--adjustment"}, stopAtOperand: true})
		return ops, true
	case "ionice":
		_, ops := parseArgs(rest, flagSpec{short: "cnp", stopAtOperand: true})
		return ops, true
	case "nohup", "builtin", "unbuffer", "caffeinate", "chronic", "setsid", "noglob":
		_, ops := parseArgs(rest, flagSpec{stopAtOperand: true})
		return ops, true
	case "time":
		opts, ops := parseArgs(rest, flagSpec{short: "fo", long: []string{"--format", "--output"}, stopAtOperand: true})
		if o, ok := optValue(opts, "-o", "--output"); ok {
			w.writeArg(o, "time -o", e)
		}
		return ops, true
	case "command":
		opts, ops := parseArgs(rest, flagSpec{stopAtOperand: true})
		if hasOpt(opts, "-v", "-V") {
			return nil, true // a lookup, nothing runs
		}
		return ops, true
	case "exec":
		_, ops := parseArgs(rest, flagSpec{short: "a", stopAtOperand: true})
		return ops, true
	case "timeout":
		_, ops := parseArgs(rest, flagSpec{short: "sk", long: []string{"--signal", "--kill-after"}, stopAtOperand: true})
		if len(ops) > 0 {
			ops = ops[1:] // the duration
		}
		return ops, true
	case "stdbuf":
		_, ops := parseArgs(rest, flagSpec{short: "ioe", long: []string{"--input", "--output", "--error"}, stopAtOperand: true})
		return ops, true
	case "busybox":
		return rest, true
	case "xargs":
		_, ops := parseArgs(rest, flagSpec{short: "aEdILnPs", optional: "iel", long: []string{"--arg-file", "--delimiter", "--max-args", "--max-lines", "--max-procs", "--max-chars", "--replace", "--eof", "--process-slot-var"}, stopAtOperand: true})
		if len(ops) == 0 {
			return nil, true // runs echo
		}
		// The files come from stdin: if the command writes, where is unknown.
		was := w.res.Write
		w.res.Write = false
		w.call(ops, e, depth, &stdin{})
		if w.res.Write {
			w.res.Unknown = true
		}
		w.res.Write = w.res.Write || was
		return nil, true
	case "watch":
		opts, ops := parseArgs(rest, flagSpec{short: "nd", long: []string{"--interval", "--differences"}, stopAtOperand: true})
		if hasOpt(opts, "-x", "--exec") {
			return ops, true
		}
		w.evalArgs(ops, e, depth)
		return nil, true
	}
	return nil, false
}

// chdir returns a copy of e moved to d, as cd, sudo -D or git -C do.
func chdir(e *env, d arg) *env {
	n := *e
	n.cd(d)
	return &n
}

func (e *env) cd(d arg) {
	if !d.exact || d.s == "" || d.s == "-" || d.s[0] == '~' {
		e.known = false
		return
	}
	if e.cdpath && d.s[0] != '/' && d.s != "." && d.s != ".." && !strings.HasPrefix(d.s, "./") && !strings.HasPrefix(d.s, "../") {
		// With CDPATH set, cd NAME goes to the first CDPATH entry holding NAME.
		e.known = false
		return
	}
	if d.s[0] == '/' {
		e.dir, e.known = path.Clean(d.s), true
		return
	}
	e.dir = cleanDir(path.Join(e.dir, d.s))
}

// evalArgs classifies arguments joined into one string of code (eval, watch).
func (w *walker) evalArgs(args []arg, e *env, depth int) {
	var b strings.Builder
	for i, a := range args {
		if !a.exact {
			w.unknownWrite()
			return
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.s)
	}
	w.reparse(b.String(), e, depth)
}

func (w *walker) writeAll(ops []arg, op string, e *env) {
	w.res.Write = true
	for _, a := range ops {
		w.writeArg(a, op, e)
	}
}

func (w *walker) readAll(ops []arg, op string, e *env) {
	for _, a := range ops {
		w.readArg(a, op, e)
	}
}

// command classifies a command whose name is no longer a wrapper.
func (w *walker) command(name string, args []arg, e *env, depth int, in *stdin) {
	switch name {
	case "cd", "pushd":
		_, ops := parseArgs(args, flagSpec{})
		if len(ops) == 0 {
			e.known = false // $HOME
			return
		}
		e.cd(ops[0])
	case "popd":
		e.known = false
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish":
		w.shell(args, e, depth, in)
	case "eval":
		w.evalArgs(args, e, depth)
	case "rm", "rmdir", "unlink", "trash", "trash-put", "srm":
		_, ops := parseArgs(args, flagSpec{})
		w.writeAll(ops, name, e)
	case "shred":
		_, ops := parseArgs(args, flagSpec{short: "ns", long: []string{"--iterations", "--size"}})
		w.writeAll(ops, name, e)
	case "touch":
		_, ops := parseArgs(args, flagSpec{short: "dtr", long: []string{"--date", "--reference", "--time"}})
		w.writeAll(ops, name, e)
	case "mkdir", "mkfifo":
		_, ops := parseArgs(args, flagSpec{short: "mZ", long: []string{"--mode"}})
		w.writeAll(ops, name, e)
	case "mknod":
		_, ops := parseArgs(args, flagSpec{short: "mZ", long: []string{"--mode"}})
		if len(ops) > 0 {
			w.writeArg(ops[0], name, e)
		}
	case "truncate":
		_, ops := parseArgs(args, flagSpec{short: "sr", long: []string{"--size", "--reference"}})
		w.writeAll(ops, name, e)
	case "tee", "sponge":
		_, ops := parseArgs(args, flagSpec{})
		w.writeAll(ops, name, e)
	case "chmod", "chown", "chgrp":
		w.chmod(name, args, e)
	case "cp", "mv", "install", "ln", "link":
		w.copy(name, args, e)
	case "dd":
		w.res.Write = true
		for _, a := range args {
			if strings.HasPrefix(a.s, "of=") {
				w.writeArg(arg{s: a.s[3:], exact: a.exact}, "dd of=", e)
			}
		}
	case "sed":
		w.sed(args, e)
	case "perl", "ruby":
		w.inplaceInterp(name, args, e, in)
	case "awk", "gawk", "mawk", "nawk":
		w.awk(name, args, e)
	case "git":
		w.git(args, e, depth)
	case "find":
		w.find(args, e, depth)
	case "curl":
		w.curl(args, e)
	case "wget":
		w.wget(args, e)
	case "rsync", "scp":
		w.remoteCopy(name, args, e)
	case "tar", "bsdtar", "gtar":
		w.tar(args, e)
	case "unzip":
		w.unzip(args, e)
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "brotli":
		opts, ops := parseArgs(args, flagSpec{short: "S", long: []string{"--suffix"}})
		if hasOpt(opts, "-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test") {
			return
		}
		w.writeAll(ops, name, e)
	case "zip":
		opts, ops := parseArgs(args, flagSpec{short: "bnitx", long: []string{"--temp-path", "--suffixes"}})
		w.res.Write = true
		if len(ops) > 0 {
			w.writeArg(ops[0], name, e)
			if hasOpt(opts, "-m", "--move") {
				// zip -m deletes the files it stored
				w.writeAll(ops[1:], "zip -m", e)
			}
		}
	case "7z", "7za", "7zr":
		w.sevenZip(args, e)
	case "patch":
		w.patch(args, e)
	case "split", "csplit":
		w.unknownWrite()
	case "mktemp":
		opts, ops := parseArgs(args, flagSpec{short: "p", long: []string{"--tmpdir", "--suffix"}})
		w.res.Write = true
		dir := e
		if d, ok := optValue(opts, "-p", "--tmpdir"); ok {
			dir = chdir(e, d)
		}
		w.writeAll(ops, name, dir)
	case "yq":
		opts, ops := parseArgs(args, flagSpec{short: "pIo", long: []string{"--input-format", "--output-format", "--indent"}})
		if hasOpt(opts, "-i", "--inplace") && len(ops) > 1 {
			w.writeAll(ops[1:], "yq -i", e)
		} else if len(ops) > 1 {
			w.readAll(ops[1:], name, e)
		}
	case "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "micro", "hx", "kak", "sudoedit":
		opts, ops := parseArgs(args, flagSpec{short: "cSuiTwW", long: []string{"--cmd", "--eval", "--execute", "--load", "-l"}})
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
	case "sort":
		opts, ops := parseArgs(args, flagSpec{short: "ktSTo", long: []string{"--key", "--field-separator", "--buffer-size", "--temporary-directory", "--output"}})
		if o, ok := optValue(opts, "-o", "--output"); ok {
			w.writeArg(o, "sort -o", e)
		}
		w.readAll(ops, name, e)
	case "uniq", "xxd":
		_, ops := parseArgs(args, flagSpec{short: "fswclgo", long: []string{"--skip-fields", "--skip-chars", "--check-chars"}})
		if len(ops) > 0 {
			w.readArg(ops[0], name, e)
		}
		if len(ops) > 1 {
			w.writeArg(ops[1], name, e)
		}
	case "tree":
		opts, ops := parseArgs(args, flagSpec{short: "LIPo", long: []string{"--filelimit", "--timefmt", "--sort", "--charset"}})
		if o, ok := optValue(opts, "-o"); ok {
			w.writeArg(o, "tree -o", e)
		}
		w.readAll(ops, name, e)
	case "apply_patch", "applypatch":
		w.applyPatch(args, in, e)
	case "trap":
		// trap 'CODE' SIGNALS: the code runs later, in this shell.
		_, ops := parseArgs(args, flagSpec{})
		if len(ops) > 1 && ops[0].s != "-" {
			w.codeArg(ops[0], e, depth)
		}
	case "source", ".":
		w.source(args, e, depth, in)
	case "mapfile", "readarray":
		// mapfile -C CALLBACK runs CALLBACK as a command every -c lines.
		opts, _ := parseArgs(args, flagSpec{short: "dnOsuCct"})
		if c, ok := optValue(opts, "-C"); ok {
			w.codeArg(c, e, depth)
		}
	case "alias":
		// Non-interactive bash expands aliases only after shopt -s
		// expand_aliases, but an alias is code all the same: judge its body.
		for _, a := range args {
			if _, body, ok := strings.Cut(a.s, "="); ok {
				w.codeArg(arg{s: body, exact: a.exact}, e, depth)
			}
		}
	case "shopt":
		opts, ops := parseArgs(args, flagSpec{})
		if hasOpt(opts, "-s") {
			for _, o := range ops {
				if o.s == "nocaseglob" {
					e.nocase = true
				}
			}
		}
	case "set":
		// set -- a b (or set a b) assigns the positional parameters $1, $2 …
		ops := args
		if len(ops) > 0 && ops[0].exact && ops[0].s == "--" {
			ops = ops[1:]
		} else if len(ops) > 0 && ops[0].exact && strings.HasPrefix(ops[0].s, "-") {
			return
		}
		for i, a := range ops {
			a.pos, a.end = 0, 0
			e.vars = bind(e.vars, itoa(i+1), a)
		}
	case "cpio":
		opts, ops := parseArgs(args, flagSpec{short: "EFHIOMRC", long: []string{"--file", "--format", "--pattern-file", "--owner"}})
		switch {
		case hasOpt(opts, "-i", "--extract"):
			w.writeDir(arg{s: ".", exact: true}, "cpio -i", e)
		case hasOpt(opts, "-p", "--pass-through") && len(ops) > 0:
			w.writeDir(ops[len(ops)-1], "cpio -p", e)
		}
	case "fd", "fdfind":
		// fd reads, unless it runs a command on what it finds.
		opts, ops := parseArgs(args, flagSpec{short: "edtEScjx", long: []string{"--extension", "--max-depth", "--type", "--exclude", "--size", "--changed-within", "--changed-before", "--threads", "--exec", "--exec-batch", "--base-directory", "--search-path", "--owner", "--format", "--max-results"}})
		if hasOpt(opts, "-x", "-X", "--exec", "--exec-batch") {
			w.unknownWrite()
			w.namedArgs(name, ops, e)
			return
		}
		if len(ops) > 1 {
			w.readAll(ops[1:], name, e)
		}
	case "sqlite3", "sqlite":
		w.sqlite(args, e, depth)
	case "fallocate":
		_, ops := parseArgs(args, flagSpec{short: "lo", long: []string{"--length", "--offset"}})
		w.writeAll(ops, name, e)
	case "iconv", "xmllint", "pandoc", "openssl", "gpg":
		w.outputFlag(name, args, e)
	default:
		if w.runner(name, args, e, depth, in) || w.wrapper(name, args, e, depth, in) || w.pkgManager(name, args, e) {
			return
		}
		if spec, ok := readers[name]; ok {
			w.read(name, spec, args, e)
			w.outputFlag(name, args, e)
			return
		}
		if it, ok := interpreters[interpName(name)]; ok {
			w.interp(it, interpName(name), args, e, in)
			return
		}
		if _, ok := formatters[name]; ok {
			w.formatter(name, args, e)
			return
		}
		if w.subFormatter(name, args, e) {
			return
		}
		if name == "mbguard" {
			if op := personCommand(args); op != "" {
				w.res.Person = append(w.res.Person, op)
			}
			return
		}
		if harmlessCommands[name] {
			return
		}
		w.unknownCommand(name, args, e, depth)
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// outputOpts are the options through which a command otherwise known as a
// reader writes a file.
var outputOpts = []string{"-o", "--output", "-out", "--out", "--output-file", "--outfile", "--to-file", "--output-document", "-keyout"}

// outputFlag records the file a reader writes through an output option
// (iconv -o, xmllint --output, pandoc -o, base64 -o).
func (w *walker) outputFlag(name string, args []arg, e *env) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			continue
		}
		for _, o := range outputOpts {
			switch {
			case a.s == o && i+1 < len(args):
				w.writeArg(args[i+1], name+" "+o, e)
				i++
			case strings.HasPrefix(a.s, o+"=") && strings.HasPrefix(o, "--"):
				w.writeArg(arg{s: a.s[len(o)+1:], exact: true}, name+" "+o, e)
			}
		}
	}
	if name == "pandoc" || name == "xmllint" || name == "iconv" || name == "openssl" || name == "gpg" {
		_, ops := parseArgs(args, flagSpec{short: "oftrFMVwu", long: append([]string{"--from", "--to", "--from-code", "--to-code", "--xpath", "--schema", "--relaxng", "--metadata", "--variable", "--template", "--filter", "--lua-filter", "--resource-path"}, outputOpts...)})
		w.readAll(ops, name, e)
	}
}

// source runs a file in this shell: code from stdin, a process substitution
// or a descriptor cannot be seen, and a file is a script (not inspected).
func (w *walker) source(args []arg, e *env, depth int, in *stdin) {
	if len(args) == 0 {
		return
	}
	f := args[0]
	switch {
	case !f.exact:
		w.unknownWrite() // <(…), $(…), a variable
	case isStdinPath(f.s):
		w.stdinCode(in, func(code string) { w.reparse(code, e, depth) })
		if in.hdoc == nil && !in.piped {
			w.unknownWrite()
		}
	default:
		if _, ok := fdPath(f.s); ok {
			w.unknownWrite()
		} else {
			w.addRun(f, "sh", "", e)
		}
	}
	w.namedArgs("source", args[1:], e)
}

// sqlite handles sqlite3 DB [SQL…]: its dot-commands .output/.once/.save/
// .backup/.dump write files, .shell/.system run commands, and the database
// itself is written.
func (w *walker) sqlite(args []arg, e *env, depth int) {
	opts, ops := parseArgs(args, flagSpec{long: []string{"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs", "-maxsize", "-mmap", "-pagecache", "-lookaside", "-heap"}})
	for _, o := range opts {
		if (o.name == "-cmd" || o.name == "-init") && o.has {
			ops = append(ops, o.value)
		}
	}
	if len(ops) == 0 {
		return
	}
	w.res.Write = true
	w.namedArg("sqlite3", ops[0], e)
	for _, sql := range ops[1:] {
		if !sql.exact {
			if mayNameBank(sql.pat) {
				w.unknownWrite()
			}
			continue
		}
		for _, line := range strings.FieldsFunc(sql.s, func(r rune) bool { return r == '\n' || r == ';' }) {
			f := strings.Fields(strings.TrimSpace(line))
			if len(f) == 0 || !strings.HasPrefix(f[0], ".") {
				continue
			}
			switch f[0] {
			case ".output", ".once", ".save", ".backup", ".dump", ".excel", ".log", ".clone":
				if len(f) > 1 {
					w.writeArg(arg{s: strings.Trim(f[len(f)-1], `'"`), exact: true}, "sqlite3 "+f[0], e)
				} else if f[0] == ".save" || f[0] == ".backup" || f[0] == ".clone" {
					w.unknownWrite()
				}
			case ".shell", ".system":
				w.reparse(strings.Join(f[1:], " "), e, depth)
			}
		}
	}
}

// shell handles bash -c CODE and code fed to a shell on stdin.
func (w *walker) shell(args []arg, e *env, depth int, in *stdin) {
	opts, ops := parseArgs(args, flagSpec{short: "oO", long: []string{"--rcfile", "--init-file"}, stopAtOperand: true})
	if hasOpt(opts, "-c") {
		if len(ops) == 0 {
			return
		}
		if !ops[0].exact {
			w.unknownWrite()
			return
		}
		w.reparse(ops[0].s, e, depth)
		return
	}
	if len(ops) > 0 && !hasOpt(opts, "-s") {
		w.addRun(ops[0], "sh", "", e) // a script file: judged by a caller that can read it
		return
	}
	w.stdinCode(in, func(code string) { w.reparse(code, e, depth) })
}

// stdinCode runs f on code a shell or interpreter reads from its standard
// input; code arriving through a pipe is unknown.
func (w *walker) stdinCode(in *stdin, f func(string)) {
	switch {
	case in.hdoc != nil && in.hdoc.exact:
		f(in.hdoc.s)
	case in.hdoc != nil:
		// An unquoted heredoc with expansions: scan what is literal, and
		// stay wary of the rest.
		w.res.Unknown, w.res.Write = true, true
		f(in.hdoc.s)
	case in.piped:
		w.unknownWrite()
	}
}

func (w *walker) chmod(name string, args []arg, e *env) {
	const flags = "RvcfhHLP"
	var ops []arg
	ref := false
	dashdash := false
	for _, a := range args {
		s := a.s
		if !dashdash && a.exact && len(s) > 1 && s[0] == '-' {
			if s == "--" {
				dashdash = true
				continue
			}
			if strings.HasPrefix(s, "--") {
				ref = ref || strings.HasPrefix(s, "--reference")
				continue
			}
			if strings.Trim(s[1:], flags) == "" {
				continue
			}
		}
		ops = append(ops, a) // includes modes like -w
	}
	w.res.Write = true
	if !ref && len(ops) > 0 {
		ops = ops[1:]
	}
	w.writeAll(ops, name, e)
}

// copy handles cp, mv, install and ln: the destination is written; mv also
// deletes its sources.
func (w *walker) copy(name string, args []arg, e *env) {
	spec := flagSpec{short: "tS", long: []string{"--target-directory", "--suffix"}}
	if name == "install" {
		spec = flagSpec{short: "tmogS", long: []string{"--target-directory", "--mode", "--owner", "--group", "--suffix"}}
	}
	opts, ops := parseArgs(args, spec)
	w.res.Write = true
	if name == "install" && hasOpt(opts, "-d", "--directory") {
		w.writeAll(ops, name, e)
		return
	}
	t, hasT := optValue(opts, "-t", "--target-directory")
	if name == "ln" || name == "link" {
		// after the link itself is recorded as written
		defer w.noteLinks(opts, ops, t, hasT, e)
	}
	hardLink := (name == "ln" || name == "link") && !hasOpt(opts, "-s", "--symbolic") ||
		name == "cp" && hasOpt(opts, "-l", "--link")
	if name == "mv" || hardLink && len(ops) > 1 {
		// mv removes its sources; a hard link changes its source's link count, and
		// whoever writes through the new name writes the source's bytes
		srcs := ops
		if !hasT && len(ops) > 0 {
			srcs = ops[:len(ops)-1]
		}
		w.writeAll(srcs, name, e)
	}
	if hasT {
		w.intoDir(t, ops, name, e)
		return
	}
	switch {
	case len(ops) == 0:
	case len(ops) == 1 && (name == "ln" || name == "link"):
		// ln TARGET makes a link named after TARGET in the working directory.
		if ops[0].exact {
			w.writeArg(arg{s: path.Base(ops[0].s), exact: true}, name, e)
		} else {
			w.unknownWrite()
		}
	case len(ops) == 1:
	default:
		dest, srcs := ops[len(ops)-1], ops[:len(ops)-1]
		if len(srcs) > 1 || strings.HasSuffix(dest.s, "/") {
			w.intoDir(dest, srcs, name, e)
			return
		}
		w.writeArg(dest, name, e)
	}
}

// noteLinks remembers the links ln makes, so that a later write through one in
// the same line is a write of what it points to.
func (w *walker) noteLinks(opts []opt, ops []arg, t arg, hasT bool, e *env) {
	symbolic := hasOpt(opts, "-s", "--symbolic")
	var srcs []arg
	var dir, dest arg
	switch {
	case hasT:
		srcs, dir = ops, t
	case len(ops) == 1:
		srcs = ops
		dir = arg{s: ".", exact: true}
	case len(ops) >= 2:
		srcs, dest = ops[:len(ops)-1], ops[len(ops)-1]
		if len(srcs) > 1 || strings.HasSuffix(dest.s, "/") {
			dir, dest = dest, arg{}
		}
	}
	for _, s := range srcs {
		if !s.exact {
			continue
		}
		name := dest
		if dir.exact && dir.s != "" {
			name = arg{s: path.Join(dir.s, path.Base(s.s)), exact: true}
		}
		if !name.exact || name.s == "" {
			continue
		}
		at, ok := resolve(name.s, e)
		if !ok {
			continue
		}
		target := s.s
		if symbolic && !strings.HasPrefix(target, "/") {
			target = path.Join(path.Dir(at), target) // relative to the link's directory
		} else if tp, ok := resolve(target, e); ok {
			target = tp
		}
		e.links = bind(e.links, at, arg{s: path.Clean(target), exact: true})
	}
}

// intoDir records the entries that copying srcs into dir creates.
func (w *walker) intoDir(dir arg, srcs []arg, op string, e *env) {
	if !dir.exact {
		w.writeArg(dir, op, e)
		return
	}
	d := strings.TrimRight(dir.s, "/")
	if d == "" && dir.s != "" {
		d = "/"
	}
	for _, s := range srcs {
		if !s.exact {
			w.writeDir(dir, op, e)
			continue
		}
		b := path.Base(s.s)
		if b == "/" || b == "." || b == ".." {
			w.writeDir(dir, op, e)
			continue
		}
		w.writeArg(arg{s: path.Join(d, b), exact: true}, op, e)
	}
	if len(srcs) == 0 {
		w.writeDir(dir, op, e)
	}
}

// isRemote reports an rsync/scp operand naming another host (host:path).
func isRemote(s string) bool {
	if strings.HasPrefix(s, "rsync://") {
		return true
	}
	c := strings.IndexByte(s, ':')
	return c > 0 && !strings.Contains(s[:c], "/")
}

func (w *walker) remoteCopy(name string, args []arg, e *env) {
	spec := flagSpec{short: "efTBM", long: []string{"--rsh", "--filter", "--exclude", "--include", "--temp-dir", "--partial-dir", "--backup-dir", "--compare-dest", "--link-dest", "--copy-dest", "--exclude-from", "--include-from", "--files-from", "--password-file", "--chmod", "--chown", "--timeout", "--port", "--rsync-path", "--log-file"}}
	if name == "scp" {
		spec = flagSpec{short: "cFiJlPoSD"}
	}
	opts, ops := parseArgs(args, spec)
	w.res.Write = true
	if f, ok := optValue(opts, "--log-file"); ok && name == "rsync" {
		w.writeArg(f, name, e)
	}
	if len(ops) < 2 {
		return
	}
	dest, srcs := ops[len(ops)-1], ops[:len(ops)-1]
	if hasOpt(opts, "--remove-source-files") {
		for _, s := range srcs {
			if !isRemote(s.s) {
				w.writeArg(s, name, e)
			}
		}
	}
	if isRemote(dest.s) {
		return
	}
	// Copying a tree or several sources fills a directory with entries
	// whose names are not all known; one file to one name is exact.
	tree := len(srcs) > 1 || strings.HasSuffix(dest.s, "/")
	for _, s := range srcs {
		tree = tree || strings.HasSuffix(s.s, "/")
	}
	if tree {
		w.writeDir(dest, name, e)
		return
	}
	w.writeArg(dest, name, e)
}

func (w *walker) patch(args []arg, e *env) {
	opts, ops := parseArgs(args, flagSpec{short: "pidoBDFrVYz", long: []string{"--strip", "--input", "--directory", "--output", "--prefix", "--ifdef", "--fuzz", "--reject-file", "--version-control", "--basename-prefix", "--suffix"}})
	w.res.Write = true
	if d, ok := optValue(opts, "-d", "--directory"); ok {
		e = chdir(e, d)
	}
	if o, ok := optValue(opts, "-o", "--output"); ok {
		w.writeArg(o, "patch", e)
		return
	}
	if r, ok := optValue(opts, "-r", "--reject-file"); ok {
		w.writeArg(r, "patch", e)
	}
	if hasOpt(opts, "--dry-run") {
		return
	}
	if len(ops) > 0 {
		w.writeArg(ops[0], "patch", e)
		return
	}
	w.res.Unknown = true // the files are named inside the patch
}

// personCommand names an mbguard command only the person may run ("" for any other): those
// that remove mbguard, forget its known-good state or act on the quarantine. A word known only
// at run time where one of them could stand counts as one.
func personCommand(args []arg) string {
	var words []string // the subcommand (and the quarantine action), then the flags that matter
	maybe := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		open := len(words) == 0 || words[0] == "quarantine" && len(words) == 1
		switch {
		case !a.exact:
			if open || words[0] == "install" || words[0] == "doctor" {
				maybe = true
			}
			continue
		case len(words) == 0 && (a.s == "-C" || a.s == "--dir" || a.s == "--set"):
			i++ // its value
			continue
		case strings.HasPrefix(a.s, "-"):
			name, _, _ := strings.Cut(a.s, "=")
			if name == "--uninstall" || name == "--reset-known-good" {
				words = append(words, name)
			}
			continue
		case open:
			words = append(words, a.s)
		}
	}
	has := func(w string) bool {
		for _, x := range words {
			if x == w {
				return true
			}
		}
		return false
	}
	switch {
	case len(words) == 0:
	case words[0] == "uninstall":
		return "mbguard uninstall"
	case words[0] == "install" && has("--uninstall"):
		return "mbguard install --uninstall"
	case words[0] == "doctor" && has("--reset-known-good"):
		return "mbguard doctor --reset-known-good"
	case words[0] == "quarantine" && len(words) > 1 && (words[1] == "drop" || words[1] == "restore"):
		return "mbguard quarantine " + words[1]
	case words[0] == "quarantine" && len(words) == 1 || words[0] == "install" || words[0] == "doctor":
		if maybe {
			return "mbguard " + words[0] + " with words known only when it runs"
		}
		return ""
	}
	if maybe && len(words) == 0 {
		return "mbguard with a command known only when it runs"
	}
	return ""
}
