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
	var toks []psTok
	i := 0
	push := func(t psTok) {
		t.spaceAfter = t.end < len(src) && (src[t.end] == ' ' || src[t.end] == '\t')
		toks = append(toks, t)
	}
	atStart := func() bool { // a command name position: & and . are operators there
		if len(toks) == 0 {
			return true
		}
		k := toks[len(toks)-1].kind
		return k == psSep || k == psPipe || k == psAssign
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '`' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
			i += 2 // line continuation
		case c == '\n' || c == ';' || c == '(' || c == ')' || c == '{' || c == '}':
			push(psTok{kind: psSep, s: string(c), pos: i, end: i + 1})
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '<' && i+1 < len(src) && src[i+1] == '#':
			j := strings.Index(src[i+2:], "#>")
			if j < 0 {
				return toks, errPSUnterminated
			}
			i += j + 4
		case c == '|':
			if i+1 < len(src) && src[i+1] == '|' {
				push(psTok{kind: psSep, s: "||", pos: i, end: i + 2})
				i += 2
			} else {
				push(psTok{kind: psPipe, s: "|", pos: i, end: i + 1})
				i++
			}
		case c == '&' && i+1 < len(src) && src[i+1] == '&':
			push(psTok{kind: psSep, s: "&&", pos: i, end: i + 2})
			i += 2
		case c == '&':
			push(psTok{kind: psCall, s: "&", pos: i, end: i + 1})
			i++
		case c == ',':
			push(psTok{kind: psComma, s: ",", pos: i, end: i + 1})
			i++
		case c == '>' || (c >= '1' && c <= '6' || c == '*') && i+1 < len(src) && src[i+1] == '>':
			j := i
			if c != '>' {
				j++
			}
			j++
			if j < len(src) && src[j] == '>' {
				j++
			} else if j+1 < len(src) && src[j] == '&' && src[j+1] >= '1' && src[j+1] <= '6' {
				j += 2 // 2>&1: a stream merged, no file
			}
			push(psTok{kind: psRedir, s: src[i:j], pos: i, end: j})
			i = j
		case c == '=' || (c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '?') && i+1 < len(src) && src[i+1] == '=':
			j := i + 1
			if c != '=' {
				j++
			}
			push(psTok{kind: psAssign, s: src[i:j], pos: i, end: j})
			i = j
		case c == '[' && typeLiteral(src, i, atStart() || len(toks) > 0 && (toks[len(toks)-1].kind == psComma || toks[len(toks)-1].kind == psAssign)):
			k := closeBracket(src, i)
			push(psTok{kind: psType, s: strings.TrimSpace(src[i+1 : k]), pos: i, end: k + 1})
			i = lexMember(src, k+1, push)
		case c == '.' && atStart() && i+1 < len(src) && (src[i+1] == ' ' || src[i+1] == '\t'):
			push(psTok{kind: psCall, s: ".", pos: i, end: i + 1})
			i++
		case c == '$' && i+1 < len(src) && src[i+1] == '(' || c == '@' && i+1 < len(src) && (src[i+1] == '(' || src[i+1] == '{'):
			push(psTok{kind: psSep, s: src[i : i+2], pos: i, end: i + 2})
			i += 2
		default:
			t, j, err := lexWord(src, i)
			if err != nil {
				return toks, err
			}
			if j == i { // a byte no rule reads (<): a word of its own, so the loop advances
				j++
				t.s, t.end = src[i:j], j
			}
			push(t)
			i = j
			if strings.HasPrefix(t.s, "$") || src[j-1] == ')' {
				i = lexMember(src, i, push)
			}
		}
		// a member right after a closing bracket: (Get-Item x).Delete()
		if n := len(toks); n > 0 && toks[n-1].kind == psSep && toks[n-1].s == ")" && i < len(src) && src[i] == '.' {
			i = lexMember(src, i, push)
		}
	}
	return toks, nil
}

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
	t := psTok{kind: psWord, exact: true, pos: i}
	var b strings.Builder
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\'':
			t.quoted = true
			i++
			for {
				if i >= len(src) {
					return t, i, errPSUnterminated
				}
				if src[i] == '\'' {
					if i+1 < len(src) && src[i+1] == '\'' {
						b.WriteByte('\'')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(src[i])
				i++
			}
		case c == '@' && i+1 < len(src) && (src[i+1] == '\'' || src[i+1] == '"') && b.Len() == 0:
			// here-string: @' … '@ on lines of their own
			q := src[i+1]
			end := strings.Index(src[i+2:], "\n"+string(q)+"@")
			if end < 0 {
				return t, i, errPSUnterminated
			}
			body := strings.TrimPrefix(strings.TrimPrefix(src[i+2:i+2+end], "\r"), "\n")
			b.WriteString(strings.TrimSuffix(body, "\r"))
			if q == '"' && strings.Contains(body, "$") {
				t.exact = false
				t.code = append(t.code, subexprs(body)...)
			}
			t.quoted = true
			i += 2 + end + 3
		case c == '"':
			t.quoted = true
			i++
			for {
				if i >= len(src) {
					return t, i, errPSUnterminated
				}
				d := src[i]
				if d == '"' {
					if i+1 < len(src) && src[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				if d == '`' && i+1 < len(src) {
					b.WriteByte(psEscape(src[i+1]))
					i += 2
					continue
				}
				if d == '$' && i+1 < len(src) && (isIdent(src[i+1]) || src[i+1] == '{' || src[i+1] == '(' || src[i+1] == ':') {
					t.exact = false
					if src[i+1] == '(' {
						j := matchParen(src, i+1)
						if j < 0 {
							return t, i, errPSUnterminated
						}
						t.code = append(t.code, src[i+2:j])
						i = j + 1
						continue
					}
				}
				b.WriteByte(d)
				i++
			}
		case c == '`':
			if i+1 < len(src) {
				b.WriteByte(src[i+1])
				i += 2
			} else {
				i++
			}
		case c == '$':
			t.exact = false
			if i+1 < len(src) && src[i+1] == '(' {
				j := matchParen(src, i+1)
				if j < 0 {
					return t, i, errPSUnterminated
				}
				t.code = append(t.code, src[i+2:j])
				b.WriteString(src[i : j+1])
				i = j + 1
				continue
			}
			j := i + 1
			if j < len(src) && src[j] == '{' {
				k := strings.IndexByte(src[j:], '}')
				if k < 0 {
					return t, i, errPSUnterminated
				}
				j += k + 1
			} else {
				for j < len(src) && (isIdent(src[j]) || src[j] == ':' || src[j] == '?' || src[j] == '^' || src[j] == '$' && j == i+1) {
					j++
				}
			}
			b.WriteString(src[i:j])
			i = j
			if strings.HasPrefix(src[i:], ".") || strings.HasPrefix(src[i:], "::") {
				t.end, t.s = i, b.String()
				return t, i, nil // a member follows: lexMember reads it
			}
		case psBreak(c):
			t.end, t.s = i, b.String()
			return t, i, nil
		default:
			b.WriteByte(c)
			i++
		}
	}
	t.end, t.s = i, b.String()
	return t, i, nil
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
