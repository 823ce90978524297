package shell

import (
	"strings"
)

// ClassifyPowerShell reports the paths a PowerShell command line (Claude Code's PowerShell
// tool, pwsh -Command) reads and writes, in the same Result as Classify. It tokenises the
// line (lexPS) and judges each command of each pipeline by a table of cmdlets and their
// aliases: their path parameters (named, abbreviated or positional), redirections, static
// .NET file calls ([IO.File]::WriteAllText), and the code inside script blocks,
// subexpressions and strings. A command the tables do not know is judged as bash judges an
// unknown command — a write of every path it is handed that names memory-bank/ —, and a
// line that does not tokenise is an unknown write. Like Classify it is pure and never panics.
func ClassifyPowerShell(cmd, cwd string) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Write: true, Unknown: true, ParseError: "internal error in PowerShell classifier"}
		}
	}()
	return classifyPS(cmd, cwd)
}

func classifyPS(cmd, cwd string) Result {
	var res Result
	if len(cmd) > MaxInput {
		res.ParseError = "command longer than 256 KiB"
		res.Write, res.Unknown = true, true
		return res
	}
	p := psWalker{w: walker{res: &res, spanOK: true}}
	e := env{dir: cleanDir(cwd), known: true, top: true}
	p.line(cmd, &e, 0)
	return res
}

type psWalker struct {
	w walker
	// spanless is set once the line calls an instance method that can write (.Delete(),
	// .MoveTo()): its target is a value read elsewhere in the line, so no word of the line
	// may be left out of what the caller looks for names in.
	spanless bool
}

// line classifies one piece of PowerShell code in the directory e.
func (p *psWalker) line(src string, e *env, depth int) {
	res := p.w.res
	if depth > maxDepth {
		p.w.unknownWrite()
		return
	}
	toks, err := lexPS(src)
	if err != nil {
		res.ParseError = "PowerShell: " + err.Error()
		res.Write, res.Unknown = true, true
	}
	for _, t := range toks {
		for _, c := range t.code {
			p.line(c, e, depth+1)
		}
	}
	p.stmts(toks, e, depth)
	if p.spanless {
		res.ReadSpans = nil
		p.w.spanOK = false
	}
	if depth == 0 && len(res.Writes) > 0 {
		res.Write = true
	}
}

// stmts judges every command in toks. A method call's argument list stays with its call
// (the call judges its arguments), and is also walked for commands of its own.
func (p *psWalker) stmts(toks []psTok, e *env, depth int) {
	start := 0
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && toks[i].kind == psSep && toks[i].s == "(" && i > 0 && toks[i-1].kind == psMember {
			j := psClose(toks, i)
			p.stmts(toks[i+1:j], e, depth)
			i = j
			continue
		}
		if i == len(toks) || toks[i].kind == psSep || toks[i].kind == psPipe {
			p.command(toks[start:i], e, depth)
			start = i + 1
		}
	}
}

// psClose returns the index of the ")" closing the "(" at toks[i], or len(toks).
func psClose(toks []psTok, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		if toks[j].kind != psSep {
			continue
		}
		switch toks[j].s {
		case "(", "$(", "@(":
			depth++
		case ")":
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return len(toks)
}

// psFileMethods are the .NET methods that write the files their first n string arguments
// name (n is the value), on [IO.File], [IO.Directory], [IO.FileInfo] …
var psFileMethods = map[string]int{
	"writealltext": 1, "writealllines": 1, "writeallbytes": 1, "appendalltext": 1, "appendalllines": 1,
	"create": 1, "createtext": 1, "appendtext": 1, "delete": 1, "open": 1, "openwrite": 1,
	"move": 2, "copy": 2, "replace": 3, "createdirectory": 1, "setattributes": 1, "encrypt": 1,
	"decrypt": 1, "setlastwritetime": 1, "setcreationtime": 1, "createsymboliclink": 1,
	"writeallbytesasync": 1, "writealltextasync": 1, "writealllinesasync": 1,
	"appendalltextasync": 1, "appendalllinesasync": 1, "new": 1,
}

// psReadMethods only read the files they name.
var psReadMethods = map[string]bool{
	"readalltext": true, "readalllines": true, "readallbytes": true, "readlines": true, "exists": true,
	"openread": true, "opentext": true, "getattributes": true, "getlastwritetime": true,
	"getfiles": true, "getdirectories": true, "enumeratefiles": true, "getfullpath": true,
	"readalltextasync": true, "readalllinesasync": true, "readallbytesasync": true,
}

// psInstanceWrites are methods of a file or directory object that change it: its path came
// from elsewhere in the line.
var psInstanceWrites = map[string]bool{
	"delete": true, "moveto": true, "copyto": true, "create": true, "createtext": true,
	"appendtext": true, "openwrite": true, "open": true, "encrypt": true, "decrypt": true,
	"createsubdirectory": true, "setaccesscontrol": true, "writealltext": true, "replace": false,
}

// command judges one command of a pipeline (or an expression standing in its place).
func (p *psWalker) command(toks []psTok, e *env, depth int) {
	words := p.redirections(toks, e)
	p.methodCalls(words, e)
	// assignments: $x = Get-Content a — the command is what follows the operator
	for i, t := range words {
		if t.kind == psAssign {
			words = words[i+1:]
			break
		}
	}
	// call and dot-source operators: & 'C:\tools\x.ps1' memory-bank
	call := false
	for len(words) > 0 && words[0].kind == psCall {
		words, call = words[1:], true
	}
	if len(words) == 0 || words[0].kind != psWord {
		return
	}
	head := words[0]
	if !head.exact {
		if call {
			p.unknownArgs(words[1:], "&", e)
		}
		return
	}
	if !call && (head.quoted || strings.HasPrefix(head.s, "$") || isNumber(head.s)) {
		return // an expression: 'text' | Set-Content …, $x
	}
	cmdlet := psCmdletName(head.s)
	if spec, ok := psCmdlets()[cmdlet]; ok {
		p.cmdlet(spec, words[1:], e, depth)
		return
	}
	p.native(words, e, depth)
}

// redirections judges the redirections of a command first, wherever they stand: > file,
// 2>> file, *> file. It returns the other tokens.
func (p *psWalker) redirections(toks []psTok, e *env) []psTok {
	var words []psTok
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != psRedir {
			words = append(words, t)
			continue
		}
		if strings.Contains(t.s, "&") {
			continue // 2>&1
		}
		if i+1 < len(toks) && toks[i+1].kind == psWord {
			p.write(toks[i+1], "redirect", e)
			i++
		} else {
			p.w.unknownWrite()
		}
	}
	return words
}

