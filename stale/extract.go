package stale

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/mbguard/mbguard/bank"
)

// Kind is what a reference names.
type Kind string

// Reference kinds.
const (
	KindPath   Kind = "path"
	KindMake   Kind = "make"   // a Makefile target
	KindScript Kind = "script" // a package.json script
	KindJust   Kind = "just"   // a justfile recipe
	KindTask   Kind = "task"   // a Taskfile task
	KindSymbol Kind = "symbol" // a code identifier
)

// Ref is one reference a note makes to the repository.
type Ref struct {
	Kind Kind
	Name string // the path (cleaned, without ./, :line or #anchor), target, script or identifier
	Raw  string // the text as written, which Fix replaces
	Line int    // 1-based
	// Link is true for a Markdown link target, which is a path for sure; other paths are
	// judged more carefully (see Check).
	Link bool
	// Historical is true inside a section a person marked as intentionally historical.
	Historical bool
	// Planned is true when the line says the thing is not there yet or must not be made
	// ("does not exist yet", "DO NOT create", "to be added"): a path git never knew is then
	// no stale reference.
	Planned bool
}

var plannedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(does ?n[o']?t (yet )?exist|not (yet )?(exist|created|there|present)|do ?n[o']?t create|never create|to be (added|created|written|made)|will (be )?(added|created|written)|planned|todo|tbd|next steps?|future)\b`)
})

// todoItem reports whether a line is a to-do, which names what is not there yet: an unchecked
// task ("- [ ] Add docs/bench.md") or a list item that starts with a verb of making ("- Create
// docs/bench.md"), as in CivWeb-Lite's LATER tasks. Plain code, not plannedRE: it runs on every
// line that names something.
func todoItem(text string) bool {
	t := strings.TrimLeft(text, " \t")
	switch {
	case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "):
		t = t[2:]
	default:
		i := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == 0 || i+1 >= len(t) || (t[i] != '.' && t[i] != ')') || t[i+1] != ' ' {
			return false
		}
		t = t[i+2:]
	}
	t = strings.TrimLeft(t, " ")
	if strings.HasPrefix(t, "[ ]") {
		return true
	}
	w, _, _ := strings.Cut(t, " ")
	switch strings.ToLower(w) {
	case "create", "add", "write", "introduce":
		return true
	}
	return false
}

// Markers that say "this note is intentionally historical": on a line of its own, the marker
// covers the rest of its section (the whole note when it comes before the first heading); on
// a line with text, that line.
// plannedWords holds a word of each of plannedRE's alternatives: a line with none of them
// cannot match, and most lines have none (the regular expression costs a third of a run).
var plannedWords = []string{"exist", "creat", "there", "present", "added", "written", "made", "planned", "todo", "tbd", "next step", "future"}

func mayBePlanned(text string) bool {
	l := strings.ToLower(text)
	for _, w := range plannedWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

var historicalMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<!--\s*mbguard:(historical|verified)\b[^>]*-->`) })
var (
	heading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}(#{1,6})(\s|$)`) })
	mdLink  = sync.OnceValue(func() *regexp.Regexp {
		// a target may hold balanced parentheses, as Next.js route groups do: src/app/(dashboard)/page.tsx
		return regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?((?:[^()<>\s]|\([^()<>\s]*\))+(?: [^)<>"]+)*)>?(?:\s+"[^"]*")?\s*\)`)
	})
	refDef  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`) })
	declSym = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:func|class|def|type|interface|struct|enum|trait|fn)\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)`)
	})
	callSym = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*)\([^()]*\)$`)
	})
	lineSufix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?::\d+){1,2}$|#L\d+(?:-L?\d+)?$`) })
)

// shellFences are fence info strings whose lines are commands; other fenced code (Go,
// TypeScript…) is a sample, not a reference, and is skipped.
var shellFences = map[string]bool{"": true, "sh": true, "bash": true, "shell": true, "console": true, "zsh": true, "shell-session": true, "powershell": true, "ps1": true, "cmd": true, "fish": true, "text": true, "txt": true}

