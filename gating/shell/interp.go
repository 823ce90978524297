package shell

import (
	"path"
	"strings"
	"sync"
)

// interpreter describes how a language runtime takes inline code.
type interpreter struct {
	flags flagSpec
	code  []string // options whose value is inline code
	// sub is a subcommand whose first operand is code (deno eval).
	sub string
	// module is the option that runs a library module as a program (python -m).
	module string
}

var interpreters = sync.OnceValue(func() map[string]interpreter {
	return map[string]interpreter{
		"python":    {flags: flagSpec{short: "cmWXQ", stopAtOperand: true}, code: []string{"-c"}, module: "-m"},
		"node":      {flags: flagSpec{short: "eprC", long: []string{"--eval", "--print", "--require", "--import", "--input-type", "--loader", "--conditions"}, stopAtOperand: true}, code: []string{"-e", "--eval", "-p", "--print"}},
		"ruby":      {flags: flagSpec{short: "erICEF", stopAtOperand: true}, code: []string{"-e"}},
		"perl":      {flags: flagSpec{short: "eEIMmF", stopAtOperand: true}, code: []string{"-e", "-E"}},
		"php":       {flags: flagSpec{short: "rfdcBRE", stopAtOperand: true}, code: []string{"-r", "-B", "-R", "-E"}},
		"deno":      {flags: flagSpec{stopAtOperand: true}, sub: "eval"},
		"bun":       {flags: flagSpec{short: "ep", long: []string{"--eval", "--print"}, stopAtOperand: true}, code: []string{"-e", "--eval", "-p", "--print"}, sub: "eval"},
		"osascript": {flags: flagSpec{short: "els", stopAtOperand: true}, code: []string{"-e"}},
		"lua":       {flags: flagSpec{short: "el", stopAtOperand: true}, code: []string{"-e"}},
		"Rscript":   {flags: flagSpec{short: "e", stopAtOperand: true}, code: []string{"-e"}},
		"julia":     {flags: flagSpec{short: "eEL", long: []string{"--eval", "--print"}, stopAtOperand: true}, code: []string{"-e", "-E", "--eval", "--print"}},
		"pwsh":      {flags: flagSpec{stopAtOperand: true}, code: []string{"-c", "-Command", "-command"}},
		"tsx":       {flags: flagSpec{short: "ep", long: []string{"--eval", "--print"}, stopAtOperand: true}, code: []string{"-e", "--eval", "-p", "--print"}},
		"ts-node":   {flags: flagSpec{short: "ep", long: []string{"--eval", "--print"}, stopAtOperand: true}, code: []string{"-e", "--eval", "-p", "--print"}},
	}
})

// interpName folds versioned names (python3.12, nodejs, powershell) onto
// their interpreter.
func interpName(name string) string {
	switch {
	case strings.HasPrefix(name, "python"), name == "pypy", name == "pypy3":
		return "python"
	case name == "nodejs":
		return "node"
	case name == "powershell":
		return "pwsh"
	case strings.HasPrefix(name, "php"), strings.HasPrefix(name, "ruby"), strings.HasPrefix(name, "perl"), strings.HasPrefix(name, "lua"):
		for _, p := range []string{"php", "ruby", "perl", "lua"} {
			if strings.HasPrefix(name, p) && strings.Trim(name[len(p):], "0123456789.") == "" {
				return p
			}
		}
	}
	return name
}

// interp classifies an interpreter run: inline code is scanned, a script
// file is not (see the package doc).
func (w *walker) interp(it interpreter, name string, args []arg, e *env, in *stdin) {
	if pwshStyle(it) {
		w.pwshCode(it, args, e)
		return
	}
	if w.interpModule(it, args, e) {
		return
	}
	opts, ops := parseArgs(nodePrintEval(it, args), it.flags)
	if w.inlineCode(it, opts, e) {
		// perl -ne print FILE, python -c CODE FILE: the code is handed the operands, and
		// reads them (perl -n, -p) or may; a read is what a caller that keeps a file's text
		// from the agent needs to know
		w.readAll(ops, name, e)
		return
	}
	if it.sub != "" && len(ops) > 0 && ops[0].s == it.sub {
		// deno eval [opts] CODE
		_, sub := parseArgs(ops[1:], flagSpec{stopAtOperand: true})
		if len(sub) > 0 {
			w.inline(sub[0], e)
		}
		return
	}
	w.interpProgram(name, ops, e, in)
}

