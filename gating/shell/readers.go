package shell

import (
	"path"
	"strings"
	"sync"
)

// readSpec describes a read-only command: which options take values, and
// whether its first operand is a pattern or program rather than a file.
type readSpec struct {
	flags flagSpec
	// pattern: the first operand is a pattern unless one of patternOpts
	// supplied it.
	pattern     bool
	patternOpts []string
	// names: it shows the names, sizes, counts or sums of what it reads, no line of it
	names bool
}

var grepPattern = []string{"-e", "-f", "--regexp", "--file"}

// readers lists commands that only read the files they name.
var readers = sync.OnceValue(func() map[string]readSpec {
	return map[string]readSpec{
		"cat":       {},
		"tac":       {flags: flagSpec{short: "s", long: []string{"--separator"}}},
		"nl":        {flags: flagSpec{short: "bdfhilnpsvw"}},
		"head":      {flags: flagSpec{short: "nc", long: []string{"--lines", "--bytes"}}},
		"tail":      {flags: flagSpec{short: "ncs", long: []string{"--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats"}}},
		"less":      {flags: flagSpec{short: "bhjkoOpPtTxyz", long: []string{"--pattern"}}},
		"more":      {flags: flagSpec{short: "n"}},
		"most":      {},
		"view":      {},
		"bat":       {flags: flagSpec{short: "lHrmp", long: []string{"--language", "--highlight-line", "--line-range", "--map-syntax", "--theme", "--style", "--tabs", "--wrap", "--terminal-width", "--color", "--paging", "--pager", "--file-name", "--diff-context"}}},
		"batcat":    {flags: flagSpec{short: "lHrm", long: []string{"--language", "--highlight-line", "--line-range", "--map-syntax", "--theme", "--style", "--file-name"}}},
		"grep":      {flags: flagSpec{short: "efmABCdD", long: []string{"--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context", "--include", "--exclude", "--exclude-dir", "--label", "--binary-files", "--devices", "--directories", "--exclude-from"}}, pattern: true, patternOpts: grepPattern},
		"egrep":     {flags: flagSpec{short: "efmABCdD", long: []string{"--regexp", "--file", "--max-count", "--include", "--exclude", "--exclude-dir"}}, pattern: true, patternOpts: grepPattern},
		"fgrep":     {flags: flagSpec{short: "efmABCdD", long: []string{"--regexp", "--file", "--max-count", "--include", "--exclude", "--exclude-dir"}}, pattern: true, patternOpts: grepPattern},
		"zgrep":     {flags: flagSpec{short: "efmABC"}, pattern: true, patternOpts: grepPattern},
		"rg":        {flags: flagSpec{short: "efgmABCjMtTrEd", long: []string{"--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--type-add", "--max-count", "--context", "--after-context", "--before-context", "--replace", "--max-depth", "--threads", "--encoding", "--sort", "--sortr", "--max-filesize", "--pre", "--pre-glob", "--colors", "--max-columns", "--context-separator", "--field-match-separator", "--path-separator", "--ignore-file"}}, pattern: true, patternOpts: append([]string{"--files", "--type-list"}, grepPattern...)},
		"ag":        {flags: flagSpec{short: "ABCGgmp", long: []string{"--after", "--before", "--context", "--file-search-regex", "--ignore", "--ignore-dir", "--max-count", "--path-to-ignore", "--depth"}}, pattern: true, patternOpts: []string{"-g"}},
		"ack":       {flags: flagSpec{short: "ABCgm", long: []string{"--match", "--type", "--ignore-dir", "--ignore-file", "--max-count"}}, pattern: true, patternOpts: []string{"-f", "-g", "--match"}},
		"ls":        {flags: flagSpec{short: "IwT", long: []string{"--ignore", "--hide", "--width", "--tabsize", "--format", "--sort", "--time", "--time-style", "--quoting-style", "--indicator-style", "--block-size"}}, names: true},
		"eza":       {flags: flagSpec{short: "LIw", long: []string{"--level", "--ignore-glob", "--sort", "--time", "--width", "--color"}}, names: true},
		"exa":       {flags: flagSpec{short: "LIw", long: []string{"--level", "--ignore-glob", "--sort", "--time"}}, names: true},
		"wc":        {names: true},
		"file":      {flags: flagSpec{short: "mfFeP", long: []string{"--magic-file", "--files-from", "--separator", "--exclude", "--parameter"}}, names: true},
		"stat":      {flags: flagSpec{short: "ct", long: []string{"--format", "--printf"}}, names: true},
		"du":        {flags: flagSpec{short: "dBtX", long: []string{"--max-depth", "--block-size", "--threshold", "--exclude", "--exclude-from", "--time-style"}}, names: true},
		"diff":      {flags: flagSpec{short: "CUFIxXLSW", long: []string{"--context", "--unified", "--show-function-line", "--ignore-matching-lines", "--exclude", "--exclude-from", "--label", "--starting-file", "--width", "--to-file", "--from-file"}}},
		"cmp":       {flags: flagSpec{short: "iIn", long: []string{"--ignore-initial", "--bytes"}}},
		"comm":      {},
		"cut":       {flags: flagSpec{short: "bcdf", long: []string{"--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"}}},
		"paste":     {flags: flagSpec{short: "d", long: []string{"--delimiters"}}},
		"join":      {flags: flagSpec{short: "aejotv12"}},
		"column":    {flags: flagSpec{short: "cstoNRHWdl"}},
		"fold":      {flags: flagSpec{short: "w", long: []string{"--width"}}},
		"fmt":       {flags: flagSpec{short: "wpgd"}},
		"rev":       {},
		"od":        {flags: flagSpec{short: "AjNtSw", long: []string{"--address-radix", "--skip-bytes", "--read-bytes", "--format", "--strings", "--width"}}},
		"hexdump":   {flags: flagSpec{short: "efns"}},
		"hd":        {flags: flagSpec{short: "efns"}},
		"strings":   {flags: flagSpec{short: "nteT", long: []string{"--bytes", "--radix", "--encoding", "--target"}}},
		"md5sum":    {names: true},
		"sha1sum":   {names: true},
		"sha256sum": {names: true},
		"sha512sum": {names: true},
		"shasum":    {flags: flagSpec{short: "a", long: []string{"--algorithm"}}, names: true},
		"b2sum":     {flags: flagSpec{short: "l"}, names: true},
		"cksum":     {names: true},
		"md5":       {names: true},
		"readlink":  {names: true},
		"realpath":  {flags: flagSpec{long: []string{"--relative-to", "--relative-base"}}, names: true},
		"zcat":      {},
		"bzcat":     {},
		"xzcat":     {},
		"zless":     {},
		"jq":        {flags: flagSpec{short: "fL", long: []string{"--from-file", "--indent", "--tab"}}, pattern: true, patternOpts: []string{"-f", "--from-file"}},
		"tr":        {pattern: true},
		"expand":    {flags: flagSpec{short: "t", long: []string{"--tabs"}}},
		"unexpand":  {flags: flagSpec{short: "t", long: []string{"--tabs"}}},
		"look":      {pattern: true},
		"iconv":     {flags: flagSpec{short: "ft", long: []string{"--from-code", "--to-code"}}},
		"base64":    {flags: flagSpec{short: "w", long: []string{"--wrap"}}},
		"base32":    {flags: flagSpec{short: "w", long: []string{"--wrap"}}},
		"basenc":    {flags: flagSpec{short: "w", long: []string{"--wrap"}}},
		"xmllint":   {flags: flagSpec{long: []string{"--xpath", "--schema", "--relaxng"}}},
		"test":      {},
	}
})