// Extract returns the references in one note's Markdown, in order.
func Extract(content []byte) []Ref {
	var (
		out        []Ref
		fence      bank.Fence
		inFence    bool
		fenceShell bool
		section    int // level of the current heading, 0 before the first
		histLevel  = -1
		inComment  bool
	)
	lineNo := 0
	for len(content) > 0 {
		lineNo++
		var line []byte
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			line, content = content, nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		text := string(line)
		code := fence.Line(line)
		if code && !inFence { // an opening fence line
			inFence = true
			info := strings.TrimLeft(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(text), ">-*+ 0123456789.")), "`~")
			if f := strings.Fields(info); len(f) > 0 {
				info = strings.ToLower(strings.Trim(f[0], "{}."))
			}
			fenceShell = shellFences[info]
			continue
		}
		if inFence {
			if !code || isFenceClose(text) {
				inFence = false
				if code {
					continue
				}
			} else {
				if fenceShell && !treeRoot(text) {
					out = appendCommandLine(out, text, lineNo, histLevel >= 0)
				}
				continue
			}
		}
		if m := headingOf(text); m != nil {
			lvl := len(m[1])
			if histLevel > 0 && lvl <= histLevel {
				histLevel = -1
			}
			section = lvl
		}
		lineHist := histLevel >= 0
		if loc := markerIn(text); loc != nil {
			if strings.TrimSpace(text[:loc[0]]+text[loc[1]:]) == "" {
				if histLevel < 0 {
					histLevel = section
				}
				continue
			}
			lineHist = true
		}
		// HTML comments are not read as prose
		if inComment {
			if i := strings.Index(text, "-->"); i >= 0 {
				text = strings.Repeat(" ", i+3) + text[i+3:]
				inComment = false
			} else {
				continue
			}
		}
		text = maskComments(text, &inComment)
		n := len(out)
		out = appendProseLine(out, text, lineNo, lineHist)
		if len(out) > n && (todoItem(text) || mayBePlanned(text) && plannedRE().MatchString(text)) {
			for i := n; i < len(out); i++ {
				out[i].Planned = true
			}
		}
	}
	return out
}

func isFenceClose(text string) bool {
	t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(text), "> "))
	return strings.Trim(t, "`") == "" || strings.Trim(t, "~") == ""
}

// maskComments blanks <!-- … --> comments in a line; inComment carries an open comment to
// the next line.
func maskComments(text string, inComment *bool) string {
	for {
		i := strings.Index(text, "<!--")
		if i < 0 {
			return text
		}
		j := strings.Index(text[i+4:], "-->")
		if j < 0 {
			*inComment = true
			return text[:i]
		}
		end := i + 4 + j + 3
		text = text[:i] + strings.Repeat(" ", end-i) + text[end:]
	}
}

// appendProseLine reads a line of Markdown outside fences: links, code spans, then the bare
// words of the prose.
func appendProseLine(out []Ref, text string, line int, hist bool) []Ref {
	add := func(r Ref) { r.Line, r.Historical = line, hist; out = append(out, r) }
	masked := []byte(text)
	blank := func(a, b int) {
		for k := a; k < b; k++ {
			masked[k] = ' '
		}
	}
	// code spans first: a link inside a code span is code
	for _, sp := range bank.CodeSpans(text) {
		inner := strings.TrimSpace(text[sp[0]:sp[1]])
		blank(sp[2], sp[3])
		out = appendSpan(out, inner, line, hist)
	}
	mt := string(masked)
	if m := refDefIn(mt); m != nil {
		if p, ok := linkPath(mt[m[2]:m[3]]); ok {
			add(Ref{Kind: KindPath, Name: p, Raw: raw(mt[m[2]:m[3]]), Link: true})
		}
		return out
	}
	for _, m := range linksIn(mt) {
		target := mt[m[2]:m[3]]
		if p, ok := linkPath(target); ok {
			add(Ref{Kind: KindPath, Name: p, Raw: raw(target), Link: true})
		}
		blank(m[0], m[1])
	}
	if bytes.IndexByte(masked, '/') < 0 {
		return out // no word without a slash names a path: most lines of prose
	}
	for _, tok := range words(string(masked)) {
		if strings.IndexByte(tok, '/') < 0 {
			continue // trimming never adds one (pathToken)
		}
		if p, r, ok := pathToken(tok); ok {
			add(Ref{Kind: KindPath, Name: p, Raw: r})
		}
	}
	return out
}

