package shell

import (
	"path"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// MaxInput is the largest command, in bytes, that Classify parses; anything
// longer is reported as an unknown write without being parsed, so a huge
// tool call cannot stall the hook.
const MaxInput = 256 << 10

// maxDepth bounds how often code nested in strings (bash -c, eval, heredocs fed
// to a shell) is re-parsed; deeper code is an unknown write.
const maxDepth = 4

// Access is one path a command touches.
type Access struct {
	// Path is the path as written, joined onto the tracked working directory
	// when relative and cleaned with path.Clean; globs are kept as written.
	Path string
	// Op names what touches the path: "redirect", "tee", "sed -i", "cp",
	// "git mv", "interpreter", "find -delete", "curl -o", a read command's name …
	Op string
	// Unknown marks a path that is only a hint: the literal prefix of a word
	// completed at run time (`> memory-bank/$NAME` gives "memory-bank/", slash
	// kept), a directory whose unknown entries are touched (tar x, unzip), or
	// a relative path under a working directory that could not be tracked.
	Unknown bool
	// Tree marks a directory whose entries, at any depth and with names not
	// known, are written (tar x -C DIR, unzip -d DIR, find DIR -delete,
	// rsync into DIR). Callers must treat it as a write to everything below.
	Tree bool
	// NoMarkdown marks a Tree write whose find -name tests admit no Markdown
	// file (find . -name '*.pyc' -delete): no .md file below it is touched.
	NoMarkdown bool
	// Via is the script (resolved like Run.Path) this path was handed to as an argument
	// (python summarize.py memory-bank/): it is written only if that script can write, which
	// a caller that reads the script may decide.
	Via string
	// Exclude is, for a formatter run on a tree that takes in memory-bank/, the same
	// command with the words that leave the bank out (prettier --write . '!memory-bank/**').
	Exclude string
	// NoBank marks a tree write by a formatter told to leave memory-bank/ out of it.
	NoBank bool
	// Changes marks a search that shows only files with uncommitted changes (git diff, git
	// diff --cached, with no revision named).
	Changes bool
	// Top marks a path relative to the top of the repository the command runs in (git's
	// REV:PATH), left as written, since the classifier does not know where that top is.
	Top bool
}

// Result is what Classify learnt about a command line.
type Result struct {
	// Reads are the paths named by read-only commands (cat, head, grep, sed -n,
	// git log …) and by input redirects.
	Reads []Access
	// Writes are the paths created, changed, moved or deleted.
	Writes []Access
	// Write reports that the command writes anything at all, even where no
	// path could be determined.
	Write bool
	// Unknown reports a write whose target could not be determined; callers
	// should treat it as a write to any place, memory-bank/ included. A Tree
	// write below a known directory is not unknown: its Access says where.
	Unknown bool
	// Interpreter reports inline interpreter code (python -c, node -e …).
	Interpreter bool
	// ParseError is set when the command did not parse or was too large; then
	// Write and Unknown are set too.
	ParseError string
	// Runs are the files the command runs as programs — a script handed to a shell or an
	// interpreter, an executable named by its path, a Makefile, a package.json script, a
	// patch git applies — which the command line cannot show. A caller that can read them
	// judges what they hold (the package itself never touches the file system).
	Runs []Run
	// ReadSpans are the byte ranges of the command line that hold words only
	// read (git log -- memory-bank): a caller that looks for names in the
	// command text can leave them out.
	ReadSpans [][2]int
	// Searches are the directories whose files a command reads at any depth and shows
	// (grep -r, rg, ag, ack, git grep — the working directory when none is named —, find …
	// -exec, xargs handing names to a reader), so a caller can tell a search that takes in a
	// directory holding memory-bank/ from a command that only runs there. Unknown marks a
	// directory built at run time (Path is then the working directory); NoBank a search told
	// to leave memory-bank/ out (--exclude-dir=memory-bank, -g '!memory-bank',
	// ':!memory-bank'); NoMarkdown a search whose file filters let no Markdown file in
	// (grep --include='*.go', rg -t go). A search that shows only file names or counts (-l,
	// -c) is not one.
	Searches []Access
	// Carries are the paths whose bytes a command copies, archives or links to another name
	// (cp, mv, install and ln sources, rsync and scp local sources, what tar c, zip and 7z a
	// store): a file there holds the same text under a name outside memory-bank/. A
	// directory is carried at any depth.
	Carries []Access
	// Person are the mbguard commands in the line that only the person may run
	// ("mbguard uninstall", "mbguard quarantine restore" …): they switch the guard
	// off or undo its work, so an agent's shell must not run them.
	Person []string
}

// Classify parses cmd as bash and reports the paths it reads and writes.
// Relative paths are joined onto cwd; when cwd is "" they stay relative.
// Classify never panics and never touches the file system.
func Classify(cmd string, cwd string) (res Result) {
	return ClassifyEnv(cmd, cwd, nil)
}

// ClassifyEnv is Classify with the values of variables the caller knows for certain
// ($TMPDIR, $HOME, $CLAUDE_PROJECT_DIR): a word built from them resolves to a path
// instead of an unknown one. A variable the line assigns or unsets wins over them.
func ClassifyEnv(cmd, cwd string, vars map[string]string) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			// A classifier bug must not open the gate: fall back to the
			// most restrictive answer.
			res = Result{Write: true, Unknown: true, ParseError: "internal error in shell classifier"}
		}
	}()
	return classify(cmd, cwd, vars)
}