// read records the file operands of a read-only command.
func (w *walker) read(name string, spec readSpec, args []arg, e *env) {
	if name == "test" {
		return // test -f x only asks about x
	}
	opts, ops := parseArgs(args, spec.flags)
	if name == "tr" {
		return // its operands are sets, not files
	}
	if name == "look" {
		// look WORD [FILE]: the lines of FILE that begin with WORD
		if len(ops) > 1 {
			w.readAll(ops[1:], name, e)
		}
		return
	}
	if spec.pattern && len(ops) > 0 && !hasOpt(opts, spec.patternOpts...) {
		ops = ops[1:]
	}
	if name == "jq" {
		// Operands after --args are strings, not files.
		for i, a := range ops {
			if a.s == "--args" || a.s == "--jsonargs" {
				ops = ops[:i]
				break
			}
		}
	}
	w.spanOK = true
	w.readAll(ops, name, e)
	w.spanOK = false
	for _, a := range ops {
		if !a.exact && !spec.names {
			// cat $(find memory-bank …), cat "$f": files named at run time, anywhere below
			// the word's literal directory (the working directory when it has none)
			w.searchWord(a, name, e)
			break
		}
	}
	if searchesTree(name, opts) {
		n := len(w.res.Searches)
		w.search(ops, name, searchLeavesBankOut(opts), e)
		if !searchAdmitsMarkdown(opts) {
			for i := n; i < len(w.res.Searches); i++ {
				w.res.Searches[i].NoMarkdown = true
			}
		}
	}
}

