package gating

import (
	"path"
	"sort"
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
	// On a folding file system lex and rel are in lower case; shownLex and shown keep the
	// call's own spelling of them, for messages ("" when it is the same).
	shownLex, shown string
}

// spelled is the original spelling of the folded path folded, which abs ends with ("" when
// they are the same, or when folding changed its length and no spelling can be cut out).
func spelled(abs, folded string) string {
	if len(abs) < len(folded) {
		return ""
	}
	orig := abs[len(abs)-len(folded):]
	if orig == folded || !strings.EqualFold(orig, folded) {
		return ""
	}
	return orig
}

// respell puts the call's own spelling of its paths back into a message the guards wrote with
// the folded ones (a folding file system only): longest first, so that no path is respelt
// inside a longer one.
func respell(msg string, targets []writeTarget) string {
	var pairs []string
	for _, w := range targets {
		if w.shownLex != "" {
			pairs = append(pairs, w.lex, w.shownLex)
		}
		if w.shown != "" {
			pairs = append(pairs, w.rel, w.shown)
		}
	}
	if len(pairs) == 0 || msg == "" {
		return msg
	}
	type pair struct{ from, to string }
	ps := make([]pair, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		ps = append(ps, pair{pairs[i], pairs[i+1]})
	}
	sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].from) > len(ps[j].from) })
	flat := make([]string, 0, len(pairs))
	for _, p := range ps {
		flat = append(flat, p.from, p.to)
	}
	return strings.NewReplacer(flat...).Replace(msg)
}

// relInBank reports whether the resolved path is memory-bank/ or below it in the repository.
func (c canonPath) relInBank() bool { return c.inRepo && inBank(c.rel) }

// lexInBank reports whether the lexical path is memory-bank/ or below it in the repository.
func (c canonPath) lexInBank() bool { return c.lexIn && inBank(c.lex) }

// touchesBank reports whether either view of the path is in memory-bank/.
func (c canonPath) touchesBank() bool { return c.relInBank() || c.lexInBank() }

func canon(raw, cwd string, fx Facts) canonPath {
	root := slashClean(fx.Root())
	fold := fx.CaseInsensitive()
	abs := absolute(raw, cwd, root)
	c := canonPath{raw: raw}
	c.lex, c.lexIn = relTo(abs, root, fold)
	if fold {
		c.shownLex = spelled(abs, c.lex)
	}
	res := abs
	if r := fx.Resolve(abs); r != "" {
		res = slashClean(r)
		if !isAbs(res, root) {
			res = path.Join(root, res)
		}
	}
	if res == abs {
		c.rel, c.inRepo, c.shown = c.lex, c.lexIn, c.shownLex
	} else {
		c.rel, c.inRepo = relTo(res, root, fold)
		if fold {
			c.shown = spelled(res, c.rel)
		}
	}
	return c
}

