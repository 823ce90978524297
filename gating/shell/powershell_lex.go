package shell

import (
	"strings"
)

// psKind is the kind of a PowerShell token.
type psKind uint8

const (
	psWord   psKind = iota // an argument or command word: bareword, quoted string, variable, number
	psSep                  // ends a statement: ; newline && || and the brackets ( ) { } $( @( @{ [ ]
	psPipe                 // |
	psRedir                // > >> 2> *> 2>&1 …; s holds the operator
	psComma                // , between the items of an array argument
	psAssign               // = += -= …
	psType                 // a type literal [IO.File]; s holds the type name
	psMember               // ::Name or .Name after a type, a bracket or a variable; s holds Name
	psCall                 // & or . at the start of a command (call and dot-source operators)
)

// psTok is one token of a PowerShell command line.
type psTok struct {
	kind psKind
	s    string // the word's value (quotes and escapes removed), or the operator
	// exact marks a word whose value is known from the text alone: no variable, no
	// subexpression, no expandable string with $ in it.
	exact bool
	// quoted marks a word spelt with quotes: never a parameter name or an operator.
	quoted     bool
	pos, end   int
	spaceAfter bool
	// code holds the text of subexpressions $( … ) inside a double-quoted string: code that
	// runs when the string is built.
	code []string
}

// psError is a line the tokenizer cannot read.
type psError string

func (e psError) Error() string { return string(e) }

const errPSUnterminated = psError("unterminated string or comment")

// psBreak reports the bytes that end a bareword in argument mode.
func psBreak(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ';', '|', '&', '(', ')', '{', '}', ',', '>', '<', '"', '\'':
		return true
	}
	return false
}

// lexPS splits src into PowerShell tokens. It reads what the classifier needs and no more:
// strings (single, double, here-strings), comments, variables, subexpressions, redirections,
// type literals with their static members, and barewords with backtick escapes.
func lexPS(src string) ([]psTok, error) {
	l := &psLexer{src: src}
	for l.i < len(src) {
		if err := l.step(); err != nil {
			return l.toks, err
		}
		// a member right after a closing bracket: (Get-Item x).Delete()
		if n := len(l.toks); n > 0 && l.toks[n-1].kind == psSep && l.toks[n-1].s == ")" && l.peek(0) == '.' {
			l.i = lexMember(src, l.i, l.push)
		}
	}
	return l.toks, nil
}

// psLexer is lexPS's state: the line, the read position and the tokens so far.
type psLexer struct {
	src  string
	i    int
	toks []psTok
}

