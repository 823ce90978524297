package gating

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/mbguard/mbguard/gating/shell"
)

// shellResult is what the engine needs from the shell classifier.
type shellResult struct {
	reads   []string
	writes  []shellWrite
	unknown bool
	// named is the command with the words that are only read blanked out: a name in it is
	// one the command may write (git log -- memory-bank > "$F" does not name the bank).
	named string
	runs  []shell.Run
	// person are the mbguard commands only the person may run (shell.Result.Person)
	person []string
}

// shellWrite is one path a shell command writes.
type shellWrite struct {
	path string
	// exact is a literal path (rm -rf ., a glob such as *), not the literal prefix of a
	// run-time word; tree is a directory written at any depth (tar x, find -delete).
	exact, tree bool
	noMD        bool   // a tree write that touches no Markdown file of the bank (find -name '*.pyc' -delete, prettier … '!memory-bank/**')
	op          string // what writes it: "redirect", "git reset" …
	via         string // the script this path is an argument of (shell.Access.Via)
	exclude     string // the command that leaves the bank out (shell.Access.Exclude)
}

// classifyShell adapts shell.Classify. A write the classifier saw without a target, and a
// target that is only a hint (the literal prefix of a run-time word), both count as writes:
// a hint under memory-bank/ is still a write into it.
func classifyShell(cmd, cwd string, fx Facts) shellResult {
	var vars map[string]string
	if er, ok := fx.(EnvReader); ok {
		vars = er.Env()
	}
	return fromShell(cmd, shell.ClassifyEnv(cmd, cwd, vars))
}

// fromShell is what the engine keeps of a classifier's result for the command cmd.
func fromShell(cmd string, r shell.Result) shellResult {
	out := shellResult{unknown: r.Unknown || r.Write && len(r.Writes) == 0, named: blank(cmd, r.ReadSpans), runs: r.Runs, person: r.Person}
	for _, a := range r.Reads {
		if !a.Unknown && a.Path != "" {
			out.reads = append(out.reads, a.Path)
		}
	}
	for _, a := range r.Writes {
		if a.Path != "" {
			out.writes = append(out.writes, shellWrite{path: a.Path, exact: !a.Unknown, tree: a.Tree, noMD: a.NoMarkdown || a.NoBank, op: a.Op, via: a.Via, exclude: a.Exclude})
		}
	}
	return out
}

// classifyPowerShell adapts shell.ClassifyPowerShell as classifyShell adapts Classify.
func classifyPowerShell(cmd, cwd string) shellResult {
	return fromShell(cmd, shell.ClassifyPowerShell(cmd, cwd))
}