// absolute joins raw onto cwd (or the root) and cleans it, without touching the file system.
// On a Windows root (a drive or a UNC share) the Windows spellings are read first (winSpell).
func absolute(raw, cwd, root string) string {
	// The system calls behind every host's file tools end a path at its first NUL; so does a
	// working directory.
	raw, cwd = cutNUL(raw), cutNUL(cwd)
	win := winRoot(root)
	p := strings.ReplaceAll(raw, `\`, "/")
	if p == "~" || strings.HasPrefix(p, "~/") {
		// The engine has no $HOME; a home path is kept absolute-looking so it can never
		// land inside the repository by accident.
		return path.Clean("/~" + p[1:])
	}
	if win {
		p = winSpell(p)
	}
	if win && hasDrive(p) && (len(p) == 2 || p[2] != '/') {
		return driveRelative(p, cwd, root)
	}
	if isAbs(p, root) {
		return cleanAbs(p, win)
	}
	return joinClean(cwdBase(cwd, root, win), p, win)
}

// driveRelative resolves C:x, which is x in the working directory of drive C: the session's
// when it is on C.
func driveRelative(p, cwd, root string) string {
	var base string
	if c := winSpell(strings.ReplaceAll(cwd, `\`, "/")); hasDrive(c) && c[0] == p[0] {
		base = cleanAbs(c, true)
	} else if !hasDrive(c) && root[0] == p[0] {
		base = path.Join(root, c)
	} else {
		base = p[:2] + "/"
	}
	return joinClean(base, p[2:], true)
}

// cwdBase is the directory a relative path starts from: cwd, read against the root, or the
// root itself without one.
func cwdBase(cwd, root string, win bool) string {
	c := strings.ReplaceAll(cwd, `\`, "/")
	switch {
	case c == "~" || strings.HasPrefix(c, "~/"):
		return path.Clean("/~" + c[1:])
	case c == "":
		return root
	}
	if win {
		c = winSpell(c)
	}
	if isAbs(c, root) {
		return cleanAbs(c, win)
	}
	return path.Join(root, c)
}

// joinClean joins p onto the absolute base; a UNC base keeps its two leading slashes.
func joinClean(base, p string, win bool) string {
	if win && isUNC(base) {
		return cleanAbs(base+"/"+p, true)
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
	rel, ok := underDir(a, r) // a root that ends in a slash, / or C:/, is its own prefix
	if !ok {
		return a, false
	}
	if rel == "" {
		return ".", true
	}
	if _, home := underDir(rel, "~"); home {
		// a directory really named "~": spelt so that Canon does not read it as home
		rel = "./" + rel
	}
	return rel, true
}

// isAbs accepts POSIX absolute paths, and drive paths (C:/x) when the repository itself is on
// a drive or a share: on a POSIX root "c:x" is an ordinary relative name, and reading it as a
// drive would make Canon disagree with itself.
func isAbs(p, root string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	return hasDrive(p) && winRoot(root)
}

func hasDrive(p string) bool { return len(p) >= 2 && p[1] == ':' && isLetter(p[0]) }

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// winRoot reports whether a cleaned root is a Windows one: a drive (C:/…) or a share (//server/…).
// Only then are drive letters, MSYS /c/ paths and Windows' dropped trailing dots read as Windows
// reads them: on a POSIX root they are ordinary names.
func winRoot(root string) bool { return hasDrive(root) || isUNC(root) }

func isUNC(p string) bool { return len(p) > 2 && p[0] == '/' && p[1] == '/' && p[2] != '/' }

// slashClean converts separators and cleans a root or a resolved path, reading it as a
// Windows path when it is spelt like one (a drive, \\server\share, \\?\): those come from the
// adapter on Windows, never from a POSIX file system.
func slashClean(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if hasDrive(p) || isUNC(p) {
		return cleanAbs(winSpell(p), true)
	}
	return cleanAbs(p, false)
}

// cleanAbs cleans an absolute path; a drive path keeps its drive, and on Windows a UNC path
// keeps its two leading slashes.
func cleanAbs(p string, win bool) string {
	if hasDrive(p) {
		return p[:2] + path.Clean("/"+p[2:])
	}
	if win && isUNC(p) {
		return "/" + path.Clean(p[1:])
	}
	if p == "" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		return path.Clean("/" + p)
	}
	return path.Clean(p)
}

// winSpell rewrites a slash-separated path in the spellings Windows programs accept for the
// same file to the one form Canon compares: the \\?\ and \\.\ prefixes dropped (\\?\UNC\s\x is
// the share //s/x), an MSYS or Cygwin drive (/c/x, /cygdrive/c/x) read as C:/x, the drive
// letter in upper case (drive letters never depend on case), the dots and spaces that
// Windows drops at the end of a name dropped (memory-bank.\x is memory-bank\x), and an
// alternate data stream (x.md:s) read as its file.
func winSpell(p string) string {
	p = winDrive(winDevice(p))
	if !winTrims(p) {
		return p // the common case: nothing to trim
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if i == 0 && hasDrive(s) {
			continue
		}
		segs[i] = winName(s)
	}
	return strings.Join(segs, "/")
}

// winDevice drops the \\?\ and \\.\ prefixes (\\?\UNC\s\x is the share //s/x).
func winDevice(p string) string {
	for _, pre := range [...]string{"//?/", "//./", "/??/"} {
		if rest, ok := strings.CutPrefix(p, pre); ok {
			if len(rest) >= 4 && strings.EqualFold(rest[:4], "UNC/") {
				return "//" + rest[4:]
			}
			return rest
		}
	}
	return p
}

// winDrive reads an MSYS or Cygwin drive (/c/x, /cygdrive/c/x) as C:/x, and puts the drive
// letter in upper case.
func winDrive(p string) string {
	if rest, ok := strings.CutPrefix(p, "/cygdrive/"); ok && len(rest) >= 1 && isLetter(rest[0]) && (len(rest) == 1 || rest[1] == '/') {
		p = "/" + rest
	}
	if len(p) >= 2 && p[0] == '/' && isLetter(p[1]) && (len(p) == 2 || p[2] == '/') {
		p = p[1:2] + ":/" + strings.TrimPrefix(p[2:], "/")
	}
	if hasDrive(p) && p[0] >= 'a' {
		p = string(p[0]-'a'+'A') + p[1:]
	}
	return p
}

// winTrims reports a path with a name winName changes: one ending in a dot or a space, or
// naming a stream.
func winTrims(p string) bool {
	from := 0
	if hasDrive(p) {
		from = 2 // the drive's own colon
	}
	return strings.Contains(p, ". ") || strings.Contains(p, "./") || strings.Contains(p, " /") ||
		strings.HasSuffix(p, ".") || strings.HasSuffix(p, " ") || strings.IndexByte(p[from:], ':') >= 0
}

// winName is the name Windows reads in s: a stream (name:stream) read as its file, the dots
// and spaces at the end dropped (but . and .. kept).
func winName(s string) string {
	if c := strings.IndexByte(s, ':'); c >= 0 {
		// name:stream is a stream of the file name: writing it changes that file. A name that
		// is nothing but dots and spaces before the colon names no file: it is kept as written.
		if strings.TrimRight(s[:c], ". ") == "" {
			return strings.TrimRight(s, ". ") // its ending still drops like any name's
		}
		s = s[:c]
	}
	if s == "." || s == ".." {
		return s
	}
	if t := strings.TrimRight(s, ". "); t != s {
		if t == "" && strings.Trim(s, " ") == ".." {
			t = ".." // "..  " is the parent
		}
		return t
	}
	return s
}

// bankDir and bankEntry are bank.Dir and bank.Entry; MEMORY.md is folded on a folding file
// system through Engine.key.
const (
	bankDir   = "memory-bank"
	bankEntry = "memory-bank/MEMORY.md"
)

// inBank reports whether a canonical in-repository path is memory-bank/ or below it.
func inBank(rel string) bool {
	_, ok := underDir(rel, bankDir)
	return ok
}

// underDir reports whether the path p is the folder dir or below it, and what follows dir
// ("" for dir itself, and when p is not under it). Both are canonical (slashClean, relTo) and compared byte for byte: on a
// folding file system canonical paths are already in lower case (relTo, key), and Windows'
// spellings (backslashes, drives, trailing dots) already read as one. A sibling that only
// shares the prefix (memory-bank-notes) is not below dir. A dir ending in a slash, the root
// "/", is its own prefix.
func underDir(p, dir string) (rest string, ok bool) {
	if p == dir {
		return "", true
	}
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	if rest, ok := strings.CutPrefix(p, dir); ok {
		return rest, true
	}
	return "", false
}

// A path word in a shell command starts after one of wordOpeners and ends before one of
// wordClosers. A backslash separates too: canonical paths read it as a slash (SPEC §3); a colon
// opens a word in a list (PATH=$PATH:memory-bank).
const (
	wordOpeners = " \t'\"/\\=(;|&<>:"
	wordClosers = " \t'\"/\\);|&<>"
)

// namesPath reports p as a path word in a command: at the start of a word or after a slash
// (cat $PWD/.mbguard.yaml), not inside another name (my-memory-bank-notes, repo.git/;
// my.mbguard.yaml.bak is the file's name followed by more, so it does not count either). A p
// ending in a slash names the folder whatever follows. The bank guard and the config guard
// both read commands through it, so a spelling that names one names the other.
func namesPath(cmd, p string) bool {
	for i := 0; ; {
		j := strings.Index(cmd[i:], p)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(p)
		before := at == 0 || strings.IndexByte(wordOpeners, cmd[at-1]) >= 0
		after := strings.HasSuffix(p, "/") || end == len(cmd) || strings.IndexByte(wordClosers, cmd[end]) >= 0
		if before && after {
			return true
		}
		i = at + 1
	}
}

// isMarkdown reports whether a name ends in .md, in any case.
func isMarkdown(p string) bool {
	return len(p) >= 3 && strings.EqualFold(p[len(p)-3:], ".md")
}
