package shell

import (
	"strings"
)

// readSpec describes a read-only command: which options take values, and
// whether its first operand is a pattern or program rather than a file.
type readSpec struct {
	flags flagSpec
	// pattern: the first operand is a pattern unless one of patternOpts
	// supplied it.
	pattern     bool
	patternOpts []string
}

var grepPattern = []string{"-e", "-f", "--regexp", "--file"}

// readers lists commands that only read the files they name.
var readers = map[string]readSpec{
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
	"ls":        {flags: flagSpec{short: "IwT", long: []string{"--ignore", "--hide", "--width", "--tabsize", "--format", "--sort", "--time", "--time-style", "--quoting-style", "--indicator-style", "--block-size"}}},
	"eza":       {flags: flagSpec{short: "LIw", long: []string{"--level", "--ignore-glob", "--sort", "--time", "--width", "--color"}}},
	"exa":       {flags: flagSpec{short: "LIw", long: []string{"--level", "--ignore-glob", "--sort", "--time"}}},
	"wc":        {},
	"file":      {flags: flagSpec{short: "mfFeP", long: []string{"--magic-file", "--files-from", "--separator", "--exclude", "--parameter"}}},
	"stat":      {flags: flagSpec{short: "ct", long: []string{"--format", "--printf"}}},
	"du":        {flags: flagSpec{short: "dBtX", long: []string{"--max-depth", "--block-size", "--threshold", "--exclude", "--exclude-from", "--time-style"}}},
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
	"md5sum":    {},
	"sha1sum":   {},
	"sha256sum": {},
	"sha512sum": {},
	"shasum":    {flags: flagSpec{short: "a", long: []string{"--algorithm"}}},
	"b2sum":     {flags: flagSpec{short: "l"}},
	"cksum":     {},
	"md5":       {},
	"readlink":  {},
	"realpath":  {flags: flagSpec{long: []string{"--relative-to", "--relative-base"}}},
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
	"xmllint":   {flags: flagSpec{long: []string{"--xpath", "--schema", "--relaxng"}}},
	"test":      {},
}

// read records the file operands of a read-only command.
func (w *walker) read(name string, spec readSpec, args []arg, e *env) {
	if name == "test" {
		return // test -f x only asks about x
	}
	opts, ops := parseArgs(args, spec.flags)
	if name == "tr" || name == "look" {
		return // their operands are sets and words, not files
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
	w.readAll(ops, name, e)
}

// sed: -i (GNU -i[SUF], --in-place[=SUF], BSD -i SUF) turns the file operands
// into writes; otherwise sed only prints, so the files are reads.
func (w *walker) sed(args []arg, e *env) {
	args = dropBSDSuffix(args)
	opts, ops := parseArgs(args, flagSpec{short: "efl", optional: "i", long: []string{"--expression", "--file", "--line-length"}})
	if !hasOpt(opts, "-e", "-f", "--expression", "--file") && len(ops) > 0 {
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
func (w *walker) awk(name string, args []arg, e *env) {
	opts, ops := parseArgs(args, flagSpec{short: "fvFEil", long: []string{"--file", "--assign", "--field-separator", "--include", "--load", "--exec"}})
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

// awkProgram finds output redirections (print > "file", print | "cmd") and
// system() calls in an awk program.
func (w *walker) awkProgram(prog arg, e *env) {
	src := prog.s
	if strings.Contains(src, "system(") || strings.Contains(src, "| getline") && strings.Contains(src, "\"") {
		w.unknownWrite()
	}
	for _, l := range stringLiterals(src) {
		before := strings.TrimRight(src[:l.start], " \t")
		switch {
		case strings.HasSuffix(before, "|"):
			w.unknownWrite() // output piped to a command
		case strings.HasSuffix(before, ">"):
			w.writeArg(arg{s: l.value, exact: true}, "awk", e)
		}
	}
	// print > file with a variable target.
	if i := strings.Index(src, "> $"); i >= 0 || strings.Contains(src, ">$") {
		w.unknownWrite()
	}
}