// searchAdmitsMarkdown reports whether a search's file filters may let a Markdown file in:
// true unless every include filter (grep --include, rg -g/--glob/--iglob without "!", rg
// -t/--type) names no Markdown file, or an exclude filter leaves *.md out.
func searchAdmitsMarkdown(opts []opt) bool {
	included := false
	for _, o := range opts {
		if !o.has {
			continue
		}
		v := o.value.s
		switch o.name {
		case "--include", "-g", "--glob", "--iglob", "-t", "--type":
			if !o.value.exact {
				return true
			}
			if neg, ok := strings.CutPrefix(v, "!"); ok && o.name != "--include" && o.name != "-t" && o.name != "--type" {
				if excludesMarkdown(neg) {
					return false
				}
				continue
			}
			included = true
			if mayMatchMarkdown(v) {
				return true
			}
		case "--exclude":
			if o.value.exact && excludesMarkdown(v) {
				return false
			}
		}
	}
	return !included
}

// mayMatchMarkdown reports whether a file glob or type name may match a Markdown file
// (*.md, *, md, markdown, **/*.{md,txt}…).
func mayMatchMarkdown(g string) bool {
	if namesMarkdown(g) {
		return true
	}
	last := g[strings.LastIndexByte(g, '/')+1:]
	ok, err := path.Match(last, "notes.md")
	return ok || err != nil
}

// excludesMarkdown reports an exclude filter that leaves every Markdown file out.
func excludesMarkdown(g string) bool {
	g = strings.TrimPrefix(g, "**/")
	return g == "*.md" || g == "*.MD"
}

// hasAccess reports whether list holds a.
func hasAccess(list []Access, a Access) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// searchNamesOnly are the options with which a search shows file names or counts, no line.
var searchNamesOnly = []string{"-l", "--files-with-matches", "--files-without-match", "-c", "--count", "-q", "--quiet", "--silent", "--files"}

// searchesTree reports a reader that reads its directory operands (or the working directory)
// at any depth and shows the lines it finds: rg, ag and ack always, grep told to recurse.
func searchesTree(name string, opts []opt) bool {
	if hasOpt(opts, searchNamesOnly...) || name == "grep" && hasOpt(opts, "-L") ||
		name == "ag" && hasOpt(opts, "-g") || name == "ack" && hasOpt(opts, "-f", "-g") {
		return false // file names only
	}
	switch name {
	case "rg", "ag", "ack":
		return true
	case "grep", "egrep", "fgrep":
		if hasOpt(opts, "-r", "-R", "--recursive", "--dereference-recursive") {
			return true
		}
		v, ok := optValue(opts, "-d", "--directories")
		return ok && v.s == "recurse"
	case "diff":
		// diff -r prints the lines of every file that differs, at any depth
		return hasOpt(opts, "-r", "--recursive") && !hasOpt(opts, "-q", "--brief")
	}
	return false
}

