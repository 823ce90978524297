package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arg is a shell word reduced to text. When exact is false the word holds an
// expansion known only at run time and s is its literal prefix; pat is then
// the word with every expansion replaced by '*', for matching.
type arg struct {
	s     string
	exact bool
	pat   string
	// pos and end are the word's byte offsets in the top-level command line
	// (both 0 for words in code nested in strings).
	pos, end int
}

func words(ws []*syntax.Word, e *env) []arg {
	out := make([]arg, 0, len(ws))
	for _, wd := range ws {
		a := wordArg(wd, e)
		if a.exact && hasBraceLit(wd) {
			// mv memory-bank/{a,b}.md is two operands, not one.
			budget := 256
			for _, s := range expandBraces(a.s, &budget) {
				out = append(out, arg{s: seqGlob(s), exact: true, pos: a.pos, end: a.end})
			}
			continue
		}
		if a.exact && e != nil && e.nocase && strings.ContainsAny(a.s, "*?[") {
			// shopt -s nocaseglob: MEMORY-BANK/* matches memory-bank/.
			a.s = strings.ToLower(a.s)
		}
		out = append(out, a)
	}
	return out
}

// seqGlob turns a sequence expression left in a word ({a..z}, {1..3}) into a
// glob that matches every name it can produce.
func seqGlob(s string) string {
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			return s
		}
		close := strings.IndexByte(s[open:], '}')
		if close < 0 || !strings.Contains(s[open:open+close], "..") {
			return s
		}
		s = s[:open] + "*" + s[open+close+1:]
	}
}

// hasBraceLit reports an unquoted part that may hold a brace expansion.
func hasBraceLit(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 &&
			(strings.IndexByte(l.Value, ',') >= 0 || strings.Contains(l.Value, "..")) {
			return true
		}
	}
	return false
}

// maxBraces bounds brace expansion, which grows exponentially.
const maxBraces = 64

// expandBraces expands {a,b} alternatives (not {1..3} sequences). Text it
// cannot expand within the budget of calls is returned as is, which callers
// still match as a prefix.
func expandBraces(s string, budget *int) []string {
	open := strings.IndexByte(s, '{')
	if open < 0 || *budget <= 0 {
		return []string{s}
	}
	*budget--
	level, start := 0, open+1
	var alts []string
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			level++
		case '}':
			level--
			if level == 0 {
				if alts == nil {
					// {x} without a comma is literal; look further on.
					rest := expandBraces(s[i+1:], budget)
					out := make([]string, len(rest))
					for j, r := range rest {
						out[j] = s[:i+1] + r
					}
					return out
				}
				alts = append(alts, s[start:i])
				var out []string
				for _, a := range alts {
					for _, x := range expandBraces(s[:open]+a+s[i+1:], budget) {
						if len(out) == maxBraces {
							return []string{s}
						}
						out = append(out, x)
					}
				}
				return out
			}
		case ',':
			if level == 1 {
				alts = append(alts, s[start:i])
				start = i + 1
			}
		}
	}
	return []string{s}
}

// wordArg reduces a word to text, substituting the variables e knows (x=memory-bank; rm -rf $x)
// and decoding ANSI-C quoting ($'memory-ban\x6b').
func wordArg(wd *syntax.Word, e *env) arg {
	if wd == nil {
		return arg{}
	}
	a := wordText(wd, e)
	if e != nil && e.top {
		a.pos, a.end = int(wd.Pos().Offset()), int(wd.End().Offset())
	}
	return a
}

func wordText(wd *syntax.Word, e *env) arg {
	if len(wd.Parts) == 1 {
		// Fast path: most words are one unquoted or quoted literal.
		switch p := wd.Parts[0].(type) {
		case *syntax.Lit:
			return arg{s: unescape(p.Value), exact: true}
		case *syntax.SglQuoted:
			return arg{s: sglQuoted(p), exact: true}
		}
	}
	t := wordBuilder{e: e, exact: true}
	for _, part := range wd.Parts {
		t.part(part)
	}
	return arg{s: t.b.String(), exact: t.exact, pat: t.pat.String()}
}

// sglQuoted is the text of '…' or $'…'.
func sglQuoted(p *syntax.SglQuoted) string {
	if p.Dollar {
		return ansiC(p.Value)
	}
	return p.Value
}