// blank replaces the byte ranges spans of cmd with spaces.
func blank(cmd string, spans [][2]int) string {
	if len(spans) == 0 {
		return cmd
	}
	b := []byte(cmd)
	for _, sp := range spans {
		if sp[0] < 0 || sp[1] > len(b) || sp[0] >= sp[1] {
			continue
		}
		for i := sp[0]; i < sp[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

// AbsReader is implemented by Facts that can also read a file outside the repository (a
// script in /tmp the agent wrote in an earlier call). Optional: without it only scripts in
// the repository are read.
type AbsReader interface {
	ReadAbs(abs string) (string, bool)
}

// EnvVars are the variables whose values the hook shares with the agent's shell.
var EnvVars = []string{"TMPDIR", "HOME", "CLAUDE_PROJECT_DIR"}

// EnvReader is implemented by Facts that know the values of EnvVars (absolute paths, or ""
// for one known to be unset).
// Optional: without it a command built from them writes somewhere unknown.
type EnvReader interface {
	Env() map[string]string
}

// BankStatuser is implemented by Facts that can tell which memory-bank/ files hold
// uncommitted work (repository-relative paths). Optional: without it, or when ok is false, a
// command that rewrites the whole work tree is refused whenever it takes in the bank.
type BankStatuser interface {
	BankChanges() (files []string, ok bool)
}

// maxScriptDepth bounds scripts that run scripts.
const maxScriptDepth = 3

// maxScript bounds the script text judged; a longer one is judged by its first part and,
// like any shell command, by the outcome check after it ran.
const maxScript = 256 << 10

// readRun returns the content of a file a command runs, through fx.
func readRun(p string, cwd string, fx Facts) (string, bool) {
	c := canon(p, cwd, fx)
	var s string
	var ok bool
	switch {
	case c.inRepo:
		s, ok = fx.Read(c.rel)
	case strings.HasPrefix(p, "/"):
		if r, isR := fx.(AbsReader); isR {
			s, ok = r.ReadAbs(p)
		}
	}
	if len(s) > maxScript {
		s = s[:maxScript]
	}
	return s, ok
}

// inlineCmd is how code of an interpreter is handed to the classifier: as inline code,
// which it already judges (open(…, "w"), fs.writeFileSync, perl's > modes…).
var inlineCmd = map[string]string{"python": "python3 -c ", "node": "node -e ", "perl": "perl -e ",
	"ruby": "ruby -e ", "php": "php -r ", "lua": "lua -e "}

// shebangKind maps a script's #! line onto the kind of its content.
func shebangKind(content string) string {
	line, _, _ := strings.Cut(content, "\n")
	if !strings.HasPrefix(line, "#!") {
		return "sh"
	}
	f := strings.Fields(line[2:])
	if len(f) == 0 {
		return "sh"
	}
	prog := path.Base(f[0])
	if prog == "env" {
		for _, x := range f[1:] {
			if !strings.HasPrefix(x, "-") {
				prog = path.Base(x)
				break
			}
		}
	}
	switch {
	case strings.HasPrefix(prog, "python"):
		return "python"
	case prog == "node" || prog == "nodejs":
		return "node"
	case strings.HasPrefix(prog, "perl"):
		return "perl"
	case strings.HasPrefix(prog, "ruby"):
		return "ruby"
	case strings.HasPrefix(prog, "php"):
		return "php"
	}
	return "sh"
}

func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// scriptCommands turns a file a command runs into the shell command lines that do what it
// holds, as far as its kind is known: nil when it is not.
func scriptCommands(run shell.Run, content string) []string {
	kind := run.Kind
	if kind == "sh" {
		kind = shebangKind(content)
	}
	switch kind {
	case "sh":
		return []string{content}
	case "make":
		return makeCommands(content)
	case "npm":
		return npmCommands(run.Arg, content)
	case "patch":
		return patchCommands(content)
	}
	if pre, ok := inlineCmd[kind]; ok {
		// line by line: the inline-code heuristics take every path in code that writes
		// anywhere for a write, right for a one-liner, not for a script that reads
		// memory-bank/MEMORY.md on one line and writes out/report.txt on another
		var out []string
		for _, l := range strings.Split(content, "\n") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "//") {
				out = append(out, pre+singleQuote(t))
			}
		}
		return out
	}
	return nil
}

// makeCommands reads a Makefile's recipe lines as one script.
func makeCommands(content string) []string {
	var lines []string
	for _, l := range strings.Split(content, "\n") {
		if !strings.HasPrefix(l, "\t") {
			continue
		}
		l = strings.TrimLeft(strings.TrimPrefix(l, "\t"), "@-+ ")
		lines = append(lines, strings.ReplaceAll(l, "$$", "$"))
	}
	return []string{strings.Join(lines, "\n")}
}

// npmCommands returns the package.json scripts `npm run name` runs, with their pre and post
// scripts.
func npmCommands(name, content string) []string {
	var pkg struct {
		Scripts map[string]any `json:"scripts"`
	}
	if json.Unmarshal([]byte(content), &pkg) != nil {
		return nil
	}
	names := []string{"pre" + name, name, "post" + name}
	if name == "install" {
		names = []string{"preinstall", "install", "postinstall", "prepare"}
	}
	var out []string
	for _, n := range names {
		if v, ok := pkg.Scripts[n].(string); ok {
			out = append(out, v)
		}
	}
	return out
}

// patchCommands spells a patch as a command that writes every file it names.
func patchCommands(content string) []string {
	var files []string
	for _, l := range strings.Split(content, "\n") {
		if p := patchedFile(l); p != "" && p != "/dev/null" {
			files = append(files, singleQuote(p))
		}
	}
	if len(files) == 0 {
		return nil
	}
	return []string{"touch " + strings.Join(files, " ")}
}

// patchedFile is the file one line of a patch names ("" for none).
func patchedFile(l string) string {
	var p string
	switch {
	case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		p = strings.TrimSpace(l[4:])
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i]
		}
		if p != "/dev/null" && len(p) > 2 && (p[:2] == "a/" || p[:2] == "b/") {
			p = p[2:]
		}
	case strings.HasPrefix(l, "rename from "):
		p = strings.TrimPrefix(l, "rename from ")
	case strings.HasPrefix(l, "rename to "), strings.HasPrefix(l, "copy to "):
		_, p, _ = strings.Cut(l, "o ")
	}
	return p
}