// searchLeavesBankOut reports a search told to skip memory-bank/: grep --exclude-dir, rg's
// negated -g/--glob/--iglob, ag's and ack's --ignore-dir/--ignore naming it.
func searchLeavesBankOut(opts []opt) bool {
	for _, o := range opts {
		if !o.has || !o.value.exact {
			continue
		}
		switch o.name {
		case "--exclude-dir", "--ignore-dir", "--ignore-directory", "--ignore":
			if ExcludesBank(o.value.s) {
				return true
			}
		case "-g", "--glob", "--iglob":
			if rest, ok := strings.CutPrefix(o.value.s, "!"); ok && ExcludesBank(rest) {
				return true
			}
		}
	}
	return false
}

// search records the directories a search reads at any depth (Result.Searches); none named is
// the working directory.
func (w *walker) search(roots []arg, op string, noBank bool, e *env) {
	if len(roots) == 0 {
		roots = []arg{{s: ".", exact: true}}
	}
	for _, a := range roots {
		unknown := !a.exact
		if unknown {
			a = arg{s: ".", exact: true}
		}
		if a.s == "-" || isDevice(a.s) {
			continue
		}
		p, ok := resolve(a.s, e)
		if !ok && !strings.HasPrefix(p, "~") {
			continue
		}
		acc := Access{Path: p, Op: op, Unknown: unknown, NoBank: noBank}
		if len(w.res.Searches) < 64 && !hasAccess(w.res.Searches, acc) {
			w.res.Searches = append(w.res.Searches, acc)
		}
	}
}

// ShowsNames reports whether op, a read command's name (Access.Op), shows only the names,
// sizes, counts or sums of what it reads (ls, wc, stat, md5sum), no line of it.
func ShowsNames(op string) bool {
	return readers()[op].names
}

// searchWord records as an Unknown search the files a word built at run time may name: below
// the directory of its literal prefix (memory-bank/$X: memory-bank), or the working directory.
func (w *walker) searchWord(a arg, op string, e *env) {
	dir := "."
	if i := strings.LastIndexByte(a.s, '/'); i >= 0 && !strings.ContainsAny(a.s[:i], "*?[") {
		dir = a.s[:i+1]
	}
	n := len(w.res.Searches)
	w.search([]arg{{s: dir, exact: true}}, op, false, e)
	for i := n; i < len(w.res.Searches); i++ {
		w.res.Searches[i].Unknown = true
	}
}

// sed: -i (GNU -i[SUF], --in-place[=SUF], BSD -i SUF) turns the file operands
// into writes; otherwise sed only prints, so the files are reads.
func (w *walker) sed(c *invocation) {
	args, e := c.args, c.e
	args = dropBSDSuffix(args)
	opts, ops := parseArgs(args, c.spec.flags)
	for _, o := range opts {
		if (o.name == "-e" || o.name == "--expression") && o.has {
			w.sedScriptArg(o.value, e)
		}
	}
	if !hasOpt(opts, "-e", "-f", "--expression", "--file") && len(ops) > 0 {
		w.sedScriptArg(ops[0], e)
		ops = ops[1:]
	}
	if hasOpt(opts, "-i", "--in-place") {
		w.writeAll(ops, "sed -i", e)
		return
	}
	op := "sed"
	if hasOpt(opts, "-n", "--quiet", "--silent") {
		op = "sed -n"
	}
	w.readAll(ops, op, e)
}

func (w *walker) sedScriptArg(a arg, e *env) {
	if !a.exact {
		if strings.ContainsAny(a.s, "we") {
			w.unknownWrite()
		}
		return
	}
	w.sedScript(a.s, e)
}

// dropBSDSuffix removes the separate suffix argument of BSD `sed -i ”` or
// `sed -i .bak`, which GNU sed would read as the script.
func dropBSDSuffix(args []arg) []arg {
	for i, a := range args {
		if a.s == "--" {
			break
		}
		if a.exact && a.s == "-i" && i+1 < len(args) {
			n := args[i+1]
			if n.exact && (n.s == "" || (n.s[0] == '.' && len(n.s) < 12 && !strings.ContainsAny(n.s, "/ ;"))) {
				out := make([]arg, 0, len(args)-1)
				out = append(out, args[:i+1]...)
				return append(out, args[i+2:]...)
			}
		}
	}
	return args
}