// classify is Classify without the recover, so the fuzz target sees panics.
func classify(cmd, cwd string, vars map[string]string) Result {
	var res Result
	if len(cmd) > MaxInput {
		res.ParseError = "command longer than 256 KiB"
		res.Write, res.Unknown = true, true
		return res
	}
	// The parser refuses bytes that are not UTF-8, yet bash takes them as they are and a
	// file name may hold them: classify a copy whose stray bytes are private-use runes,
	// then give the paths their bytes back.
	escaped := !utf8.ValidString(cmd) && utf8.ValidString(cwd)
	if escaped {
		cmd = escapeBytes(cmd)
	}
	w := walker{res: &res}
	e := env{dir: cleanDir(cwd), known: true, top: true}
	for _, n := range sortedNames(vars) {
		// "" is a variable the caller knows is unset: it expands to nothing
		if v := vars[n]; utf8.ValidString(v) && !mayRebind(cmd, n) {
			e.vars = bind(e.vars, n, arg{s: v, exact: true})
		}
	}
	if err := w.parse(cmd, &e, 0); err != nil {
		res.ParseError = err.Error()
		res.Write, res.Unknown = true, true
	}
	if escaped {
		res.unescape()
	}
	return res
}

// rebinders are the builtins through which a line may set a variable other than by a plain
// NAME=VALUE the walker follows (read NAME, eval "NA""ME=x", sourcing a script that sets it).
var rebinders = setOf("read eval source declare typeset export local readonly mapfile readarray getopts printf let set unset alias")

// mayRebind reports a command line that may give the variable name a value of its own: it
// spells the name other than as $NAME or ${NAME}, or uses a builtin that can set a
// variable whose name is built at run time. Then the caller's value is not used.
func mayRebind(cmd, name string) bool {
	bare := strings.Count(cmd, name) - strings.Count(cmd, "$"+name) - strings.Count(cmd, "${"+name+"}") - strings.Count(cmd, "${"+name+":-")
	if bare > 0 {
		return true
	}
	for _, f := range strings.FieldsFunc(cmd, func(r rune) bool {
		return !(r == '-' || r == '.' || r < utf8.RuneSelf && isIdent(byte(r)))
	}) {
		if rebinders[f] || f == "." {
			return true
		}
	}
	return false
}

// sortedNames returns the keys of m in order, so a classification never depends on map order.
func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		i := len(out)
		out = append(out, n)
		for ; i > 0 && out[i-1] > n; i-- {
			out[i] = out[i-1]
		}
		out[i] = n
	}
	return out
}

// escapeBase maps a byte b of 0x80–0xFF that is not part of valid UTF-8 to the rune
// escapeBase+b, in the Private Use Area, which no path word is likely to hold.
const escapeBase = 0xF700