// peek returns the byte k places after the read position, or 0 past the end (never a byte the
// lexer looks for).
func (l *psLexer) peek(k int) byte {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

func (l *psLexer) push(t psTok) {
	t.spaceAfter = t.end < len(l.src) && isBlank(l.src[t.end])
	l.toks = append(l.toks, t)
}

// atStart reports a command name position: & and . are operators there.
func (l *psLexer) atStart() bool {
	if len(l.toks) == 0 {
		return true
	}
	k := l.toks[len(l.toks)-1].kind
	return k == psSep || k == psPipe || k == psAssign
}

// exprStart reports a position where an expression starts: a command name, an array item or
// the right side of an assignment.
func (l *psLexer) exprStart() bool {
	if l.atStart() {
		return true
	}
	k := l.toks[len(l.toks)-1].kind
	return k == psComma || k == psAssign
}

// op pushes the n bytes at the read position as one token of the kind.
func (l *psLexer) op(kind psKind, n int) {
	l.push(psTok{kind: kind, s: l.src[l.i : l.i+n], pos: l.i, end: l.i + n})
	l.i += n
}

// step reads one token, or skips blanks, a line continuation or a comment.
func (l *psLexer) step() error {
	c := l.src[l.i]
	switch {
	case c == ' ' || c == '\t' || c == '\r':
		l.i++
	case c == '`' && (l.peek(1) == '\n' || l.peek(1) == '\r'):
		l.i += 2 // line continuation
	case c == '#':
		for l.i < len(l.src) && l.src[l.i] != '\n' {
			l.i++
		}
	case c == '<' && l.peek(1) == '#':
		j := strings.Index(l.src[l.i+2:], "#>")
		if j < 0 {
			return errPSUnterminated
		}
		l.i += j + 4
	case l.operator(c):
	default:
		return l.word()
	}
	return nil
}

// operator reads the operator or bracket starting with c, if one does.
func (l *psLexer) operator(c byte) bool {
	switch {
	case strings.IndexByte("\n;(){}", c) >= 0:
		l.op(psSep, 1)
	case l.doubled(c):
		l.op(psSep, 2) // || and &&
	case c == '|':
		l.op(psPipe, 1)
	case c == '&':
		l.op(psCall, 1)
	case c == ',':
		l.op(psComma, 1)
	case l.redirAt(c):
		l.redir(c)
	case l.assignAt(c):
		l.assign(c)
	case c == '[' && typeLiteral(l.src, l.i, l.exprStart()):
		k := closeBracket(l.src, l.i)
		l.push(psTok{kind: psType, s: strings.TrimSpace(l.src[l.i+1 : k]), pos: l.i, end: k + 1})
		l.i = lexMember(l.src, k+1, l.push)
	case l.dotSource(c):
		l.op(psCall, 1)
	case l.openAt(c):
		l.op(psSep, 2) // $( @( @{
	default:
		return false
	}
	return true
}

// doubled reports || and &&.
func (l *psLexer) doubled(c byte) bool {
	return (c == '|' || c == '&') && l.peek(1) == c
}

// redirAt reports a redirection operator: > >> 2> *> 2>&1 …
func (l *psLexer) redirAt(c byte) bool {
	return c == '>' || (c >= '1' && c <= '6' || c == '*') && l.peek(1) == '>'
}

func (l *psLexer) redir(c byte) {
	j := l.i
	if c != '>' {
		j++
	}
	j++
	if j < len(l.src) && l.src[j] == '>' {
		j++
	} else if j+1 < len(l.src) && l.src[j] == '&' && l.src[j+1] >= '1' && l.src[j+1] <= '6' {
		j += 2 // 2>&1: a stream merged, no file
	}
	l.op(psRedir, j-l.i)
}

// assignAt reports an assignment operator: = += -= …
func (l *psLexer) assignAt(c byte) bool {
	return c == '=' || strings.IndexByte("+-*/%?", c) >= 0 && l.peek(1) == '='
}

func (l *psLexer) assign(c byte) {
	if c == '=' {
		l.op(psAssign, 1)
	} else {
		l.op(psAssign, 2)
	}
}

// dotSource reports the dot-source operator: a . followed by a blank where a command starts.
func (l *psLexer) dotSource(c byte) bool {
	return c == '.' && l.atStart() && isBlank(l.peek(1))
}

// openAt reports the opening brackets $( @( @{.
func (l *psLexer) openAt(c byte) bool {
	return c == '$' && l.peek(1) == '(' || c == '@' && (l.peek(1) == '(' || l.peek(1) == '{')
}

// word reads an argument word and the members that follow a variable or a bracket.
func (l *psLexer) word() error {
	i := l.i
	t, j, err := lexWord(l.src, i)
	if err != nil {
		return err
	}
	if j == i { // a byte no rule reads (<): a word of its own, so the loop advances
		j++
		t.s, t.end = l.src[i:j], j
	}
	l.push(t)
	l.i = j
	if strings.HasPrefix(t.s, "$") || l.src[j-1] == ')' {
		l.i = lexMember(l.src, l.i, l.push)
	}
	return nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// lexMember reads ::Name and .Name accesses that follow a type, a variable or a bracket.
func lexMember(src string, i int, push func(psTok)) int {
	for {
		start := i
		switch {
		case strings.HasPrefix(src[i:], "::"):
			i += 2
		case i < len(src) && src[i] == '.':
			i++
		default:
			return i
		}
		j := i
		for j < len(src) && (isIdent(src[j]) || src[j] == '-') {
			j++
		}
		if j == i {
			return start
		}
		push(psTok{kind: psMember, s: src[i:j], pos: start, end: j})
		i = j
	}
}

// lexWord reads one argument word starting at i: quoted parts, barewords and variables run
// together until a break (PowerShell joins 'a'b into one argument).
func lexWord(src string, i int) (psTok, int, error) {
	w := &wordLexer{src: src, i: i, t: psTok{kind: psWord, exact: true, pos: i}}
	for w.i < len(src) {
		done, err := w.part()
		if err != nil {
			return w.t, w.i, err
		}
		if done {
			break
		}
	}
	w.t.end, w.t.s = w.i, w.b.String()
	return w.t, w.i, nil
}

// wordLexer is lexWord's state: the read position, the token and its value so far.
type wordLexer struct {
	src string
	i   int
	t   psTok
	b   strings.Builder
}

// peek returns the byte k places after the read position, or 0 past the end.
func (w *wordLexer) peek(k int) byte {
	if w.i+k < len(w.src) {
		return w.src[w.i+k]
	}
	return 0
}

// part reads one part of the word; done reports the word ends here.
func (w *wordLexer) part() (done bool, err error) {
	c := w.src[w.i]
	switch {
	case c == '\'':
		return false, w.single()
	case c == '@' && (w.peek(1) == '\'' || w.peek(1) == '"') && w.b.Len() == 0:
		return false, w.hereString()
	case c == '"':
		return false, w.double()
	case c == '`':
		if w.i+1 < len(w.src) {
			w.b.WriteByte(w.src[w.i+1])
			w.i += 2
		} else {
			w.i++
		}
	case c == '$':
		return w.variable()
	case psBreak(c):
		return true, nil
	default:
		w.b.WriteByte(c)
		w.i++
	}
	return false, nil
}

// single reads a single-quoted part: two quotes stand for one, nothing else is special.
func (w *wordLexer) single() error {
	w.t.quoted = true
	w.i++
	for {
		if w.i >= len(w.src) {
			return errPSUnterminated
		}
		if w.src[w.i] == '\'' {
			if w.peek(1) == '\'' {
				w.b.WriteByte('\'')
				w.i += 2
				continue
			}
			w.i++
			return nil
		}
		w.b.WriteByte(w.src[w.i])
		w.i++
	}
}

// hereString reads a here-string: @' … '@ on lines of their own.
func (w *wordLexer) hereString() error {
	src, i := w.src, w.i
	q := src[i+1]
	end := strings.Index(src[i+2:], "\n"+string(q)+"@")
	if end < 0 {
		return errPSUnterminated
	}
	body := strings.TrimPrefix(strings.TrimPrefix(src[i+2:i+2+end], "\r"), "\n")
	w.b.WriteString(strings.TrimSuffix(body, "\r"))
	if q == '"' && strings.Contains(body, "$") {
		w.t.exact = false
		w.t.code = append(w.t.code, subexprs(body)...)
	}
	w.t.quoted = true
	w.i += 2 + end + 3
	return nil
}

// double reads a double-quoted part: "" and backtick escapes, variables and subexpressions.
func (w *wordLexer) double() error {
	w.t.quoted = true
	w.i++
	for {
		if w.i >= len(w.src) {
			return errPSUnterminated
		}
		end, err := w.doubleChar()
		if end || err != nil {
			return err
		}
	}
}

// doubleChar reads one character (or escape, or subexpression) of a double-quoted part; end
// reports the closing quote.
func (w *wordLexer) doubleChar() (end bool, err error) {
	d := w.src[w.i]
	switch {
	case d == '"' && w.peek(1) == '"':
		w.b.WriteByte('"')
		w.i += 2
	case d == '"':
		w.i++
		return true, nil
	case d == '`' && w.i+1 < len(w.src):
		w.b.WriteByte(psEscape(w.src[w.i+1]))
		w.i += 2
	case d == '$' && w.expands(w.peek(1)):
		w.t.exact = false
		if w.peek(1) == '(' {
			return false, w.subexpr(false)
		}
		w.b.WriteByte(d)
		w.i++
	default:
		w.b.WriteByte(d)
		w.i++
	}
	return false, nil
}

// expands reports the bytes after a $ that make it a variable or a subexpression.
func (w *wordLexer) expands(c byte) bool {
	return isIdent(c) || c == '{' || c == '(' || c == ':'
}

// subexpr reads the $( … ) at the read position into the token's code, and into its value too
// when keep is set.
func (w *wordLexer) subexpr(keep bool) error {
	j := matchParen(w.src, w.i+1)
	if j < 0 {
		return errPSUnterminated
	}
	w.t.code = append(w.t.code, w.src[w.i+2:j])
	if keep {
		w.b.WriteString(w.src[w.i : j+1])
	}
	w.i = j + 1
	return nil
}

// variable reads a bare $name, ${name} or $( … ); done reports a member access follows.
func (w *wordLexer) variable() (done bool, err error) {
	w.t.exact = false
	if w.peek(1) == '(' {
		return false, w.subexpr(true)
	}
	j := w.i + 1
	if j < len(w.src) && w.src[j] == '{' {
		k := strings.IndexByte(w.src[j:], '}')
		if k < 0 {
			return false, errPSUnterminated
		}
		j += k + 1
	} else {
		for j < len(w.src) && w.varByte(j) {
			j++
		}
	}
	w.b.WriteString(w.src[w.i:j])
	w.i = j
	// a member follows: lexMember reads it
	return strings.HasPrefix(w.src[j:], ".") || strings.HasPrefix(w.src[j:], "::"), nil
}

// varByte reports the byte at j continues a bare variable name.
func (w *wordLexer) varByte(j int) bool {
	c := w.src[j]
	return isIdent(c) || c == ':' || c == '?' || c == '^' || c == '$' && j == w.i+1
}

// psEscape is the character a backtick escape stands for in a double-quoted string.
func psEscape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	}
	return c
}