// awk reads its files unless gawk's inplace extension is loaded; the program
// itself may redirect output or run commands.
func (w *walker) awk(c *invocation) {
	name, args, e := c.name, c.args, c.e
	opts, ops := parseArgs(args, c.spec.flags)
	var prog arg
	if !hasOpt(opts, "-f", "--file", "-E", "--exec") && len(ops) > 0 {
		prog, ops = ops[0], ops[1:]
	}
	files := ops[:0:0]
	for _, a := range ops {
		if a.exact && isAssignment(a.s) {
			continue // var=value operands
		}
		files = append(files, a)
	}
	inplace := false
	for _, o := range opts {
		if (o.name == "-i" || o.name == "--include") && strings.HasPrefix(o.value.s, "inplace") {
			inplace = true
		}
	}
	if prog.s != "" {
		w.awkProgram(prog, e)
	}
	for _, o := range opts {
		if (o.name == "-f" || o.name == "--file") && o.has {
			// the program file: a syntax error prints its lines
			w.readArg(o.value, name+" -f", e)
		}
	}
	if inplace {
		w.writeAll(files, name+" -i inplace", e)
		return
	}
	w.readAll(files, name, e)
}

func isAssignment(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// awkProgram finds output redirections (print > "file", print > var), output
// pipes (print | "cmd"), system() and command getline in an awk program.
// Strings are skipped; a '>' counts only inside a print or printf statement,
// where it is a redirection rather than a comparison.
func (w *walker) awkProgram(prog arg, e *env) {
	src := prog.s
	if awkRunsCommands(src) {
		w.unknownWrite()
	}
	inPrint := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			i = awkStringEnd(src, i)
		case strings.IndexByte(";{}\n", c) >= 0: // the statement ends
			inPrint = false
		case isIdent(c) && (i == 0 || !isIdent(src[i-1])):
			j := i
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			inPrint = inPrint || awkPrints[src[i:j]]
			i = j - 1
		case inPrint && (c == '>' || c == '|'):
			i = w.awkRedirect(src, i, e) - 1
			inPrint = false
		}
	}
}

// awkPrints are awk's output statements, whose output a redirect sends to a file or command.
var awkPrints = map[string]bool{"print": true, "printf": true}

// awkRunsCommands reports an awk program that runs commands: system(), cmd | getline, |&.
func awkRunsCommands(src string) bool {
	for _, s := range []string{"system(", "| getline", "|getline", "|&"} {
		if strings.Contains(src, s) {
			return true
		}
	}
	return false
}

// awkStringEnd returns the index of the quote that ends the string literal opened at i.
func awkStringEnd(src string, i int) int {
	j := i + 1
	for ; j < len(src) && src[j] != '"'; j++ {
		if src[j] == '\\' {
			j++
		}
	}
	return j
}

// awkRedirect judges the print redirect (>, >>, |) at i and returns the index after the
// operator and the blanks that follow it: print > "file" writes file; to a file named at run
// time or to a command, unknown writes.
func (w *walker) awkRedirect(src string, i int, e *env) int {
	c := src[i]
	j := i + 1
	if c == '>' && j < len(src) && src[j] == '>' {
		j++
	}
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	switch {
	case c == '|':
		w.unknownWrite() // output piped to a command
	case j < len(src) && src[j] == '"':
		k := j + 1
		for k < len(src) && src[k] != '"' {
			k++
		}
		w.writeArg(arg{s: src[j+1 : min(k, len(src))], exact: true}, "awk", e)
	default:
		w.unknownWrite() // print > FILENAME, print > f
	}
	return j
}