func escapeBytes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(escapeBase + rune(s[i]))
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func unescapeBytes(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= escapeBase+0x80 && r <= escapeBase+0xFF }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= escapeBase+0x80 && r <= escapeBase+0xFF {
			b.WriteByte(byte(r - escapeBase))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unescape gives the paths of a command classified through escapeBytes their own bytes.
// Byte offsets into the escaped text mean nothing for the caller's: ReadSpans are dropped,
// so every word counts as naming what it names.
func (r *Result) unescape() {
	for _, list := range [][]Access{r.Reads, r.Writes} {
		for i := range list {
			list[i].Path = unescapeBytes(list[i].Path)
		}
	}
	for i := range r.Runs {
		r.Runs[i].Path, r.Runs[i].Arg, r.Runs[i].Dir = unescapeBytes(r.Runs[i].Path), unescapeBytes(r.Runs[i].Arg), unescapeBytes(r.Runs[i].Dir)
	}
	r.ReadSpans = nil
}

// env is the shell state that matters for paths: the working directory, the
// variables assigned earlier in the line, symlinks made earlier in it, file
// descriptors opened on files, and the options that change globbing and cd.
// Its slices are shared between copies and only ever appended to through a
// full slice expression, so a subshell's assignment never leaks out.
type env struct {
	dir   string // "" means the caller's (relative) starting point
	known bool
	top   bool // words are in the top-level command line (their offsets mean something)

	vars   []binding // name → value, latest last
	links  []binding // resolved link path → resolved target
	fds    []binding // descriptor number → resolved path
	nocase bool      // shopt -s nocaseglob
	cdpath bool      // CDPATH set: cd NAME may go anywhere
}

type binding struct {
	name string
	val  arg
}

func bind(list []binding, name string, v arg) []binding {
	return append(list[:len(list):len(list)], binding{name, v})
}

func find(list []binding, name string) (arg, bool) {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].name == name {
			return list[i].val, true
		}
	}
	return arg{}, false
}

// lookup returns a plain $NAME, ${NAME} or ${NAME:-WORD} the line assigned before (or the
// caller gave); any other parameter expansion is unknown.
func (e *env) lookup(p *syntax.ParamExp) (arg, bool) {
	if e == nil || p == nil || p.Param == nil || !plainParam(p) {
		return arg{}, false
	}
	switch {
	case p.Exp == nil:
		return e.value(p.Param.Value)
	case p.Exp.Op == syntax.DefaultUnsetOrNull:
		return e.valueOr(p.Param.Value, p.Exp.Word)
	}
	return arg{}, false
}

// plainParam reports a parameter expansion that is only the parameter's value (or a default
// for it): no replacement, index, slice, length, indirection, width or name list.
func plainParam(p *syntax.ParamExp) bool {
	return p.Repl == nil && p.Index == nil && p.Slice == nil && !p.Length && !p.Excl && !p.Width && p.Names == 0
}

// value is $PARAM: a variable the line set, $PWD where the directory is known, $HOME.
func (e *env) value(param string) (arg, bool) {
	if v, ok := find(e.vars, param); ok {
		return v, true
	}
	switch param {
	case "PWD":
		if e.known && e.dir != "" {
			return arg{s: e.dir, exact: true}, true
		}
	case "HOME":
		// set by the caller above when it knows the value
		return arg{s: "~", exact: true}, true
	}
	return arg{}, false
}

// valueOr is ${PARAM:-WORD}: PARAM's value, or WORD when it is empty; known only when PARAM
// was set by the line.
func (e *env) valueOr(param string, word *syntax.Word) (arg, bool) {
	v, ok := find(e.vars, param)
	switch {
	case !ok:
		return arg{}, false
	case v.s != "" || !v.exact:
		return v, true
	case word == nil:
		return arg{s: "", exact: true}, true
	}
	return wordArg(word, e), true
}

// bankHint is memory-bank/ below the working directory, as a hint path.
func (e *env) bankHint() string {
	if e.known && e.dir != "" {
		return path.Join(e.dir, bankName) + "/"
	}
	return bankName + "/"
}

// sameDir reports whether two states agree on the working directory.
func (e *env) sameDir(o *env) bool { return e.dir == o.dir && e.known == o.known }

func cleanDir(d string) string {
	if d == "" {
		return ""
	}
	if winDir(d) {
		return winClean(d) // a share keeps its "//"
	}
	d = path.Clean(d)
	if d == "." {
		return ""
	}
	return d
}