// wordBuilder builds a word's text: its literal prefix (up to the first expansion known
// only at run time) and its glob pattern.
type wordBuilder struct {
	e          *env
	b, pat     strings.Builder
	exact      bool
	prefixDone bool
}

func (t *wordBuilder) part(part syntax.WordPart) {
	switch p := part.(type) {
	case *syntax.Lit:
		t.lit(unescape(p.Value))
	case *syntax.SglQuoted:
		t.lit(sglQuoted(p))
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			switch x := q.(type) {
			case *syntax.Lit:
				t.lit(unescapeDbl(x.Value))
			case *syntax.ParamExp:
				t.param(x)
			default:
				t.expansion()
			}
		}
	case *syntax.ParamExp:
		t.param(p)
	case *syntax.ExtGlob:
		t.lit(p.Op.String())
		if p.Pattern != nil {
			t.lit(p.Pattern.Value)
		}
		t.lit(")")
	default:
		t.expansion()
	}
}

func (t *wordBuilder) lit(s string) {
	if !t.prefixDone {
		t.b.WriteString(s)
	}
	t.pat.WriteString(s)
}

func (t *wordBuilder) expansion() {
	t.exact = false
	t.prefixDone = true
	if !strings.HasSuffix(t.pat.String(), "*") {
		t.pat.WriteByte('*')
	}
}

func (t *wordBuilder) param(p *syntax.ParamExp) {
	if digitsOnly(p) {
		// $$, $RANDOM, ${#x}…: a number cannot hold a / or .., so the word's place is as
		// well known as if it were spelt out (cp … /tmp/x-$$.md stays in /tmp)
		t.lit("0")
		return
	}
	if v, ok := t.e.lookup(p); ok {
		t.lit(v.s)
		if v.exact {
			return
		}
	}
	t.expansion()
}

// ansiC decodes the escapes of $'…' quoting.
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		c = s[i]
		if r, ok := ansiEscapes[c]; ok {
			b.WriteByte(r)
			continue
		}
		switch {
		case ansiHexWidth[c] > 0:
			i = ansiHex(&b, s, i)
		case c == 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case c >= '0' && c <= '7':
			i = ansiOctal(&b, s, i)
		default:
			b.WriteByte(c) // \\ \' \" \?
		}
	}
	return b.String()
}

// ansiEscapes are $'…' escapes of one letter for one byte; ansiHexWidth the ones followed
// by at most so many hex digits (\xHH, \uHHHH, \UHHHHHHHH).
var (
	ansiEscapes  = map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'v': 11}
	ansiHexWidth = map[byte]int{'x': 2, 'u': 4, 'U': 8}
)

// ansiHex writes the character of the \x, \u or \U escape whose letter is s[i], and returns
// the index of its last digit; without digits, the escape as written.
func ansiHex(b *strings.Builder, s string, i int) int {
	c := s[i]
	width := ansiHexWidth[c]
	j, v := i+1, 0
	for ; j < len(s) && j <= i+width && hexVal(s[j]) >= 0; j++ {
		v = v*16 + hexVal(s[j])
	}
	switch {
	case j == i+1:
		b.WriteByte('\\')
		b.WriteByte(c)
		return i
	case c == 'x':
		b.WriteByte(byte(v))
	default:
		b.WriteRune(rune(v))
	}
	return j - 1
}