// methodCalls judges static and instance method calls: [IO.File]::WriteAllText('x', …),
// $f.Delete().
func (p *psWalker) methodCalls(words []psTok, e *env) {
	for i, t := range words {
		if t.kind != psMember {
			continue
		}
		m := strings.ToLower(t.s)
		if i > 0 && words[i-1].kind == psType {
			p.staticCall(words[i-1].s, t.s, psCallArgs(words[i+1:]), e)
			continue
		}
		if psInstanceWrites[m] {
			p.w.unknownWrite()
			p.spanless = true
		}
	}
}

// staticCall judges a static method call [typ]::method(args).
func (p *psWalker) staticCall(typ, method string, args []psTok, e *env) {
	w := &p.w
	m := strings.ToLower(method)
	op := "[IO]::" + method
	if n, ok := psFileMethods[m]; ok && (m != "new" || psWriterType(typ)) {
		if len(args) == 0 {
			w.unknownWrite()
		}
		for k, a := range args {
			if k < n {
				p.write(a, op, e)
			}
		}
	} else if psReadMethods[m] {
		for _, a := range args {
			if a.exact {
				w.readArg(arg{s: psPath(a.s), exact: true, pos: a.pos, end: a.end}, op, e)
			}
		}
	} else {
		p.unknownArgs(args, op, e)
	}
}

// psCallArgs returns the argument words of the call whose "(" starts toks.
func psCallArgs(toks []psTok) []psTok {
	if len(toks) == 0 || toks[0].kind != psSep || toks[0].s != "(" {
		return nil
	}
	var out []psTok
	for _, t := range toks[1:psClose(toks, 0)] {
		if t.kind == psSep {
			break // a nested expression: its value is not known here
		}
		if t.kind == psWord {
			out = append(out, t)
		}
	}
	return out
}

// psWriterType reports a type whose constructor opens a file for writing.
func psWriterType(t string) bool {
	t = strings.ToLower(t)
	return strings.Contains(t, "writer") || strings.Contains(t, "filestream") || strings.Contains(t, "fileinfo")
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' && !(i == 0 && s[i] == '-') {
			return false
		}
	}
	return true
}

// psCmdletName is the command's name as the tables know it: lower case, without a module
// qualifier (Microsoft.PowerShell.Management\Set-Content) or an .exe suffix.
func psCmdletName(s string) string {
	s = strings.ToLower(s)
	if i := strings.LastIndexAny(s, `\/`); i >= 0 && strings.Contains(s[:i], "microsoft.powershell") {
		s = s[i+1:]
	}
	return strings.TrimSuffix(s, ".exe")
}

// psPath strips a provider qualifier (FileSystem::C:\x, Microsoft.PowerShell.Core\FileSystem::x).
func psPath(s string) string {
	if i := strings.Index(s, "::"); i >= 0 && strings.Contains(strings.ToLower(s[:i]), "filesystem") {
		return s[i+2:]
	}
	return s
}