type walker struct {
	res *Result
	// depth is the nesting of the code being walked (see maxDepth), for code found in
	// places that are not handed it (inline interpreter code running a command).
	depth int
	// parser is reused for code nested in strings: a parser costs about
	// 5 KB to set up, more than classifying a typical command.
	parser *syntax.Parser
	// seen deduplicates accesses once there are many, so that a command
	// naming thousands of files stays linear.
	seen map[seenKey]bool
	// feeds counts the enclosing places whose output feeds another command
	// (the left of a pipe, a command or process substitution): names read
	// there may become the targets of a write.
	feeds int
	// spanOK is set while a command that only reads (cat, grep, git log)
	// records its operands: only their words count as read-only text.
	spanOK bool
	// unrolled counts the loop bodies walked once per word (forLoop), at most maxUnrolled.
	unrolled int
	// copies are the destinations of copies made earlier in the line (copiesOf)
	copies map[string]bool
}

// maxLoopWords and maxUnrolled bound the unrolling of for loops: the words of one loop, and
// the bodies walked for a whole line.
const (
	maxLoopWords = 16
	maxUnrolled  = 64
)

// forLoop walks a for loop's body once per word of its list, the variable bound to the word,
// as the loop runs (for f in memory-bank/*.md; do cat "$f"; done reads the glob's files), in
// order, each iteration a block (a cd in the body leaves the next one's directory unknown). A list
// built at run time, or longer than maxLoopWords, leaves the variable unknown, and the body is
// walked once.
func (w *walker) forLoop(c *syntax.ForClause, e *env, depth int) {
	wi, ok := c.Loop.(*syntax.WordIter)
	if ok && wi.Name != nil && len(wi.Items) > 0 && len(wi.Items) <= maxLoopWords {
		items := words(wi.Items, e)
		exact := len(items) <= maxLoopWords && w.unrolled+len(items) <= maxUnrolled
		for _, it := range items {
			exact = exact && it.exact
		}
		if exact {
			w.unrolled += len(items)
			for _, it := range items {
				it.pos, it.end = 0, 0
				e.vars = bind(e.vars, wi.Name.Value, it)
				w.block(c.Do, e, depth)
			}
			return
		}
	}
	w.block(c.Do, e, depth)
}

type seenKey struct {
	a     Access
	write bool
}

// add appends a to list unless it is already there.
func (w *walker) add(list []Access, a Access, write bool) []Access {
	if w.seen == nil {
		for _, x := range list {
			if x == a {
				return list
			}
		}
		if len(list) < 16 {
			return append(list, a)
		}
		w.seen = map[seenKey]bool{}
		for _, x := range w.res.Reads {
			w.seen[seenKey{x, false}] = true
		}
		for _, x := range w.res.Writes {
			w.seen[seenKey{x, true}] = true
		}
	}
	k := seenKey{a, write}
	if w.seen[k] {
		return list
	}
	w.seen[k] = true
	return append(list, a)
}