// ansiOctal writes the byte of the octal escape (up to three digits) starting at s[i], and
// returns the index of its last digit.
func ansiOctal(b *strings.Builder, s string, i int) int {
	j, v := i, 0
	for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
		v = v*8 + int(s[j]-'0')
	}
	b.WriteByte(byte(v))
	return j - 1
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// unescape removes the backslashes of an unquoted word (`a\ b`, `\rm`, a
// backslash-newline continuation).
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDbl removes the backslashes that are escapes inside double quotes.
func unescapeDbl(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// opt is one parsed command-line option: name is "-x" or "--long".
type opt struct {
	name  string
	value arg
	has   bool // value present
}

// flagSpec says which options of a command take a value, so the value is not
// mistaken for an operand.
type flagSpec struct {
	short string   // short option letters that take a value
	long  []string // long options (with dashes) that take a separate value
	// optional lists short letters whose value is optional and only ever
	// attached (sed -i.bak, perl -i.orig).
	optional string
	// stopAtOperand ends option parsing at the first operand (POSIX style,
	// e.g. for interpreters whose later options belong to the script).
	stopAtOperand bool
}

func (f *flagSpec) longTakesValue(name string) bool {
	for _, l := range f.long {
		if l == name {
			return true
		}
	}
	return false
}

// parseArgs splits args (without the command name) into options and operands.
// Options may appear anywhere (GNU style) unless stopAtOperand; "--" ends them.
func parseArgs(args []arg, spec flagSpec) (opts []opt, ops []arg) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		s := a.s
		if !a.exact || len(s) < 2 || s[0] != '-' {
			ops = append(ops, a)
			if spec.stopAtOperand {
				return opts, append(ops, args[i+1:]...)
			}
			continue
		}
		if s == "--" {
			return opts, append(ops, args[i+1:]...)
		}
		if strings.HasPrefix(s, "--") {
			if eq := strings.IndexByte(s, '='); eq >= 0 {
				opts = append(opts, opt{name: s[:eq], value: arg{s: s[eq+1:], exact: true}, has: true})
				continue
			}
			o := opt{name: s}
			if spec.longTakesValue(s) && i+1 < len(args) {
				i++
				o.value, o.has = args[i], true
			}
			opts = append(opts, o)
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			o := opt{name: "-" + string(c)}
			if strings.IndexByte(spec.optional, c) >= 0 {
				if j+1 < len(s) {
					o.value, o.has = arg{s: s[j+1:], exact: true}, true
				}
				opts = append(opts, o)
				break
			}
			if strings.IndexByte(spec.short, c) >= 0 {
				if j+1 < len(s) {
					o.value, o.has = arg{s: s[j+1:], exact: true}, true
				} else if i+1 < len(args) {
					i++
					o.value, o.has = args[i], true
				}
				opts = append(opts, o)
				break
			}
			opts = append(opts, o)
		}
	}
	return opts, ops
}

func hasOpt(opts []opt, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func optValue(opts []opt, names ...string) (arg, bool) {
	var v arg
	found := false
	for _, o := range opts {
		for _, n := range names {
			if o.name == n && o.has {
				v, found = o.value, true
			}
		}
	}
	return v, found
}

// digitParams expand to a decimal number (or nothing) in every context.
var digitParams = map[string]bool{"$": true, "!": true, "?": true, "#": true, "RANDOM": true, "SRANDOM": true,
	"PPID": true, "BASHPID": true, "LINENO": true, "SECONDS": true, "EPOCHSECONDS": true, "UID": true, "EUID": true}

// digitsOnly reports whether p can only expand to digits: a numeric special parameter with no
// operator, or a length (${#x}).
func digitsOnly(p *syntax.ParamExp) bool {
	if p == nil || p.Param == nil || p.Excl || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 {
		return false
	}
	return p.Length || digitParams[p.Param.Value]
}

// winDir reports a working directory spelt as Windows spells it (C:/x, //server/share): the
// command runs in Git Bash or MSYS on Windows, where a drive path is absolute. On any other
// directory "C:/x" is a relative name, as bash on Linux reads it.
func winDir(d string) bool {
	return len(d) >= 3 && d[1] == ':' && (d[0]|0x20 >= 'a' && d[0]|0x20 <= 'z') && d[2] == '/' ||
		len(d) > 2 && d[0] == '/' && d[1] == '/' && d[2] != '/'
}

// winAbs reports a slash-separated path Windows reads as absolute: a drive path (C:/x), a
// drive-relative one (C:x, which names the drive's own directory, never the shell's), a share
// or a \\?\ path (//…). MSYS's /c/x is absolute by its leading slash already.
func winAbs(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') ||
		len(p) > 2 && p[0] == '/' && p[1] == '/' && p[2] != '/'
}

// winClean cleans a Windows absolute path without losing its drive or its leading "//"; the
// gating engine reads the rest of the spelling (\\?\, trailing dots, the drive's case).
func winClean(p string) string {
	if p[1] == ':' {
		return p[:2] + path.Clean("/"+p[2:])
	}
	return "/" + path.Clean(p[1:])
}
