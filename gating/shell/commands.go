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
		name := progBase(args[0].s)
		rest := args[1:]
		next, ok := w.unwrap(name, rest, &e, depth, in)
		if !ok {
			w.runsOf(args[0].s, name, rest, e)
			w.copiesOf(name, rest)
			if w.copies[args[0].s] || w.copies[name] {
				// a copy made earlier in the line (`cp "$(command -v mbguard)" /tmp/mbg`) may be
				// mbguard under another name: its entry points are the host's
				if op := personCommand(rest); op != "" && !strings.Contains(op, "known only") {
					w.res.Person = append(w.res.Person, op)
				}
			}
			w.command(name, rest, e, depth, in)
			return
		}
		args = next
	}
}

// copiesOf remembers the destination of a copy or link (cp, install, ln): run later in the
// same line, it may be mbguard's binary under a name of its own.
func (w *walker) copiesOf(name string, args []arg) {
	if name != "cp" && name != "install" && name != "ln" || len(args) < 2 {
		return
	}
	if d := args[len(args)-1]; d.exact && !strings.HasPrefix(d.s, "-") {
		if w.copies == nil {
			w.copies = map[string]bool{}
		}
		w.copies[d.s], w.copies[path.Base(d.s)] = true, true
	}
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
	if winDir(e.dir) {
		if p, ok := resolve(d.s, e); ok {
			e.dir = p // Git Bash: cd C:/x and cd 'C:\x' go to the drive path
			return
		}
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
// sqliteWrites are the sqlite3 dot commands that write the file they name; sqliteNeedsFile
// those of them that write a file chosen at run time when they name none.
var (
	sqliteWrites = map[string]bool{".output": true, ".once": true, ".save": true, ".backup": true,
		".dump": true, ".excel": true, ".log": true, ".clone": true}
	sqliteNeedsFile = map[string]bool{".save": true, ".backup": true, ".clone": true}
)

// sqliteDot judges one line of sqlite3 input, split in words: a dot command that writes a
// file or runs a shell command.
func (w *walker) sqliteDot(f []string, e *env, depth int) {
	switch {
	case len(f) == 0 || !strings.HasPrefix(f[0], "."):
	case sqliteWrites[f[0]] && len(f) > 1:
		w.writeArg(arg{s: strings.Trim(f[len(f)-1], `'"`), exact: true}, "sqlite3 "+f[0], e)
	case sqliteNeedsFile[f[0]]:
		w.unknownWrite()
	case f[0] == ".shell" || f[0] == ".system":
		w.reparse(strings.Join(f[1:], " "), e, depth)
	}
}

func (w *walker) sqlite(c *invocation) {
	args, e, depth := c.args, c.e, c.depth
	opts, ops := parseArgs(args, c.spec.flags)
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
			w.sqliteDot(strings.Fields(strings.TrimSpace(line)), e, depth)
		}
	}
}