func (w *walker) parse(src string, e *env, depth int) error {
	if w.parser == nil {
		w.parser = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	f, err := w.parser.Parse(strings.NewReader(src), "")
	if err != nil {
		return err
	}
	outer := w.depth
	w.depth = depth
	w.stmts(f.Stmts, e, depth)
	w.depth = outer
	return nil
}

// reparse classifies code found inside a string (bash -c, eval, a heredoc fed
// to a shell); code too deep or not parsable is an unknown write.
func (w *walker) reparse(src string, e *env, depth int) {
	if depth >= maxDepth {
		w.unknownWrite()
		return
	}
	sub := *e
	sub.top = false
	if err := w.parse(src, &sub, depth+1); err != nil {
		w.unknownWrite()
	}
}

func (w *walker) unknownWrite() {
	w.res.Write, w.res.Unknown = true, true
}

func (w *walker) stmts(list []*syntax.Stmt, e *env, depth int) {
	for _, s := range list {
		w.stmt(s, e, depth, false)
	}
}

// block walks statements that may or may not run (if/loop/case bodies): a cd
// inside them leaves the directory after them unknown.
func (w *walker) block(list []*syntax.Stmt, e *env, depth int) {
	sub := *e
	w.stmts(list, &sub, depth)
	if !sub.sameDir(e) {
		e.known = false
	}
	// Assignments and links made in a branch that may not run are kept: a
	// later write through them is judged as if they had happened.
	e.vars, e.links, e.fds = sub.vars, sub.links, sub.fds
	e.nocase = e.nocase || sub.nocase
	e.cdpath = e.cdpath || sub.cdpath
}

func (w *walker) stmt(s *syntax.Stmt, e *env, depth int, piped bool) {
	if s == nil {
		return
	}
	if s.Background || s.Coprocess || s.Disown {
		// A background job runs in a subshell: its cd does not leak.
		sub := *e
		e = &sub
	}
	var in stdin
	in.piped = piped
	for _, r := range s.Redirs {
		w.substs(r.Word, e, depth)
		w.substs(r.Hdoc, e, depth)
		w.redirect(r, e, &in)
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		w.callExpr(c, e, depth, &in)
	case *syntax.BinaryCmd:
		w.binaryCmd(c, e, depth, piped)
	case *syntax.Block, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause:
		w.control(c, e, depth)
	default:
		w.nested(c, e, depth, piped)
	}
}

// callExpr walks a simple command: its substitutions, then its assignments alone or the
// command they are set for.
func (w *walker) callExpr(c *syntax.CallExpr, e *env, depth int, in *stdin) {
	for _, a := range c.Assigns {
		w.substs(a, e, depth)
	}
	for _, a := range c.Args {
		w.substs(a, e, depth)
	}
	if len(c.Args) == 0 {
		w.assign(c.Assigns, e)
		return
	}
	ce := e
	if len(c.Assigns) > 0 {
		// VAR=x cmd: the variables live for this command only.
		sub := *e
		ce = &sub
		w.assign(c.Assigns, ce)
	}
	w.call(words(c.Args, ce), ce, depth, in)
	if ce != e && ce.sameDir(e) {
		e.links, e.fds = ce.links, ce.fds
	}
}

// binaryCmd walks a && b, a || b and pipelines; each side of a pipeline runs in its own
// subshell.
func (w *walker) binaryCmd(c *syntax.BinaryCmd, e *env, depth int, piped bool) {
	switch c.Op {
	case syntax.Pipe, syntax.PipeAll:
		x, y := *e, *e
		w.feeds++
		w.stmt(c.X, &x, depth, piped)
		w.feeds--
		w.stmt(c.Y, &y, depth, true)
	default:
		w.stmt(c.X, e, depth, piped)
		w.stmt(c.Y, e, depth, piped)
	}
}

// control walks the compound commands that run in the current shell: { …; }, if, while,
// for and case.
func (w *walker) control(c syntax.Command, e *env, depth int) {
	switch c := c.(type) {
	case *syntax.Block:
		w.stmts(c.Stmts, e, depth)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.block(ic.Cond, e, depth)
			w.block(ic.Then, e, depth)
		}
	case *syntax.WhileClause:
		w.block(c.Cond, e, depth)
		w.block(c.Do, e, depth)
	case *syntax.ForClause:
		w.substs(c.Loop, e, depth)
		w.forLoop(c, e, depth)
	case *syntax.CaseClause:
		w.substs(c.Word, e, depth)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				w.substs(p, e, depth)
			}
			w.block(it.Stmts, e, depth)
		}
	}
}

// nested walks the other commands: subshells, function bodies, time, coproc, test
// declarations, declarations, and the ones only their substitutions can act in.
func (w *walker) nested(c syntax.Command, e *env, depth int, piped bool) {
	switch c := c.(type) {
	case *syntax.Subshell:
		w.stmts(c.Stmts, isolated(e), depth)
	case *syntax.FuncDecl:
		// The body may be called later, from anywhere: classify it once, as
		// if it ran here, without letting its cd leak.
		w.stmt(c.Body, isolated(e), depth, false)
	case *syntax.TimeClause:
		w.stmt(c.Stmt, e, depth, piped)
	case *syntax.CoprocClause:
		w.stmt(c.Stmt, isolated(e), depth, false)
	case *syntax.TestDecl:
		w.stmt(c.Body, isolated(e), depth, false)
	case nil:
	case *syntax.DeclClause:
		// export/declare/local/readonly NAME=VALUE assign like NAME=VALUE.
		w.substs(c, e, depth)
		var as []*syntax.Assign
		for _, a := range c.Args {
			if a.Name != nil {
				as = append(as, a)
			}
		}
		w.assign(as, e)
	default:
		// LetClause, TestClause, ArithmCmd: only their substitutions can act.
		w.substs(c, e, depth)
	}
}