// words splits text into the words a path may be: at spaces, and at punctuation and symbols
// outside ASCII. Chinese and Japanese prose puts no space around a path and ends it with
// full-width punctuation ("写入 memory-bank/，然后…", "src/a.go；之后"), which no path holds;
// CJK letters stay in the word, since a path may be written in them (docs/文档).
func words(text string) []string {
	ascii := true
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.Fields(text) // most lines: Fields' own fast path
	}
	return strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || r > unicode.MaxASCII && (unicode.IsPunct(r) || unicode.IsSymbol(r))
	})
}

// raw is the part of a link target that names the path (without #anchor or ?query).
func raw(target string) string {
	if i := strings.IndexAny(target, "#?"); i >= 0 {
		return target[:i]
	}
	return target
}

// appendSpan reads one inline code span: a command, a symbol, a whole path (which may hold
// spaces), or paths among its words.
func appendSpan(out []Ref, inner string, line int, hist bool) []Ref {
	if inner == "" {
		return out
	}
	add := func(r Ref) { r.Line, r.Historical = line, hist; out = append(out, r) }
	if m := declSym().FindStringSubmatch(inner); m != nil {
		add(Ref{Kind: KindSymbol, Name: m[1], Raw: m[1]})
		return out
	}
	if m := callSym().FindStringSubmatch(inner); m != nil {
		for _, id := range strings.Split(m[1], ".") {
			if !ignoredIdent[id] {
				add(Ref{Kind: KindSymbol, Name: id, Raw: id})
			}
		}
		return out
	}
	if spacedPath(inner) {
		if p, r, ok := pathToken(inner); ok {
			add(Ref{Kind: KindPath, Name: p, Raw: r})
			return out
		}
	}
	return appendCommandLine(out, inner, line, hist)
}

// ignoredIdent are receivers that name no project symbol.
var ignoredIdent = map[string]bool{"this": true, "self": true, "super": true, "cls": true}

// appendCommandLine reads shell text: the project's commands and path arguments.
func appendCommandLine(out []Ref, text string, line int, hist bool) []Ref {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "#") || strings.ContainsAny(t, "├└│") {
		return out // a shell comment or a tree drawing
	}
	for _, p := range []string{"$ ", "> ", "% "} {
		t = strings.TrimPrefix(t, p)
	}
	add := func(r Ref) { r.Line, r.Historical = line, hist; out = append(out, r) }
	for _, cmd := range splitCommands(t) {
		f := strings.Fields(cmd)
		for len(f) > 0 && (strings.Contains(f[0], "=") || f[0] == "sudo" || f[0] == "env") {
			f = f[1:] // VAR=value prefixes
		}
		if len(f) == 0 {
			continue
		}
		if k, names := commandRefs(f); k != "" {
			for _, n := range names {
				add(Ref{Kind: k, Name: n, Raw: n})
			}
		}
		out := false
		for _, tok := range words(cmd) {
			// what a redirection writes is the command's output, not a file it reads
			// ("echo foo > memory-bank/test.md" in memory-bank-skill's write-guard table)
			if tok == ">" || tok == ">>" {
				out = true
				continue
			}
			if out {
				out = false
				continue
			}
			if p, r, ok := pathToken(tok); ok {
				add(Ref{Kind: KindPath, Name: p, Raw: r})
			}
		}
	}
	return out
}

var commandSeparators = strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "|", "\n")

func splitCommands(t string) []string {
	return strings.Split(commandSeparators.Replace(t), "\n")
}