// sedScript finds the commands of a sed script that write files (w, W, and
// the s command's w flag) or run commands (e, and the s command's e flag).
func (w *walker) sedScript(script string, e *env) {
	for _, cmd := range sedCommands(script) {
		if cmd == "" {
			continue
		}
		switch cmd[0] {
		case 'w', 'W':
			w.writeArg(arg{s: strings.TrimSpace(cmd[1:]), exact: true}, "sed w", e)
		case 'e':
			w.unknownWrite()
			w.namedArg("sed e", arg{s: strings.TrimSpace(cmd[1:]), exact: true}, e)
		case 's':
			if len(cmd) < 2 {
				continue
			}
			flags := cmd[min(sedSubstEnd(cmd), len(cmd)):]
			if k := strings.IndexByte(flags, 'w'); k >= 0 {
				w.writeArg(arg{s: strings.TrimSpace(flags[k+1:]), exact: true}, "sed s///w", e)
				flags = flags[:k]
			}
			if strings.IndexByte(flags, 'e') >= 0 {
				w.unknownWrite()
			}
		}
	}
}

// sedCommands splits a sed script into commands with their addresses
// removed. It is rough on purpose: it only has to find w, W and e.
func sedCommands(script string) []string {
	var out []string
	for _, line := range strings.Split(script, "\n") {
		rest := line
		for rest != "" {
			rest = sedSkipAddress(strings.TrimLeft(rest, " \t;{}!"))
			if rest == "" {
				break
			}
			var cmd string
			cmd, rest = sedCommand(rest)
			if cmd != "" {
				out = append(out, cmd)
			}
		}
	}
	return out
}

// sedAddressChars are the characters of a sed address besides its regular expressions.
const sedAddressChars = "0123456789$,~+! "

// sedSkipAddress returns rest past the address it starts with: numbers, $, /re/, \cREc,
// ranges and steps.
func sedSkipAddress(rest string) string {
	for rest != "" {
		c := rest[0]
		switch {
		case strings.IndexByte(sedAddressChars, c) >= 0:
			rest = rest[1:]
		case c == '/' || c == '\\':
			rest = sedSkipRegexp(rest)
		default:
			return rest
		}
	}
	return rest
}

// sedSkipRegexp returns rest past the /re/ or \cREc address it starts with, and its I and M
// flags.
func sedSkipRegexp(rest string) string {
	d := byte('/')
	if rest[0] == '\\' && len(rest) > 1 {
		d = rest[1]
		rest = rest[1:]
	}
	j := 1
	for j < len(rest) && rest[j] != d {
		if rest[j] == '\\' {
			j++
		}
		j++
	}
	rest = rest[min(j+1, len(rest)):]
	for rest != "" && (rest[0] == 'I' || rest[0] == 'M') {
		rest = rest[1:]
	}
	return rest
}

// sedLineCommands are the sed commands that take the rest of the line.
const sedLineCommands = "wWerRaicbtT:"

// sedCommand splits the command rest starts with from what follows it; cmd is "" for an s
// or y command cut short.
func sedCommand(rest string) (cmd, after string) {
	switch c := rest[0]; {
	case strings.IndexByte(sedLineCommands, c) >= 0:
		return rest, ""
	case c == 's' || c == 'y':
		// s/x/y/flags: up to the next ; or the end, after the third delimiter
		if len(rest) < 2 {
			return "", ""
		}
		i := sedSubstEnd(rest)
		end := len(rest)
		if i < len(rest) {
			if k := strings.IndexAny(rest[i:], ";}"); k >= 0 && !strings.Contains(rest[i:i+k], "w") {
				end = i + k
			}
		}
		return rest[:end], rest[end:]
	default:
		return rest[:1], rest[1:]
	}
}

// sedSubstEnd returns the index after the third delimiter of s/x/y/ (or y/x/y/): where its
// flags start.
func sedSubstEnd(cmd string) int {
	d := cmd[1]
	n, i := 0, 2
	for ; i < len(cmd) && n < 2; i++ {
		if cmd[i] == '\\' {
			i++
			continue
		}
		if cmd[i] == d {
			n++
		}
	}
	return i
}

// readerCommands registers the commands that only read the files they name; an output
// option (base64 -o) still writes its file.
func readerCommands() []command {
	return []command{{names: mapKeys(readers()), family: "readers", does: "reads its file operands",
		handle: always(func(w *walker, c *invocation) {
			w.read(c.name, readers()[c.name], c.args, c.e)
			w.outputFlag(c.name, c.args, c.e)
		})}}
}