// isolated is a copy of e for code that runs in a subshell: its cd does not leak.
func isolated(e *env) *env {
	sub := *e
	return &sub
}

// codeVars are variables whose value the shell or a tool runs as code or
// loads as a script: setting one runs something nobody can see.
var codeVars = map[string]bool{
	"BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
	"EDITOR": true, "VISUAL": true, "GIT_PAGER": true, "PAGER": true, "GIT_EXTERNAL_DIFF": true,
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "LD_PRELOAD": true,
	"GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true, "GIT_DIR": true, "GIT_WORK_TREE": true,
	"PERL5OPT": true, "PYTHONSTARTUP": true, "PYTHONPATH": true, "NODE_OPTIONS": true, "RUBYOPT": true,
}

// assign records NAME=VALUE assignments in e.
func (w *walker) assign(as []*syntax.Assign, e *env) {
	for _, a := range as {
		if a.Name == nil || a.Index != nil || a.Array != nil {
			continue
		}
		name := a.Name.Value
		v := arg{exact: true}
		if a.Value != nil {
			v = wordArg(a.Value, e)
		}
		if a.Append {
			if old, ok := find(e.vars, name); ok {
				v = arg{s: old.s + v.s, exact: old.exact && v.exact}
			} else {
				v.exact = false
			}
		}
		v.pos, v.end = 0, 0
		e.vars = bind(e.vars, name, v)
		switch {
		case name == "CDPATH":
			e.cdpath = true
		case codeVars[name] || strings.HasPrefix(name, "GIT_CONFIG_"):
			w.unknownWrite()
			if name == "BASH_ENV" || name == "ENV" {
				w.addRun(v, "sh", "", e) // the script a shell started later loads
			}
		}
	}
}

// substs classifies the commands inside command and process substitutions
// found anywhere below n; each runs in a subshell.
func (w *walker) substs(n syntax.Node, e *env, depth int) {
	if n == nil {
		return
	}
	if wd, ok := n.(*syntax.Word); ok && (wd == nil || isPlain(wd)) {
		return // the common case: nothing to walk
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			sub := *e
			w.feeds++
			w.stmts(x.Stmts, &sub, depth)
			w.feeds--
			return false
		case *syntax.ProcSubst:
			sub := *e
			w.feeds++
			w.stmts(x.Stmts, &sub, depth)
			w.feeds--
			return false
		}
		return true
	})
}

func isPlain(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

// stdin is what a simple command reads its standard input from, which
// matters for interpreters: `python3 <<EOF` runs the heredoc as code.
type stdin struct {
	piped bool
	hdoc  *arg // heredoc or here-string text
	file  bool
}

// devNull lists targets that discard or echo output rather than store it.
func isDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full", "/dev/stdin":
		return true
	}
	n, ok := fdPath(p)
	return ok && (n == "0" || n == "1" || n == "2")
}

// fdPath returns N for /dev/fd/N and /proc/self/fd/N (or /proc/PID/fd/N):
// a name for whatever file descriptor N has open.
func fdPath(p string) (string, bool) {
	var n string
	switch {
	case strings.HasPrefix(p, "/dev/fd/"):
		n = p[len("/dev/fd/"):]
	case strings.HasPrefix(p, "/proc/"):
		rest := p[len("/proc/"):]
		_, rest, _ = strings.Cut(rest, "/")
		var ok bool
		if n, ok = strings.CutPrefix(rest, "fd/"); !ok {
			return "", false
		}
	default:
		return "", false
	}
	if !isDigits(n) {
		return "", false
	}
	return n, true
}

// isStdinPath reports a path that names the standard input.
func isStdinPath(p string) bool {
	n, ok := fdPath(p)
	return p == "/dev/stdin" || p == "-" || ok && n == "0"
}