func isCommandWord(w string) Kind {
	switch w {
	case "make", "gmake":
		return KindMake
	case "npm", "pnpm", "yarn", "bun":
		return KindScript
	case "just":
		return KindJust
	case "task":
		return KindTask
	}
	return ""
}

// managerBuiltins are pnpm/yarn/bun subcommands, which are not scripts.
var managerBuiltins = map[string]bool{
	"add": true, "install": true, "i": true, "ci": true, "update": true, "up": true, "upgrade": true, "remove": true, "rm": true,
	"uninstall": true, "link": true, "unlink": true, "import": true, "rebuild": true, "prune": true, "fetch": true,
	"patch": true, "audit": true, "list": true, "ls": true, "outdated": true, "why": true, "exec": true, "dlx": true,
	"create": true, "init": true, "publish": true, "pack": true, "store": true, "env": true, "setup": true,
	"config": true, "root": true, "bin": true, "x": true, "info": true, "cache": true, "workspace": true,
	"workspaces": true, "global": true, "version": true, "login": true, "logout": true, "set": true, "dedupe": true,
	"help": true, "pm": true, "node": true, "plugin": true, "licenses": true, "owner": true, "tag": true, "test": true,
	"start": true, "t": true, "deploy": true, "recursive": true, "-r": true, "--filter": true,
}

// commandRefs returns the targets, scripts, recipes or tasks a command line names.
func commandRefs(f []string) (Kind, []string) {
	k := isCommandWord(f[0])
	args := f[1:]
	var names []string
	switch k {
	case KindMake, KindJust, KindTask:
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "-C" || a == "-f" || a == "--file" || a == "--directory" || a == "-d" || a == "--justfile" || a == "--taskfile" || strings.HasPrefix(a, "-C") || strings.HasPrefix(a, "--directory=") || strings.HasPrefix(a, "--dir"):
				return "", nil // another directory's or file's targets
			case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
				continue
			}
			if !validName(a) {
				break
			}
			names = append(names, a)
			if k != KindMake {
				break // the rest are the recipe's arguments
			}
		}
	case KindScript:
		if len(args) == 0 {
			return "", nil
		}
		switch {
		case args[0] == "run" || args[0] == "run-script":
			if len(args) > 1 && validName(args[1]) {
				names = append(names, scriptNames(args[1])...)
			}
		case f[0] != "npm" && !managerBuiltins[args[0]] && !strings.HasPrefix(args[0], "-") && validName(args[0]):
			names = append(names, scriptNames(args[0])...)
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	return k, names
}