// shell handles bash -c CODE and code fed to a shell on stdin.
func (w *walker) shell(c *invocation) {
	args, e, depth, in := c.args, c.e, c.depth, c.in
	opts, ops := parseArgs(args, c.spec.flags)
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
func (w *walker) copy(c *invocation) {
	name, e := c.name, c.e
	opts, ops := parseArgs(c.args, c.spec.flags)
	w.res.Write = true
	if name == "install" && hasOpt(opts, "-d", "--directory") {
		w.writeAll(ops, name, e)
		return
	}
	link := name == "ln" || name == "link"
	t, hasT := optValue(opts, "-t", "--target-directory")
	switch {
	case hasT || len(ops) == 1 && link:
		w.carryAll(ops, name, e)
	case len(ops) > 1:
		w.carryAll(ops[:len(ops)-1], name, e)
	}
	if link {
		// after the link itself is recorded as written
		defer w.noteLinks(opts, ops, t, hasT, e)
	}
	if name == "mv" || hardLinks(name, link, opts) && len(ops) > 1 {
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
	w.copyDest(name, link, ops, e)
}

// hardLinks reports a command that makes hard links: ln without -s, cp -l.
func hardLinks(name string, link bool, opts []opt) bool {
	return link && !hasOpt(opts, "-s", "--symbolic") || name == "cp" && hasOpt(opts, "-l", "--link")
}

// copyDest records the destination of a copy, move or link without -t: the last operand,
// a directory when several sources go into it; ln TARGET alone makes a link named after
// TARGET in the working directory.
func (w *walker) copyDest(name string, link bool, ops []arg, e *env) {
	switch {
	case len(ops) == 0:
	case len(ops) == 1 && link:
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
// linkTarget is the file a link at `at` to target names: a relative symbolic link's target
// is taken from the link's directory.
func linkTarget(target, at string, symbolic bool, e *env) string {
	if symbolic && !strings.HasPrefix(target, "/") {
		return path.Join(path.Dir(at), target)
	}
	if tp, ok := resolve(target, e); ok {
		return tp
	}
	return target
}

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
		e.links = bind(e.links, at, arg{s: path.Clean(linkTarget(s.s, at, symbolic, e)), exact: true})
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

func (w *walker) remoteCopy(c *invocation) {
	name, args, e := c.name, c.args, c.e
	opts, ops := parseArgs(args, c.spec.flags)
	w.res.Write = true
	if f, ok := optValue(opts, "--log-file"); ok && name == "rsync" {
		w.writeArg(f, name, e)
	}
	if len(ops) < 2 {
		return
	}
	dest, srcs := ops[len(ops)-1], ops[:len(ops)-1]
	for _, s := range srcs {
		if !isRemote(s.s) {
			w.carryArg(s, name, e)
		}
	}
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

func (w *walker) patch(c *invocation) {
	args, e := c.args, c.e
	opts, ops := parseArgs(args, c.spec.flags)
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
// that remove mbguard, forget its known-good state or act on the quarantine, and the protocol
// entry points the host alone runs (hook, serve, settle). A word known only
// at run time where one of them could stand counts as one.
func personCommand(args []arg) string {
	words, maybe := personWords(args)
	switch {
	case len(words) == 0 && maybe:
		return "mbguard with a command known only when it runs"
	case len(words) == 0:
		return ""
	}
	if op := personOp(words); op != "" {
		return op
	}
	if maybe && personOpen(words) {
		return "mbguard " + words[0] + " with words known only when it runs"
	}
	return ""
}

// personValued are mbguard's global options that take the next word as their value.
var personValued = map[string]bool{"-C": true, "--dir": true, "--set": true}

// personFlags are the options that make an mbguard command one only the person may run.
var personFlags = map[string]bool{"--uninstall": true, "--reset-known-good": true, "--confirm-user-files": true}

// personWords reads an mbguard command line: its subcommand (and the quarantine action),
// then the flags that matter; maybe is true when a word known only at run time stands where
// a subcommand, an action or one of those flags could.
func personWords(args []arg) (words []string, maybe bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		open := len(words) == 0 || words[0] == "quarantine" && len(words) == 1
		switch {
		case !a.exact:
			maybe = maybe || open || words[0] == "install" || words[0] == "doctor"
		case len(words) == 0 && personValued[a.s]:
			i++ // its value
		case strings.HasPrefix(a.s, "-"):
			if name, _, _ := strings.Cut(a.s, "="); personFlags[name] {
				words = append(words, name)
			}
		case open:
			words = append(words, a.s)
		}
	}
	return words, maybe
}

// personEntries are the protocol entry points (what the host sends, never the agent: a forged
// event would credit a read or close a call's window) and the commands that remove mbguard.
var personEntries = map[string]bool{"hook": true, "serve": true, "settle": true, "uninstall": true}

// personSubFlags are the subcommands only the person runs with one of their flags, in the
// order they are named.
var personSubFlags = []struct{ sub, flag string }{
	{"install", "--uninstall"},
	{"doctor", "--reset-known-good"},
	{"doctor", "--confirm-user-files"},
}

// personOp names the person-only command words spell, or "".
func personOp(words []string) string {
	if personEntries[words[0]] {
		return "mbguard " + words[0]
	}
	for _, f := range personSubFlags {
		if words[0] == f.sub && hasWord(words, f.flag) {
			return "mbguard " + f.sub + " " + f.flag
		}
	}
	if words[0] == "quarantine" && len(words) > 1 && (words[1] == "drop" || words[1] == "restore") {
		return "mbguard quarantine " + words[1]
	}
	return ""
}

func hasWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// personOpen reports a command one of whose words, known only at run time, could make it
// person-only: a bare quarantine, install or doctor.
func personOpen(words []string) bool {
	return words[0] == "quarantine" && len(words) == 1 || words[0] == "install" || words[0] == "doctor"
}