// noteFd remembers the file a redirect like 3<memory-bank/MEMORY.md opens, so
// that a later write to /dev/fd/3 is a write of that file.
func (w *walker) noteFd(r *syntax.Redirect, a arg, e *env) {
	if r.N == nil || !a.exact || a.s == "" {
		return
	}
	p, ok := resolve(a.s, e)
	if !ok {
		p = a.s
	}
	e.fds = bind(e.fds, r.N.Value, arg{s: p, exact: ok})
}

func (w *walker) redirect(r *syntax.Redirect, e *env, in *stdin) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		a := wordArg(r.Word, e)
		w.writeArg(a, "redirect", e)
		w.noteFd(r, a, e)
	case syntax.DplOut:
		// >&2 and >&- duplicate descriptors; bash reads `>& file` as &> file.
		a := wordArg(r.Word, e)
		if a.exact && (a.s == "-" || isDigits(strings.TrimSuffix(a.s, "-"))) {
			return
		}
		w.writeArg(a, "redirect", e)
	case syntax.RdrIn:
		a := wordArg(r.Word, e)
		in.file = true
		w.readArg(a, "redirect", e)
		w.noteFd(r, a, e)
		if a.exact && isStdinPath(a.s) {
			in.file = false
		}
	case syntax.Hdoc, syntax.DashHdoc:
		a := wordArg(r.Hdoc, e)
		in.hdoc = &a
	case syntax.WordHdoc:
		a := wordArg(r.Word, e)
		in.hdoc = &a
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// resolve joins a literal path onto the working directory. ok is false when
// the path is relative to a directory that could not be tracked.
func resolve(p string, e *env) (string, bool) {
	if p == "" {
		return "", false
	}
	if e != nil && winDir(e.dir) {
		q, abs := winResolve(p, e.dir)
		if abs {
			return q, true
		}
		p = q
	}
	if p[0] == '/' || p[0] == '~' {
		// ~ needs $HOME, which a pure package does not have: keep it as
		// written. It is a known place all the same: never the working
		// directory's relative, and a memory-bank/ below it is spelt out.
		return rooted(p, e), true
	}
	if !e.known {
		return path.Clean(p), false
	}
	if winDir(e.dir) {
		return e.throughLinks(winClean(e.dir + "/" + p)), true // a share keeps its "//"
	}
	return e.throughLinks(path.Join(e.dir, p)), true
}