// matchParen returns the index of the ")" closing the "(" at i, skipping quoted text.
func matchParen(src string, i int) int {
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return j
			}
		case '\'':
			k := strings.IndexByte(src[j+1:], '\'')
			if k < 0 {
				return -1
			}
			j += k + 1
		case '`':
			j++
		}
	}
	return -1
}

// subexprs returns the code of every $( … ) in an expandable here-string.
func subexprs(s string) []string {
	var out []string
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '$' && s[i+1] == '(' {
			if j := matchParen(s, i+1); j > 0 {
				out = append(out, s[i+2:j])
				i = j
			}
		}
	}
	return out
}

// closeBracket returns the index of the "]" closing the "[" at i (generics nest:
// [List[string]]), or -1.
func closeBracket(src string, i int) int {
	depth := 0
	for k := i; k < len(src); k++ {
		switch src[k] {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return k
			}
		case '\n':
			return -1
		}
	}
	return -1
}

// typeLiteral reports whether the "[" at i opens a type literal ([IO.File]::Open, a cast
// [string]$x) rather than a wildcard word ([ab]*.md): a static member follows it, or it stands
// where an expression starts.
func typeLiteral(src string, i int, exprStart bool) bool {
	k := closeBracket(src, i)
	if k < 0 {
		return false
	}
	return strings.HasPrefix(src[k+1:], "::") || exprStart
}