// scriptNames reads the shorthand notes use for a family of scripts: test:e2e:chromium/firefox
// names test:e2e:chromium and test:e2e:firefox (each alternative replaces the last :part).
// A name without a colon before its first slash is taken as written.
func scriptNames(name string) []string {
	alts := strings.Split(name, "/")
	i := strings.LastIndexByte(alts[0], ':')
	if len(alts) == 1 || i < 0 {
		return []string{name}
	}
	out := []string{alts[0]}
	for _, a := range alts[1:] {
		if a == "" || strings.Contains(a, ":") {
			return []string{name}
		}
		out = append(out, alts[0][:i+1]+a)
	}
	return out
}

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_:.\-/]*$`) })

func validName(s string) bool { return nameRE().MatchString(s) && !strings.Contains(s, "://") }

// linkPath turns a Markdown link target into a path, or reports that it is not one (a URL,
// an anchor, an absolute or home path).
func linkPath(target string) (string, bool) {
	target = raw(target)
	if target == "" || strings.Contains(target, ":") || strings.HasPrefix(target, "/") || strings.HasPrefix(target, "~") {
		return "", false
	}
	target = strings.ReplaceAll(target, "%20", " ")
	return cleanPath(target)
}

var tlds = map[string]bool{"com": true, "org": true, "net": true, "io": true, "dev": true, "app": true, "co": true, "ai": true, "gov": true, "edu": true, "me": true, "sh": true, "cloud": true, "info": true, "biz": true, "us": true, "uk": true, "de": true, "cn": true, "ru": true, "jp": true, "fr": true, "xyz": true, "tech": true, "site": true, "so": true}

// pathToken reports whether a word is a repository path, and returns it cleaned and as
// written.
func pathToken(tok string) (name, rawTok string, ok bool) {
	tok = strings.Trim(tok, "\"'“”‘’«»")
	tok = strings.TrimLeft(tok, "([{<")
	t := strings.TrimRight(tok, ",;:!?)]}>*")
	elided := strings.HasSuffix(t, "...") && !strings.HasSuffix(t, "/...") // dist/server/... is the folder's content
	tok = strings.TrimRight(tok, ".,;:!?)]}>*")
	if tok == "" || !strings.Contains(tok, "/") || strings.Contains(tok, "://") || strings.HasPrefix(tok, "//") {
		return "", "", false
	}
	if elided || strings.HasSuffix(tok, "-") || strings.HasSuffix(tok, "_") || strings.Contains(strings.ToLower(tok), "xxx") {
		return "", "", false // elided (REQ-005-..., REQ-005-…) or a placeholder (docs/design-xxx.md)
	}
	rawTok = tok
	if last := tok[len(tok)-1]; last >= '0' && last <= '9' { // only a line suffix (:12, #L3) ends in a digit
		rawTok = lineSufix().ReplaceAllString(tok, "")
	}
	switch rawTok[0] {
	case '/', '~', '$', '-', '@', '%', '+', '=', '#', '&':
		return "", "", false
	}
	if strings.ContainsAny(rawTok, "*?{}<>|$%=\\`,;:()[]!^") {
		return "", "", false
	}
	first := strings.SplitN(strings.TrimPrefix(rawTok, "./"), "/", 2)[0]
	if i := strings.LastIndexByte(first, '.'); i > 0 && tlds[strings.ToLower(first[i+1:])] {
		return "", "", false // a domain: github.com/…
	}
	if !strings.ContainsFunc(rawTok, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) {
		return "", "", false // 1/2, 2026/01/02
	}
	name, ok = cleanPath(rawTok)
	return name, rawTok, ok
}

// cleanPath drops ./ and a trailing /, and refuses empty or self-referencing paths.
func cleanPath(p string) (string, bool) {
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" || p == "." || p == ".." || strings.Contains(p, "//") {
		return "", false
	}
	return p, true
}

var extRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.[A-Za-z0-9]{1,8}$`) })

// spacedPath reports whether a code span is one path with spaces in it (docs/My Notes.md):
// its first word holds a slash, it ends in a file extension, and no word is a flag.
func spacedPath(s string) bool {
	if !strings.Contains(s, " ") || strings.ContainsAny(s, "\"'$|;&<>=(){}*") || !extRE().MatchString(s) {
		return false
	}
	f := strings.Fields(s)
	if !strings.Contains(f[0], "/") {
		return false
	}
	for _, w := range f {
		if strings.HasPrefix(w, "-") {
			return false
		}
	}
	return true
}

// treeRoot reports whether a fenced line is the root of a tree drawing (project/), not a
// command.
func treeRoot(line string) bool {
	f := strings.Fields(line)
	return len(f) == 1 && strings.HasSuffix(f[0], "/") && !strings.HasPrefix(f[0], "./")
}

// The regular expressions run only on lines that hold their first bytes: most lines of a
// bank are prose with none.

func headingOf(text string) []string {
	if !strings.HasPrefix(strings.TrimLeft(text, " "), "#") {
		return nil
	}
	return heading().FindStringSubmatch(text)
}

func markerIn(text string) []int {
	if !strings.Contains(text, "mbguard:") {
		return nil
	}
	return historicalMarker().FindStringIndex(text)
}

func refDefIn(text string) []int {
	if !strings.HasPrefix(strings.TrimLeft(text, " "), "[") || !strings.Contains(text, "]:") {
		return nil
	}
	return refDef().FindStringSubmatchIndex(text)
}

func linksIn(text string) [][]int {
	if !strings.Contains(text, "](") {
		return nil
	}
	return mdLink().FindAllStringSubmatchIndex(text, -1)
}
