package gating

import (
	"path"
	"strings"
)

// Canon makes raw canonical: repository-relative, slash-separated, "." and ".." resolved,
// symlinks resolved through fx.Resolve, and case-folded only when fx.CaseInsensitive reports a
// folding file system. A relative raw is joined onto cwd (the repository root when cwd is empty;
// a relative cwd is itself taken from the root). A path outside the repository comes back as a
// cleaned absolute path with inRepo false: such a path is never a memory-bank path, and Canon
// never returns one starting with "../".
func Canon(raw, cwd string, fx Facts) (rel string, inRepo bool) {
	c := canon(raw, cwd, fx)
	return c.rel, c.inRepo
}

// canonPath keeps the lexical view (before symlinks) next to the resolved one, because a
// path whose two views disagree about memory-bank/ is a symlink escape.
type canonPath struct {
	raw    string
	lex    string // lexical repository-relative path, or the absolute path when outside
	lexIn  bool
	rel    string // resolved repository-relative path, or the absolute path when outside
	inRepo bool
}

func canon(raw, cwd string, fx Facts) canonPath {
	root := slashClean(fx.Root())
	fold := fx.CaseInsensitive()
	abs := absolute(raw, cwd, root)
	c := canonPath{raw: raw}
	c.lex, c.lexIn = relTo(abs, root, fold)
	res := abs
	if r := fx.Resolve(abs); r != "" {
		res = slashClean(r)
		if !isAbs(res, root) {
			res = path.Join(root, res)
		}
	}
	if res == abs {
		c.rel, c.inRepo = c.lex, c.lexIn
	} else {
		c.rel, c.inRepo = relTo(res, root, fold)
	}
	return c
}

// absolute joins raw onto cwd (or the root) and cleans it, without touching the file system.
func absolute(raw, cwd, root string) string {
	// The system calls behind every host's file tools end a path at its first NUL; so does a
	// working directory.
	raw, cwd = cutNUL(raw), cutNUL(cwd)
	p := strings.ReplaceAll(raw, `\`, "/")
	if p == "~" || strings.HasPrefix(p, "~/") {
		// The engine has no $HOME; a home path is kept absolute-looking so it can never
		// land inside the repository by accident.
		return path.Clean("/~" + p[1:])
	}
	if isAbs(p, root) {
		return slashClean(p)
	}
	base := root
	if c := strings.ReplaceAll(cwd, `\`, "/"); c == "~" || strings.HasPrefix(c, "~/") {
		base = path.Clean("/~" + c[1:])
	} else if c != "" {
		if isAbs(c, root) {
			base = c
		} else {
			base = path.Join(root, c)
		}
	}
	return path.Join(base, p)
}

func cutNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// relTo makes abs relative to root. On a folding file system both sides are compared, and the
// result returned, in lower case, so one file has one canonical spelling.
func relTo(abs, root string, fold bool) (string, bool) {
	a, r := abs, root
	if fold {
		a, r = strings.ToLower(a), strings.ToLower(r)
	}
	if a == r {
		return ".", true
	}
	prefix := r + "/"
	if r == "/" {
		prefix = "/"
	}
	if strings.HasPrefix(a, prefix) {
		rel := a[len(prefix):]
		if rel == "~" || strings.HasPrefix(rel, "~/") {
			// a directory really named "~": spelt so that Canon does not read it as home
			rel = "./" + rel
		}
		return rel, true
	}
	return a, false
}

// isAbs accepts POSIX absolute paths, and drive paths (C:/x) when the repository itself is on
// a drive: on a POSIX root "c:x" is an ordinary relative name, and reading it as a drive
// would make Canon disagree with itself.
func isAbs(p, root string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	return hasDrive(p) && hasDrive(root)
}

func hasDrive(p string) bool { return len(p) >= 2 && p[1] == ':' && isLetter(p[0]) }

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// slashClean converts separators and cleans; a drive path keeps its drive.
func slashClean(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if hasDrive(p) {
		return p[:2] + path.Clean("/"+p[2:])
	}
	if p == "" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		return path.Clean("/" + p)
	}
	return path.Clean(p)
}

// bankDir and bankEntry are bank.Dir and bank.Entry; MEMORY.md is folded on a folding file
// system through Engine.key.
const (
	bankDir   = "memory-bank"
	bankEntry = "memory-bank/MEMORY.md"
)

// inBank reports whether a canonical in-repository path is memory-bank/ or below it.
func inBank(rel string) bool {
	return rel == bankDir || strings.HasPrefix(rel, bankDir+"/")
}

// isMarkdown reports whether a name ends in .md, in any case.
func isMarkdown(p string) bool {
	return len(p) >= 3 && strings.EqualFold(p[len(p)-3:], ".md")
}