// winResolve reads p as Git Bash on Windows does, in the working directory dir: C:/x, C:\x,
// \\?\C:\x and //server/x are absolute there (abs reports them, cleaned); any other path comes
// back with forward slashes, never empty.
func winResolve(p, dir string) (string, bool) {
	p = strings.ReplaceAll(p, `\`, "/")
	if len(p) >= 2 && p[1] == ':' && (len(p) == 2 || p[2] != '/') && p[0]|0x20 == dir[0]|0x20 {
		p = p[2:] // C:x is x in drive C's directory: the shell's own when it is on C
	} else if winAbs(p) {
		return winClean(p), true
	}
	if p == "" {
		p = "."
	}
	return p, false
}

// rooted resolves a path that starts with / or ~.
func rooted(p string, e *env) string {
	if e != nil && len(e.links) > 0 && p[0] == '/' {
		return e.throughLinks(path.Clean(p))
	}
	if p[0] == '/' {
		p = path.Clean(p)
	}
	return p
}

// throughLinks rewrites a path that goes through a symlink made earlier in the
// same command line (ln -s memory-bank x; rm x/MEMORY.md).
func (e *env) throughLinks(p string) string {
	for i := len(e.links) - 1; i >= 0; i-- {
		l := e.links[i]
		if p == l.name {
			return l.val.s
		}
		if rest, ok := strings.CutPrefix(p, l.name+"/"); ok {
			return path.Join(l.val.s, rest)
		}
	}
	return p
}

// writeArg records a write of the path in a. A word that is not fully literal
// yields its literal prefix, with the trailing slash kept, so that a prefix
// check for "memory-bank/" still matches `memory-bank/$X`.
func (w *walker) writeArg(a arg, op string, e *env) {
	if a.exact && isDevice(a.s) {
		return
	}
	w.res.Write = true
	if !a.exact && mayNameBank(a.pat) && !mayNameBank(a.s) {
		// "${x}-bank", "$D/memory-ba"*: the word may well spell the bank
		// once expanded; judge it as a write there.
		w.addWrite(Access{Path: e.bankHint(), Op: op, Unknown: true})
	}
	if n, ok := fdPath(a.s); ok && a.exact {
		// A descriptor the line opened names its file; any other was
		// inherited from somewhere mbguard cannot see.
		if f, known := find(e.fds, n); known {
			w.addWrite(Access{Path: f.s, Op: op, Unknown: !f.exact})
			return
		}
		w.res.Unknown = true
		return
	}
	if !a.exact {
		w.res.Unknown = true
		if a.s == "" {
			return
		}
		p, _ := resolve(a.s, e)
		if strings.HasSuffix(a.s, "/") && !strings.HasSuffix(p, "/") {
			p += "/"
		}
		w.addWrite(Access{Path: p, Op: op, Unknown: true})
		return
	}
	if a.s == "" {
		return
	}
	p, ok := resolve(a.s, e)
	if !ok {
		w.res.Unknown = true
	}
	w.addWrite(Access{Path: p, Op: op, Unknown: !ok})
}

// writeDir records that unknown entries below the directory in a are
// written. The path gets a trailing slash: it is a prefix, like the prefix
// of a partly literal word.
func (w *walker) writeDir(a arg, op string, e *env) {
	w.res.Write = true
	if !a.exact {
		w.writeArg(a, op, e)
		return
	}
	p, ok := resolve(a.s, e)
	if !ok {
		// Its place is unknown: so is what it writes. A known directory is
		// not an unknown write: the Tree access says all there is.
		w.res.Unknown = true
	}
	if p == "" {
		p = "."
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	w.addWrite(Access{Path: p, Op: op, Unknown: true, Tree: true})
}

// readArg records a read; reads that cannot be pinned down are dropped
// because a read only ever relaxes the gate.
func (w *walker) readArg(a arg, op string, e *env) {
	if !a.exact || a.s == "" || a.s == "-" || isDevice(a.s) {
		return
	}
	p, ok := resolve(a.s, e)
	if !ok && !strings.HasPrefix(p, "~") {
		return
	}
	w.res.Reads = w.add(w.res.Reads, Access{Path: p, Op: op}, false)
	if a.end > a.pos && w.feeds == 0 && w.spanOK {
		w.res.ReadSpans = append(w.res.ReadSpans, [2]int{a.pos, a.end})
	}
}

// carryArg records a path whose bytes op copies, archives or links elsewhere (Result.Carries);
// a word built at run time is left out, as readArg leaves it.
func (w *walker) carryArg(a arg, op string, e *env) {
	if !a.exact || a.s == "" || a.s == "-" || isDevice(a.s) {
		return
	}
	p, ok := resolve(a.s, e)
	if !ok && !strings.HasPrefix(p, "~") {
		return
	}
	acc := Access{Path: p, Op: op}
	if len(w.res.Carries) < 64 && !hasAccess(w.res.Carries, acc) {
		w.res.Carries = append(w.res.Carries, acc)
	}
}

func (w *walker) carryAll(args []arg, op string, e *env) {
	for _, a := range args {
		w.carryArg(a, op, e)
	}
}

func (w *walker) addWrite(a Access) {
	w.res.Writes = w.add(w.res.Writes, a, true)
}

// Run is a file a command runs (see Result.Runs).
type Run struct {
	Path string // resolved like a written path (absolute when cwd was)
	// Kind says how its content is run: "sh" (a shell script, or an executable whose
	// first line decides), "python", "node", "perl", "ruby", "php", "make" (recipes, Arg
	// the targets), "npm" (package.json, Arg the script) or "patch" (the files it names are
	// written).
	Kind string
	Arg  string
	// Dir is the directory its content runs in (the command's, or make -C's); "" when
	// unknown.
	Dir string
}

// maxRuns bounds the files one command line may ask a caller to read.
const maxRuns = 8

func (w *walker) addRun(a arg, kind, extra string, e *env) {
	if !a.exact || a.s == "" || a.s == "-" || isStdinPath(a.s) || len(w.res.Runs) >= maxRuns {
		return
	}
	p, ok := resolve(a.s, e)
	if !ok {
		return
	}
	dir := ""
	if e.known {
		dir = e.dir
	}
	w.res.Runs = append(w.res.Runs, Run{Path: p, Kind: kind, Arg: extra, Dir: dir})
}