// maxScriptTotal bounds the script text one command line may make the pre check read, over
// every file and depth: a script that runs itself many times must not stall the hook.
const maxScriptTotal = 1 << 20

// runBudget is what one command's scripts may still cost; each file is read once.
type runBudget struct {
	left int
	seen map[string]bool
}

// withRuns adds to r what the files its command runs would do, read through fx: a script
// written in one call and run in the next is judged before it runs, not only after.
func withRuns(r shellResult, cwd string, fx Facts, depth int) shellResult {
	if len(r.runs) == 0 {
		return r
	}
	return withRunsIn(r, cwd, fx, depth, &runBudget{left: maxScriptTotal, seen: map[string]bool{}})
}

func withRunsIn(r shellResult, cwd string, fx Facts, depth int, b *runBudget) shellResult {
	if depth >= maxScriptDepth {
		return r
	}
	runs := r.runs
	r.runs = nil
	for _, run := range runs {
		k := run.Kind + "\x00" + run.Arg + "\x00" + run.Path
		if b.seen[k] || b.left <= 0 {
			continue
		}
		b.seen[k] = true
		runScript(&r, run, cwd, fx, depth, b)
	}
	return r
}

// runScript adds what the script run executes to r, reading at most the budget left.
func runScript(r *shellResult, run shell.Run, cwd string, fx Facts, depth int, b *runBudget) {
	content, ok := readRun(run.Path, cwd, fx)
	if !ok {
		return
	}
	if len(content) > b.left {
		content = content[:b.left]
	}
	b.left -= len(content)
	dir := cwd
	if run.Dir != "" {
		dir = run.Dir
	}
	cmds := scriptCommands(run, content)
	writes := cmds == nil // a script of a kind not known may do anything
	for _, cmd := range cmds {
		sub := withRunsIn(classifyShell(cmd, dir, fx), dir, fx, depth+1, b)
		writes = writes || len(sub.writes) > 0 || sub.unknown
		r.addScript(sub, run.Path)
	}
	if !writes {
		// a script that cannot write only reads the paths it is handed
		kept := r.writes[:0]
		for _, w := range r.writes {
			if w.via != run.Path {
				kept = append(kept, w)
			}
		}
		r.writes = kept
	}
}

// addScript adds what one command of the script at script does.
func (r *shellResult) addScript(sub shellResult, script string) {
	for i := range sub.writes {
		if sub.writes[i].op == "" || sub.writes[i].op == "redirect" {
			sub.writes[i].op = "script " + path.Base(script)
		}
	}
	r.writes = append(r.writes, sub.writes...)
	r.person = append(r.person, sub.person...)
	if sub.unknown {
		// only a part that writes somewhere unknown may make a name it holds a target
		r.unknown = true
		r.named += "\n" + sub.named
	}
}