// pwshCode judges the code of a PowerShell run: its options are single-dash words, not
// letter clusters.
func (w *walker) pwshCode(it interpreter, args []arg, e *env) {
	for i, a := range args {
		for _, c := range it.code {
			if strings.EqualFold(a.s, c) && i+1 < len(args) {
				w.inline(args[i+1], e)
				return
			}
		}
	}
}

// interpModule judges python -m zipfile -c memory-bank/x.zip …: a module run with
// arguments is judged by the files it names, like any program mbguard does not know. It
// reports false when the line runs no module.
func (w *walker) interpModule(it interpreter, args []arg, e *env) bool {
	if it.module == "" {
		return false
	}
	for i, a := range args {
		if !a.exact || !strings.HasPrefix(a.s, "-") {
			break
		}
		if a.s == it.module && i+1 < len(args) {
			w.namedArgs("python -m "+args[i+1].s, args[i+2:], e)
			return true
		}
		if strings.HasPrefix(a.s, it.module) && len(a.s) > len(it.module) {
			w.namedArgs("python "+a.s, args[i+1:], e)
			return true
		}
	}
	return false
}

// nodePrintEval rewrites node -pe CODE (and -ep) as -p CODE: both letters ask for the next
// argument as code.
func nodePrintEval(it interpreter, args []arg) []arg {
	if len(it.code) == 0 || it.code[0] != "-e" || !strings.HasPrefix(it.flags.short, "ep") {
		return args
	}
	for i, a := range args {
		if a.exact && (a.s == "-pe" || a.s == "-ep") {
			args = append(append(args[:i:i], arg{s: "-p", exact: true}), args[i+1:]...)
		}
	}
	return args
}

// inlineCode judges the code handed to an interpreter's code options (-e, -c …) and reports
// whether there was any.
func (w *walker) inlineCode(it interpreter, opts []opt, e *env) bool {
	seen := false
	for _, o := range opts {
		for _, c := range it.code {
			if o.name == c && o.has {
				w.inline(o.value, e)
				seen = true
			}
		}
	}
	return seen
}

// interpProgram judges an interpreter run on a program: stdin, a file made at run time, or
// a script (which is run, and handed its arguments).
func (w *walker) interpProgram(name string, ops []arg, e *env, in *stdin) {
	switch {
	case len(ops) == 0 || ops[0].s == "-":
		w.stdinCode(in, func(code string) { w.inline(arg{s: code, exact: true}, e) })
	case !ops[0].exact:
		// python <(…), node "$F": the program is made at run time.
		w.unknownWrite()
		w.namedArgs("interpreter", ops[1:], e)
	case isStdinPath(ops[0].s):
		w.stdinCode(in, func(code string) { w.inline(arg{s: code, exact: true}, e) })
		if in.hdoc == nil && !in.piped {
			w.unknownWrite()
		}
	default:
		if _, ok := fdPath(ops[0].s); ok {
			w.unknownWrite()
		}
		w.addRun(ops[0], name, "", e)
		// A script handed memory-bank/ paths may well write them: unless a caller that
		// reads the script finds it cannot write (Access.Via).
		n := len(w.res.Writes)
		w.namedArgs(path.Base(ops[0].s), ops[1:], e)
		if via, ok := resolve(ops[0].s, e); ok {
			for i := n; i < len(w.res.Writes); i++ {
				w.res.Writes[i].Via = via
			}
		}
	}
}

func pwshStyle(it interpreter) bool {
	return len(it.code) > 1 && it.code[1] == "-Command"
}