// write records a write of the path in word t.
func (p *psWalker) write(t psTok, op string, e *env) {
	w := &p.w
	if strings.EqualFold(t.s, "$null") {
		return
	}
	w.res.Write = true
	if t.exact {
		s := psPath(t.s)
		if strings.EqualFold(s, "$null") {
			return
		}
		if s == "" { // a bare provider (FileSystem::) names no file: a write of unknown target
			w.unknownWrite()
			return
		}
		if path, ok := resolve(s, e); ok || strings.HasPrefix(path, "~") {
			w.addWrite(Access{Path: path, Op: op})
		} else {
			w.addWrite(Access{Path: path, Op: op, Unknown: true})
		}
		return
	}
	if strings.EqualFold(t.s, "$null") {
		return
	}
	// a word built at run time: its literal prefix is where it lands, if it has one
	prefix := t.s
	if i := strings.IndexByte(prefix, '$'); i >= 0 {
		prefix = prefix[:i]
	}
	if psPath(prefix) == "" { // nothing literal before the run-time part, a provider aside
		w.unknownWrite()
		return
	}
	path, _ := resolve(psPath(prefix), e)
	if strings.HasSuffix(prefix, "/") || strings.HasSuffix(prefix, `\`) {
		path += "/"
	}
	w.addWrite(Access{Path: path, Op: op, Unknown: true})
	w.res.Unknown = w.res.Unknown || !strings.Contains(strings.ToLower(prefix), "memory-bank")
}

// read records a read of the path in word t (a word built at run time is left out).
func (p *psWalker) read(t psTok, op string, e *env) {
	if t.exact {
		p.w.readArg(arg{s: psPath(t.s), exact: true, pos: t.pos, end: t.end}, op, e)
	}
}

// unknownArgs judges words handed to something the classifier has no rule for: a word naming
// memory-bank/ is written, as an unknown command's arguments are in bash.
func (p *psWalker) unknownArgs(args []psTok, op string, e *env) {
	for _, a := range args {
		if a.kind == psWord && psNamesBank(a.s) {
			p.write(a, op, e)
		}
	}
}

// native judges a command that is no cmdlet of the tables — git, python, bash -c, an .exe —
// by re-reading it as bash: the words are handed over quoted, a word built at run time as an
// unknown variable. powershell/pwsh -Command code is classified as PowerShell.
func (p *psWalker) native(words []psTok, e *env, depth int) {
	cmdlet := psCmdletName(words[0].s)
	if cmdlet == "powershell" || cmdlet == "pwsh" {
		p.innerPowerShell(words, e, depth)
		return
	}
	r := ClassifyEnv(psNativeLine(words), e.dirOrEmpty(), nil)
	for _, a := range r.Writes {
		p.w.addWrite(a)
	}
	for _, a := range r.Reads {
		p.w.res.Reads = p.w.add(p.w.res.Reads, a, false)
	}
	res := p.w.res
	res.Write = res.Write || r.Write
	res.Unknown = res.Unknown || r.Unknown
	res.Interpreter = res.Interpreter || r.Interpreter
	res.Person = append(res.Person, r.Person...)
	if r.Write || len(r.Reads) < len(words)-1 {
		p.spanless = p.spanless || r.Write && r.Unknown
	}
}

// innerPowerShell judges powershell or pwsh run from PowerShell: the code of its -Command,
// or of its last word.
func (p *psWalker) innerPowerShell(words []psTok, e *env, depth int) {
	for i := 1; i < len(words); i++ {
		o := strings.ToLower(words[i].s)
		if strings.HasPrefix(o, "-e") && len(o) > 2 && strings.HasPrefix("-encodedcommand", o) {
			p.w.unknownWrite() // base64 code nobody can read here
			return
		}
		if (strings.HasPrefix("-command", o) && len(o) >= 2) || (i == len(words)-1 && !strings.HasPrefix(o, "-")) {
			p.innerCommand(words[i:], e, depth)
			return
		}
	}
}

// innerCommand judges the words of an inner powershell -Command as one line of code.
func (p *psWalker) innerCommand(words []psTok, e *env, depth int) {
	var b strings.Builder
	for _, t := range words {
		if t.kind == psWord && !strings.HasPrefix(strings.ToLower(t.s), "-c") {
			if !t.exact {
				p.w.unknownWrite()
			}
			b.WriteString(t.s + " ")
		}
	}
	p.line(b.String(), e, depth+1)
}

// psNativeLine spells a native command's words as a POSIX shell line for ClassifyEnv: exact
// words single-quoted, the others as a variable nobody knows.
func psNativeLine(words []psTok) string {
	var b strings.Builder
	for i, t := range words {
		if t.kind == psComma {
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if !t.exact {
			b.WriteString(`"$__mbguard_ps_value"`)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(t.s, "'", `'\''`) + "'")
	}
	return b.String()
}

func (e *env) dirOrEmpty() string {
	if !e.known {
		return ""
	}
	return e.dir
}

// psNamesBank reports a word that may name memory-bank/ in any spelling Windows accepts
// (Memory-Bank, memory-bank.\x, a glob such as memory-ba*).
func psNamesBank(s string) bool {
	l := strings.ToLower(strings.ReplaceAll(s, `\`, "/"))
	return strings.Contains(l, bankName) || mayNameBank(l)
}