// inplaceInterp handles perl and ruby, which besides -e code can edit files
// in place with -i[SUFFIX].
func (w *walker) inplaceInterp(name string, args []arg, e *env, in *stdin) {
	it := interpreters()[name]
	spec := it.flags
	spec.optional = "i"
	spec.stopAtOperand = false
	opts, ops := parseArgs(args, spec)
	if !hasOpt(opts, "-i") {
		w.interp(it, name, args, e, in)
		return
	}
	if code := w.inlineCode(it, opts, e); !code && len(ops) > 0 {
		ops = ops[1:] // the script file
	}
	w.writeAll(ops, name+" -i", e)
}

// literal is a string literal found in inline code.
type literal struct {
	value string
	start int // offset of the opening quote
}

// stringLiterals scans code for '…', "…" and `…` literals. It knows no
// language: it only has to find the paths a snippet names, and it errs
// towards finding more.
func stringLiterals(code string) []literal {
	var out []literal
	for i := 0; i < len(code); i++ {
		q := code[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		j := i + 1
		for ; j < len(code) && code[j] != q; j++ {
			if code[j] == '\\' && j+1 < len(code) {
				j++
			}
		}
		if j >= len(code) {
			break
		}
		// escapes are decoded the way the languages do (\x6b is k)
		out = append(out, literal{value: ansiC(code[i+1 : j]), start: i})
		i = j
	}
	return out
}

// writeMarkers are calls through which inline code changes files.
var writeMarkers = []string{
	"write", "append", "unlink", "remove", "rmdir", "rmtree", "rename", "replace(",
	"mkdir", "makedirs", "copy", "move", "truncate", "symlink", "link(", "hardlink_to", "lchmod",
	"make_archive", "unpack_archive",
	"chmod", "chown", "touch(", "FileUtils", "file_put_contents", "fopen", "system",
	"exec", "spawn", "subprocess", "popen", "child_process", "rm(", "rmSync", "cp(",
	"cpSync", "open(", "open ", "sysopen", "print {", "eval", "__import__", "getattr",
	"compile(", "Function(", "qx", "%x", "`", "do shell script", "delete", "save",
	"to_csv", "to_json", "to_parquet", "to_excel", "dump(", "emptyDir", "outputFile",
	"ensureFile", "ensureDir", "mkdtemp", "mkstemp", "NamedTemporaryFile",
	// opening for writing without the word write: os.open flags, Node's
	// openSync/open with a mode, links, Ruby's IO and File.new, Perl's modes
	"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND", "openSync", "linkSync", "createWriteStream",
	"IO.", "File.new", "syswrite", "fs.open", "fsPromises", "promises.open", "Deno.", "Bun.",
	"utime", "lchown", "mkfifo", "mknod", "binmode",
	// pathlib, os and shutil are not markers by themselves: their read methods (read_text,
	// stat, exists, glob, disk_usage) are reads; their write methods are listed above.
}

// hasMarker reports m in src where it starts a word or follows a dot, so
// that "perform(" is not "rm(" and "filesystem" is not "system".
func hasMarker(src, m string) bool {
	for off := 0; ; {
		i := strings.Index(src[off:], m)
		if i < 0 {
			return false
		}
		i += off
		if i == 0 || !isIdent(src[i-1]) || !isIdent(m[0]) {
			return true
		}
		off = i + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// writeMode reports an open() mode that writes.
func writeMode(s string) bool {
	if s == "" || len(s) > 4 || strings.Trim(s, "rwaxbt+U") != "" {
		return false
	}
	return strings.ContainsAny(s, "wax+")
}

// inline classifies inline interpreter code. Path-like literals are writes
// when the code can write at all; otherwise they are reads.
func (w *walker) inline(code arg, e *env) {
	w.res.Interpreter = true
	if !code.exact {
		// Code assembled at run time: anything goes.
		w.unknownWrite()
	}
	src := code.s
	if code.exact {
		src = w.nodeArgvCalls(w.argvCalls(src, e), e)
	}
	lits := stringLiterals(src)
	writes := inlineWrites(src, lits)
	paths, named := w.inlinePaths(src, lits, writes, e)
	if !writes {
		return
	}
	w.res.Write = true
	if paths == 0 || builtPath(src) {
		// The target is computed, or not a literal: it is unknown.
		w.res.Unknown = true
		if !named && spellsBank(src, lits) {
			// 'memory-' + 'bank', "memory-ban\x6b", ['memory','bank'].join('-'):
			// the code spells the bank in pieces.
			w.writeArg(arg{s: bankName + "/"}, "interpreter", e)
		}
	}
}

// inlineWrites reports inline code that may write files: a write marker, and for open()
// alone (Python/Ruby's only writes with a write mode, Perl's with '>' or '>>') a mode that
// writes.
func inlineWrites(src string, lits []literal) bool {
	writes := false
	for _, m := range writeMarkers {
		if hasMarker(src, m) {
			writes = true
			break
		}
	}
	if !writes || otherWriteMarker(src) {
		return writes
	}
	for _, l := range lits {
		if writeMode(l.value) || strings.HasPrefix(l.value, ">") || strings.HasPrefix(l.value, "+<") || strings.HasPrefix(l.value, "+>") {
			return true
		}
	}
	return strings.Contains(src, "mode=")
}

// inlinePaths records the paths inline code names as literals, written when the code
// writes (unless opened to read) and read otherwise; it counts them, and reports whether one
// names the bank.
func (w *walker) inlinePaths(src string, lits []literal, writes bool, e *env) (paths int, named bool) {
	for _, l := range lits {
		p := strings.TrimLeft(l.value, "+<> ") // Perl's open('>file')
		if !looksLikePath(p) {
			continue
		}
		paths++
		named = named || strings.Contains(p, bankName)
		a := arg{s: p, exact: true}
		if writes && !readOpen(src, l) {
			w.writeArg(a, "interpreter", e)
		} else {
			w.readArg(a, "interpreter", e)
		}
	}
	return paths, named
}

// spellsBank reports code that assembles the bank's name: its string literals
// joined, escapes decoded, with everything but letters dropped, hold
// "memorybank"; or the code mentions "bank" at all while building a path.
func spellsBank(src string, lits []literal) bool {
	var b strings.Builder
	for _, l := range lits {
		b.WriteString(ansiC(l.value))
	}
	b.WriteString(" ")
	b.WriteString(ansiC(src))
	norm := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, b.String())
	return strings.Contains(norm, "memorybank") || strings.Contains(norm, "bank")
}

// otherWriteMarker reports a write call other than open(), which alone may
// be a read.
func otherWriteMarker(src string) bool {
	for _, m := range writeMarkers {
		if m == "open(" || m == "open " {
			continue
		}
		if hasMarker(src, m) {
			return true
		}
	}
	return false
}

// builtPath reports code that assembles paths at run time (joins,
// formatting, concatenation), so the literals found are only parts.
func builtPath(src string) bool {
	for _, m := range []string{"join(", "Path(", "resolve(", "format(", "${", "f'", "f\"", "%", " + ", "\" +", "' +", "+ '", "+ \"", "'+", "+'", "\"+", "+\"", "glob", "$", "sprintf", "/ '", "/ \"", "walk", "listdir", "readdir", "scandir", "argv", "environ", "getenv", "ENV", "input("} {
		if strings.Contains(src, m) {
			return true
		}
	}
	return false
}

// looksLikePath accepts literals with a slash or a file extension, and
// rejects URLs, modes and prose.
func looksLikePath(s string) bool {
	if s == "" || len(s) > 4096 || strings.ContainsAny(s, " \t\n\r") || strings.Contains(s, "://") {
		return false
	}
	if strings.Contains(s, "/") {
		return true
	}
	return hasExt(s) || s == "memory-bank"
}

// readOpen reports a literal that is the path of an open() call in read mode — open('f'),
// open('f', 'rb'), open('f', encoding='utf-8') — in Python or Ruby: that file is only read,
// whatever else the code writes (open('out.txt','w').write(open('memory-bank/MEMORY.md').read())).
// os.open, fs.open and friends take flags, not a mode, and never count.
func readOpen(src string, l literal) bool {
	if !builtinOpenAt(src, l) {
		return false
	}
	args, ok := openCallRest(src, l)
	if !ok || strings.Contains(args, "mode") || strings.Contains(args, "O_") || strings.Contains(args, "opener") {
		return false
	}
	for _, m := range stringLiterals(args) {
		if writeMode(m.value) {
			return false
		}
	}
	// a positional mode that is not a literal (open(p, m)) may be anything
	for _, part := range strings.Split(args, ",")[min(1, len(strings.Split(args, ","))):] {
		t := strings.TrimSpace(part)
		if t != "" && !strings.Contains(t, "=") && t[0] != '\'' && t[0] != '"' {
			return false
		}
	}
	return true
}

// builtinOpenAt reports a literal that is the first argument of the builtin open( (not
// os.open(, fs.open(, sysopen().
func builtinOpenAt(src string, l literal) bool {
	before := strings.TrimRight(src[:l.start], " \t")
	if !strings.HasSuffix(before, "open(") {
		return false
	}
	b := strings.TrimSuffix(before, "open(")
	return b == "" || !isIdent(b[len(b)-1]) && b[len(b)-1] != '.'
}

// openCallRest is the rest of the open( call whose first argument is l, up to its closing
// parenthesis; false when the call does not end in src.
func openCallRest(src string, l literal) (string, bool) {
	rest := src[l.start:]
	q := rest[0]
	end := strings.IndexByte(rest[1:], q)
	if end < 0 {
		return "", false
	}
	rest = rest[end+2:]
	depth, i := 0, 0
	for ; i < len(rest) && depth >= 0; i++ {
		switch rest[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	if depth >= 0 {
		return "", false // the call does not end here
	}
	return rest[:i-1], true
}

// argvCalls judges each subprocess call with a literal argument list in Python code
// (subprocess.run(['git', 'log', '--', 'memory-bank'])) as the command it runs, and returns
// the code with those calls blanked out, so that what is left is judged on its own. A
// plain `import subprocess` then goes too; an aliased import or shell=True keeps the code
// as it was.
func (w *walker) argvCalls(src string, e *env) string {
	if !strings.Contains(src, "subprocess.") || strings.Contains(src, "shell=") {
		return src
	}
	b := []byte(src)
	found := false
	for _, fn := range []string{"run", "call", "check_call", "check_output", "Popen"} {
		m := "subprocess." + fn + "("
		for off := 0; ; {
			i := strings.Index(src[off:], m)
			if i < 0 {
				break
			}
			i += off
			off = i + len(m)
			if i > 0 && (isIdent(src[i-1]) || src[i-1] == '.') {
				continue
			}
			words, end, ok := literalList(src, off)
			if !ok || len(words) == 0 {
				continue
			}
			w.reparse(argvLine(words), e, w.depth)
			blank(b, i, end)
			found = true
		}
	}
	if !found {
		return src
	}
	out := string(b)
	rest := strings.ReplaceAll(strings.ReplaceAll(out, "import subprocess;", ""), "import subprocess\n", "\n")
	if strings.HasSuffix(strings.TrimSpace(rest), "import subprocess") {
		rest = strings.TrimSuffix(strings.TrimSpace(rest), "import subprocess")
	}
	if strings.Contains(rest, "subprocess") {
		// used some other way as well: the module stays a write marker
		return out
	}
	return rest
}

// literalList parses a Python list of string literals starting at src[i] (spaces allowed
// before it): ['git', "log"]. end is the offset after the closing bracket.
func literalList(src string, i int) (words []string, end int, ok bool) {
	i = skipBlanks(src, i)
	if i >= len(src) || src[i] != '[' {
		return nil, 0, false
	}
	i++
	for {
		i = skipBlanks(src, i)
		if i < len(src) && src[i] == ']' {
			return words, i + 1, true
		}
		word, j, ok := plainQuoted(src, i)
		if !ok {
			return nil, 0, false
		}
		words = append(words, word)
		i = skipBlanks(src, j)
		if i < len(src) && src[i] == ',' {
			i++
		}
	}
}

// skipBlanks returns the index of the first character at or after i that is no space, tab
// or newline.
func skipBlanks(src string, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n') {
		i++
	}
	return i
}

// plainQuoted reads the '…' or "…" literal without escapes at i: its text, and the index
// after it.
func plainQuoted(src string, i int) (word string, next int, ok bool) {
	if i >= len(src) || src[i] != '\'' && src[i] != '"' {
		return "", 0, false
	}
	q := src[i]
	j := i + 1
	for ; j < len(src) && src[j] != q; j++ {
		if src[j] == '\\' {
			return "", 0, false // escapes: not worth decoding here
		}
	}
	if j >= len(src) {
		return "", 0, false
	}
	return src[i+1 : j], j + 1, true
}

// nodeArgvCalls is argvCalls for Node: require('child_process').execFileSync('git', ['log'])
// (or spawnSync, execFile, spawn) with a literal program and argument list is judged as that
// command, and blanked out. Any other use of child_process keeps it a write marker.
func (w *walker) nodeArgvCalls(src string, e *env) string {
	if !strings.Contains(src, "child_process") {
		return src
	}
	b := []byte(src)
	found := false
	for _, q := range []string{"'", "\"", "`"} {
		for _, fn := range []string{"execFileSync", "spawnSync", "execFile", "spawn"} {
			m := "require(" + q + "child_process" + q + ")." + fn + "("
			for off := 0; ; {
				i := strings.Index(src[off:], m)
				if i < 0 {
					break
				}
				i += off
				off = i + len(m)
				prog, j, ok := literalAt(src, off)
				if !ok {
					continue
				}
				for j < len(src) && (src[j] == ' ' || src[j] == ',') {
					j++
				}
				words, end, ok := literalList(src, j)
				if !ok || strings.Contains(src[end:], "shell") {
					continue
				}
				w.reparse(argvLine(append([]string{prog}, words...)), e, w.depth)
				blank(b, i, end)
				found = true
			}
		}
	}
	if !found || strings.Contains(string(b), "child_process") {
		return src
	}
	return string(b)
}

// literalAt parses one '…' or "…" literal without escapes at src[i] (spaces allowed before
// it); j is the offset after it.
// argvLine is a command line that runs the argument vector words: each word single-quoted.
func argvLine(words []string) string {
	q := make([]string, len(words))
	for k, s := range words {
		q[k] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// blank overwrites b[i:end] with spaces: a call judged on its own, taken out of the code.
func blank(b []byte, i, end int) {
	for k := i; k < end; k++ {
		b[k] = ' '
	}
}

func literalAt(src string, i int) (s string, j int, ok bool) {
	for i < len(src) && src[i] == ' ' {
		i++
	}
	if i >= len(src) || src[i] != '\'' && src[i] != '"' {
		return "", 0, false
	}
	k := strings.IndexByte(src[i+1:], src[i])
	if k < 0 || strings.Contains(src[i+1:i+1+k], "\\") {
		return "", 0, false
	}
	return src[i+1 : i+1+k], i + k + 2, true
}

// interpreterCommands registers the language runtimes: inline code is judged by what it
// calls, a script by what it can do once read.
func interpreterCommands() []command {
	return []command{{names: mapKeys(interpreters()) + " nodejs powershell pypy pypy3", family: "interpreters", does: "runs inline code (judged by its calls) or a script",
		handle: always(func(w *walker, c *invocation) {
			n := interpName(c.name)
			w.interp(interpreters()[n], n, c.args, c.e, c.in)
		})}}
}
