package shell

import (
	"path"
	"strings"
	"sync"
)

// gitReads are git subcommands that leave the working tree alone; their
// path-like operands are reads.
var gitReads = map[string]bool{
	"log": true, "diff": true, "show": true, "status": true, "blame": true, "grep": true,
	"ls-files": true, "cat-file": true, "shortlog": true, "annotate": true, "whatchanged": true,
	"ls-tree": true, "diff-tree": true, "diff-index": true, "diff-files": true, "range-diff": true,
}

// gitHarmless are git subcommands that change refs, the index, config or the
// remote, but no file in the working tree.
var gitHarmless = map[string]bool{
	"describe": true, "rev-parse": true, "rev-list": true, "reflog": true, "help": true,
	"version": true, "fetch": true, "push": true, "add": true, "commit": true, "notes": true,
	"show-ref": true, "for-each-ref": true, "name-rev": true, "merge-base": true,
	"count-objects": true, "fsck": true, "gc": true, "var": true, "check-ignore": true,
	"check-attr": true, "symbolic-ref": true, "config": true, "remote": true, "branch": true,
	"tag": true, "ls-remote": true, "hash-object": true, "update-index": true, "mktree": true,
	"write-tree": true, "commit-tree": true, "update-ref": true, "verify-commit": true,
	"verify-tag": true, "cherry": true, "check-ref-format": true, "maintenance": true,
	"prune": true, "repack": true, "bundle": true, "credential": true, "--version": true, "--help": true,
}

// gitUnknown are git subcommands that rewrite files named nowhere in the
// command line.
var gitUnknown = map[string]bool{
	"apply": true, "am": true, "stash": true, "merge": true, "rebase": true, "pull": true,
	"cherry-pick": true, "revert": true, "bisect": true, "switch": true, "submodule": true,
	"sparse-checkout": true, "read-tree": true, "checkout-index": true, "lfs": true,
	"filter-branch": true, "filter-repo": true, "mergetool": true, "difftool": true,
	"subtree": true, "reset": true, "clean": true,
}

func (w *walker) git(args []arg, e *env, depth int) {
	globals, i := gitGlobals(args)
	e = w.gitGlobalsDo(globals, e)
	if i >= len(args) {
		return
	}
	if !args[i].exact {
		w.unknownWrite()
		return
	}
	sub, rest := args[i].s, args[i+1:]
	if h, ok := gitSubcommands()[sub]; ok {
		h(w, sub, rest, e)
		return
	}
	switch {
	case gitUnknown[sub]:
		w.unknownWrite()
	case gitReads[sub]:
		w.gitRead(sub, rest, e)
	case gitHarmless[sub]:
	default:
		// An alias or an extension: it may do anything.
		w.unknownWrite()
	}
}

// gitGlobalValues are git's global options (before the subcommand) that take a value,
// as --name=value or as the next word.
var gitGlobalValues = map[string]bool{
	"-C": true, "--work-tree": true, "-c": true, "--config-env": true,
	"--git-dir": true, "--namespace": true, "--exec-path": true, "--super-prefix": true,
}

// gitGlobals parses git's global options, the one parse both the classifier and the
// registry's runs (git apply, git am) read: the options, and the index of the subcommand
// (len(args) when there is none).
func gitGlobals(args []arg) (globals []opt, sub int) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.exact || !strings.HasPrefix(a.s, "-") {
			break
		}
		name, val, eq := strings.Cut(a.s, "=")
		o := opt{name: name}
		switch {
		case !gitGlobalValues[name]:
		case eq:
			o.value, o.has = arg{s: val, exact: true}, true
		case i+1 < len(args):
			i++
			o.value, o.has = args[i], true
		}
		globals = append(globals, o)
	}
	return globals, i
}

// gitGlobalsDo applies git's global options: -C and --work-tree move where paths are
// taken from (-C stacks like cd); a -c that runs code, another repository (--git-dir) or
// other git programs make the line's writes unknown.
func (w *walker) gitGlobalsDo(globals []opt, e *env) *env {
	for _, o := range globals {
		if !o.has {
			continue
		}
		v := o.value
		switch o.name {
		case "-C":
			if v.s != "" || !v.exact {
				e = chdir(e, v)
			}
		case "--work-tree":
			// paths and whole-tree commands then refer to this directory
			e = chdir(e, v)
		case "-c", "--config-env":
			if !safeGitConfig(v) {
				// -c alias.x='!…', core.editor, core.pager, core.hooksPath …
				// run code git would otherwise not run.
				w.unknownWrite()
				w.namedArg("git -c", arg{s: v.s[strings.IndexByte(v.s, '=')+1:], exact: v.exact, pat: v.pat}, e)
			}
		case "--git-dir", "--exec-path", "--super-prefix":
			w.unknownWrite() // another repository's hooks and config, or other git programs
		}
	}
	return e
}

// gitSubcommand judges one git subcommand: sub is its name, rest the words after it.
type gitSubcommand func(w *walker, sub string, rest []arg, e *env)

// gitSubcommands are the subcommands judged by their options and operands; the others
// are read from the tables above (gitUnknown, gitReads, gitHarmless).
var gitSubcommands = sync.OnceValue(func() map[string]gitSubcommand {
	return map[string]gitSubcommand{
		"mv": (*walker).gitMoveRemove, "rm": (*walker).gitMoveRemove,
		"restore":        (*walker).gitRestore,
		"checkout":       func(w *walker, _ string, rest []arg, e *env) { w.gitCheckout(rest, e) },
		"switch":         (*walker).gitSwitch,
		"apply":          (*walker).gitApply,
		"stash":          func(w *walker, _ string, rest []arg, e *env) { w.gitStash(rest, e) },
		"reset":          (*walker).gitReset,
		"clean":          (*walker).gitClean,
		"read-tree":      (*walker).gitReadTree,
		"checkout-index": (*walker).gitCheckoutIndex,
		"config":         (*walker).gitConfig,
		"bundle":         (*walker).gitBundle,
		"clone":          (*walker).gitClone,
		"init":           (*walker).gitInit,
		"worktree":       (*walker).gitWorktree,
		"archive":        (*walker).gitArchive, "format-patch": (*walker).gitArchive,
	}
})

// here is the working directory as an operand: the whole tree below it.
var here = arg{s: ".", exact: true}

// gitMoveRemove: git mv and git rm write their pathspecs (git rm --cached too: the next
// commit deletes the files for everyone else).
func (w *walker) gitMoveRemove(sub string, rest []arg, e *env) {
	_, ops := parseArgs(rest, flagSpec{long: []string{"--pathspec-from-file"}})
	w.gitPathspecs(ops, "git "+sub, e)
}

// gitRestore writes its pathspecs in the working tree; --staged alone, the index only.
func (w *walker) gitRestore(sub string, rest []arg, e *env) {
	opts, ops := parseArgs(rest, flagSpec{short: "s", long: []string{"--source", "--pathspec-from-file", "--conflict"}})
	if hasOpt(opts, "-S", "--staged") && !hasOpt(opts, "-W", "--worktree") {
		return // the index only
	}
	w.gitPathspecs(ops, "git "+sub, e)
}

// gitPathspecs writes the pathspecs; none named (--pathspec-from-file): unknown files.
func (w *walker) gitPathspecs(ops []arg, op string, e *env) {
	w.pathspecs(ops, op, e)
	if len(ops) == 0 {
		w.res.Unknown = true
	}
}

// gitSwitch: switching branches keeps local changes, unless told to throw them away.
func (w *walker) gitSwitch(_ string, rest []arg, e *env) {
	opts, ops := parseArgs(rest, flagSpec{short: "cC", long: []string{"--create", "--force-create", "--orphan", "--conflict"}})
	if hasOpt(opts, "--discard-changes", "-f", "--force") {
		// to another branch: its content, not only the local changes, replaces the tree
		w.writeDir(here, "git switch --discard-changes "+strings.Join(argStrings(ops), " "), e)
	}
	w.unknownWrite()
}

// gitApplyFlags are git apply's options that take a value.
var gitApplyFlags = flagSpec{short: "pC", long: []string{"--directory", "--exclude", "--include", "--whitespace", "--build-fake-ancestor"}}

// gitApply writes the files its patches name; --check, --stat … only print.
func (w *walker) gitApply(_ string, rest []arg, e *env) {
	opts, _ := parseArgs(rest, gitApplyFlags)
	if hasOpt(opts, "--check", "--stat", "--numstat", "--summary") && !hasOpt(opts, "--apply") {
		return
	}
	w.unknownWrite()
}

// gitReset --hard (--merge, --keep) rewrites every tracked file that differs: the whole
// tree; to another commit's content when it names one (Access.Op then names it too).
func (w *walker) gitReset(_ string, rest []arg, e *env) {
	opts, ops := parseArgs(rest, flagSpec{})
	if !hasOpt(opts, "--hard", "--merge", "--keep") {
		return
	}
	op := "git reset"
	for _, a := range ops {
		if !a.exact || a.s != "HEAD" && a.s != "--" {
			op = "git reset " + a.s
			break
		}
	}
	w.writeDir(here, op, e)
}

// gitClean removes untracked files below its pathspecs (the whole tree when none is named).
func (w *walker) gitClean(sub string, rest []arg, e *env) {
	opts, ops := parseArgs(rest, flagSpec{short: "e", long: []string{"--exclude"}})
	if hasOpt(opts, "-n", "--dry-run") {
		return
	}
	if len(ops) == 0 {
		w.writeDir(here, "git "+sub, e)
		return
	}
	for _, o := range ops {
		w.pathspecTree(o, "git "+sub, e)
	}
}

// gitReadTree -u checks the tree it reads out.
func (w *walker) gitReadTree(sub string, rest []arg, e *env) {
	opts, _ := parseArgs(rest, flagSpec{long: []string{"--prefix", "--index-output", "--exclude-per-directory"}})
	if hasOpt(opts, "-u") {
		w.writeDir(here, "git "+sub, e)
	}
}

// gitCheckoutIndex writes below --prefix, the whole tree (-a, --stdin) or its pathspecs.
func (w *walker) gitCheckoutIndex(sub string, rest []arg, e *env) {
	op := "git " + sub
	opts, ops := parseArgs(rest, flagSpec{long: []string{"--prefix", "--stage"}})
	if p, ok := optValue(opts, "--prefix"); ok {
		w.writeDir(p, op, e)
		return
	}
	if hasOpt(opts, "-a", "--all", "--stdin") {
		w.writeDir(here, op, e)
		return
	}
	w.pathspecs(ops, op, e)
}

// gitConfig -f FILE writes that file; the repository's config is no working-tree file.
func (w *walker) gitConfig(sub string, rest []arg, e *env) {
	opts, _ := parseArgs(rest, flagSpec{short: "f", long: []string{"--file", "--blob", "--type", "--default", "--comment"}})
	if f, ok := optValue(opts, "-f", "--file"); ok {
		w.writeArg(f, "git "+sub+" -f", e)
	}
}

// gitBundle create writes the bundle; unbundle, objects git then may check out.
func (w *walker) gitBundle(sub string, rest []arg, e *env) {
	_, ops := parseArgs(rest, flagSpec{})
	if len(ops) > 1 && ops[0].s == "create" {
		w.writeArg(ops[1], "git "+sub, e)
	}
	if len(ops) > 1 && ops[0].s == "unbundle" {
		w.unknownWrite()
	}
}

// gitClone writes the directory it is handed, or the one named after the repository.
func (w *walker) gitClone(sub string, rest []arg, e *env) {
	op := "git " + sub
	_, ops := parseArgs(rest, flagSpec{short: "obcju", long: []string{"--origin", "--branch", "--config", "--depth", "--reference", "--separate-git-dir", "--template", "--upload-pack", "--jobs", "--filter", "--shallow-since", "--shallow-exclude"}})
	w.res.Write = true
	switch {
	case len(ops) >= 2:
		w.writeDir(ops[1], op, e)
	case len(ops) == 1 && ops[0].exact:
		b := strings.TrimSuffix(path.Base(strings.TrimRight(ops[0].s, "/")), ".git")
		if i := strings.LastIndexByte(b, ':'); i >= 0 {
			b = b[i+1:]
		}
		w.writeDir(arg{s: b, exact: true}, op, e)
	default:
		w.res.Unknown = true
	}
}

// gitInit writes DIR/.git (the working directory's when none is named).
func (w *walker) gitInit(sub string, rest []arg, e *env) {
	_, ops := parseArgs(rest, flagSpec{short: "b", long: []string{"--template", "--separate-git-dir", "--initial-branch", "--object-format", "--shared"}})
	dir := here
	if len(ops) > 0 {
		dir = ops[0]
	}
	if dir.exact {
		w.writeArg(arg{s: path.Join(dir.s, ".git"), exact: true}, "git "+sub, e)
	} else {
		w.writeArg(dir, "git "+sub, e)
	}
}

// gitWorktree add and remove write the worktree's directory, move both; list nothing.
func (w *walker) gitWorktree(sub string, rest []arg, e *env) {
	_, ops := parseArgs(rest, flagSpec{short: "b", long: []string{"--reason"}})
	if len(ops) >= 2 && (ops[0].s == "add" || ops[0].s == "remove" || ops[0].s == "move") {
		for _, o := range ops[1:] {
			w.writeDir(o, "git "+sub, e)
			if ops[0].s != "move" {
				break
			}
		}
	} else if len(ops) > 0 && ops[0].s != "list" {
		w.unknownWrite()
	}
}

// gitArchive: git archive and format-patch write -o; archive carries the tree's files
// under its pathspecs (all of them when none is named).
func (w *walker) gitArchive(sub string, rest []arg, e *env) {
	op := "git " + sub
	opts, ops := parseArgs(rest, flagSpec{short: "o", long: []string{"--output", "--output-directory", "--format", "--prefix", "--remote"}})
	if o, ok := optValue(opts, "-o", "--output", "--output-directory"); ok {
		w.writeArg(o, op, e)
	}
	if sub == "archive" && !hasOpt(opts, "--remote", "-l", "--list") {
		paths := []arg{here}
		if len(ops) > 1 {
			paths = ops[1:]
		}
		w.carryAll(paths, op, e)
	}
}

// safeGitConfig reports a `git -c key=value` that runs nothing and writes
// nothing: colours, quoting, identity, advice and the like.
func safeGitConfig(v arg) bool {
	if !v.exact {
		return false
	}
	key, val, _ := strings.Cut(v.s, "=")
	key = strings.ToLower(key)
	if strings.HasPrefix(val, "!") {
		return false
	}
	for _, p := range []string{"color.", "user.", "advice.", "log.", "format.pretty", "core.quotepath", "core.autocrlf",
		"core.safecrlf", "init.defaultbranch", "column.", "i18n.", "status.", "pager.", "diff.renames", "diff.algorithm",
		"safe.directory", "core.abbrev", "commit.gpgsign", "tag.gpgsign", "protocol.version", "http.", "gc.auto"} {
		if strings.HasPrefix(key, p) || key == p {
			return !strings.HasPrefix(key, "pager.") || val == "false" || val == "cat" || val == ""
		}
	}
	return false
}

// pathspecs records the working-tree files git pathspecs select: a plain
// path is itself; a glob (git's globs cross '/') or magic (':/', ':(glob)')
// takes in the tree below its literal directory; exclusions name nothing.
func (w *walker) pathspecs(ops []arg, op string, e *env) {
	w.res.Write = true
	for _, a := range ops {
		w.pathspec(a, op, e, false)
	}
}

// pathspecTree is pathspec for a command that removes what is below a
// directory it is handed (git clean DIR).
func (w *walker) pathspecTree(a arg, op string, e *env) { w.pathspec(a, op, e, true) }

func (w *walker) pathspec(a arg, op string, e *env, tree bool) {
	if !a.exact {
		w.writeArg(a, op, e)
		return
	}
	s := a.s
	if strings.HasPrefix(s, ":") {
		magic := s[1:]
		switch {
		case strings.HasPrefix(magic, "!") || strings.HasPrefix(magic, "^") || strings.HasPrefix(magic, "(exclude"):
			return
		case strings.HasPrefix(magic, "/"):
			// relative to the top of the repository, which may not be here
			w.writeDir(arg{s: ".", exact: true}, op, e)
			w.res.Unknown = true
			w.namedArg(op, arg{s: strings.TrimLeft(magic, "/"), exact: true}, e)
			return
		case strings.HasPrefix(magic, "("):
			if end := strings.IndexByte(magic, ')'); end >= 0 {
				s = magic[end+1:]
			}
			w.pathspecGlob(s, op, e)
			return
		default:
			s = magic
		}
	}
	if strings.ContainsAny(s, "*?[") {
		w.pathspecGlob(s, op, e)
		return
	}
	if tree {
		w.writeDir(arg{s: s, exact: true}, op, e)
		return
	}
	w.writeArg(arg{s: s, exact: true}, op, e)
}

// pathspecGlob records the directory a git glob starts from as written
// below: '*.md' takes in every Markdown file of the tree.
func (w *walker) pathspecGlob(s, op string, e *env) {
	dir := s
	if i := strings.IndexAny(s, "*?["); i >= 0 {
		dir = s[:i]
	}
	if j := strings.LastIndexByte(dir, '/'); j >= 0 {
		dir = dir[:j]
	} else {
		dir = "."
	}
	if dir == "" {
		dir = "/"
	}
	w.writeDir(arg{s: dir, exact: true}, op, e)
}

// gitStash: stash (push, save, pop, apply, drop …) rewrites the working tree;
// push/save with pathspecs only those paths.
func (w *walker) gitStash(rest []arg, e *env) {
	sub := "push"
	if len(rest) > 0 && rest[0].exact && !strings.HasPrefix(rest[0].s, "-") {
		sub, rest = rest[0].s, rest[1:]
	}
	switch sub {
	case "show":
		// the stash's changes, across the tree; with -p their content
		if opts, _ := parseArgs(rest, flagSpec{}); hasOpt(opts, gitPatch...) {
			w.searchTop("git stash show", false)
		}
		return
	case "list", "create", "store", "drop", "clear":
		return
	case "push", "save":
		opts, ops := parseArgs(rest, flagSpec{short: "m", long: []string{"--message", "--pathspec-from-file"}})
		_ = opts
		if sub == "save" || len(ops) == 0 {
			w.writeDir(arg{s: ".", exact: true}, "git stash", e)
			return
		}
		w.pathspecs(ops, "git stash", e)
	default: // pop, apply, branch
		w.writeDir(arg{s: ".", exact: true}, "git stash "+sub, e)
	}
}

// gitCheckout: `git checkout [REF] -- PATHS` restores paths; without `--`
// it may switch branches, rewriting files nobody named.
func (w *walker) gitCheckout(rest []arg, e *env) {
	for i, a := range rest {
		if a.s == "--" && a.exact {
			w.pathspecs(rest[i+1:], "git checkout", e)
			return
		}
	}
	opts, ops := parseArgs(rest, flagSpec{short: "bB", long: []string{"--orphan", "--conflict", "--pathspec-from-file"}})
	if hasOpt(opts, "-f", "--force") {
		// throws away every local change, and moves to another commit when it names one
		op := "git checkout -f"
		if len(ops) > 0 {
			op += " " + ops[0].s
		}
		w.writeDir(arg{s: ".", exact: true}, op, e)
	}
	w.unknownWrite()
	for _, a := range ops {
		if pathLike(a.s) {
			w.writeArg(a, "git checkout", e)
		}
	}
}

func (w *walker) gitRead(sub string, rest []arg, e *env) {
	opts, ops := parseArgs(rest, flagSpec{short: "neABCfmSGLO", long: []string{"--author", "--grep", "--since", "--until", "--format", "--pretty", "--max-count", "--skip", "--committer", "--regexp"}})
	if o, ok := optValue(opts, "--output"); ok {
		w.writeArg(o, "git "+sub, e)
	}
	if sub == "grep" && !hasOpt(opts, "-e", "-f") && len(ops) > 0 {
		ops = ops[1:]
	}
	if sub == "grep" {
		w.gitGrepSearch(rest, e)
	} else {
		w.gitShows(sub, opts, ops, rest, e)
	}
	w.spanOK = true
	defer func() { w.spanOK = false }()
	after := false
	for i, a := range rest {
		if a.exact && a.s == "--" {
			w.readAll(rest[i+1:], "git "+sub, e)
			after = true
			break
		}
	}
	if after {
		return
	}
	for _, a := range ops {
		if pathLike(a.s) && !strings.Contains(a.s, ":") && !strings.Contains(a.s, "..") {
			w.readArg(a, "git "+sub, e)
		}
	}
}

// gitGrepSearch records git grep's search: its pathspecs (none: the working directory), left
// out of memory-bank/ by an exclude pathspec (':!memory-bank', ':(exclude)memory-bank').
func (w *walker) gitGrepSearch(args []arg, e *env) {
	opts, ops := parseArgs(args, flagSpec{short: "efABCm", long: []string{"--regexp", "--file", "--after-context", "--before-context",
		"--context", "--max-count", "--max-depth", "--threads", "--open-files-in-pager"}})
	if hasOpt(opts, "-l", "-L", "-c", "-q", "--files-with-matches", "--files-without-match", "--name-only", "--count", "--quiet") {
		return // file names only
	}
	if !hasOpt(opts, "-e", "-f", "--regexp", "--file") && len(ops) > 0 {
		ops = ops[1:]
	}
	var roots []arg
	noBank := false
	for _, a := range ops {
		if a.exact && strings.HasPrefix(a.s, ":") {
			noBank = noBank || gitExcludesBank(a.s)
			continue
		}
		if a.exact && a.s == "--" {
			continue
		}
		roots = append(roots, a)
	}
	w.search(roots, "git grep", noBank, e)
}

// gitExcludesBank reports an exclude pathspec that leaves memory-bank/ out (':!memory-bank',
// ':(exclude)memory-bank/**').
func gitExcludesBank(s string) bool {
	for _, magic := range []string{":!", ":^", ":(exclude)", ":(exclude,glob)", ":(glob,exclude)"} {
		if rest, ok := strings.CutPrefix(s, magic); ok && ExcludesBank(rest) {
			return true
		}
	}
	return false
}

// gitPatch are the options with which git log, whatchanged, diff-tree, diff-index, diff-files
// and stash show print the content of files (a patch); gitNoPatch those with which git show and
// git diff print only names, counts or nothing.
var (
	gitPatch   = []string{"-p", "-u", "-U", "--patch", "--patch-with-stat", "--patch-with-raw", "--unified", "--word-diff", "--color-words", "--cc", "-L"}
	gitNoPatch = []string{"-s", "--no-patch", "--stat", "--numstat", "--shortstat", "--name-only", "--name-status", "--dirstat", "--summary", "--raw", "--quiet", "--check"}
)

// gitShows records as searches what git prints of the content of files from its history or
// index: git show HEAD:memory-bank/x.md and git cat-file -p REV:PATH (that path, from the top
// of the repository: Access.Top), git log -p,
// git diff and git show (their pathspecs; the working directory when none is named; an
// exclude pathspec that leaves memory-bank/ out marks NoBank). Whichever version it prints,
// the text is the file's, so a caller judges it like a search of those paths.
func (w *walker) gitShows(sub string, opts []opt, ops, rest []arg, e *env) {
	if !gitShowsContent(sub, opts) {
		return
	}
	op := "git " + sub
	g := gitShowOperands(ops, rest)
	w.gitShowBlobs(g.blobs, op, e)
	if sub == "cat-file" || g.revPath && len(g.roots) == 0 {
		return
	}
	n := len(w.res.Searches)
	if len(g.roots) == 0 {
		// no pathspec: the whole repository, wherever in it the command runs
		w.searchTop(op, g.noBank)
	} else {
		w.search(g.roots, op, g.noBank, e)
	}
	if sub == "diff" && !g.revs && !g.revPath && !hasOpt(opts, "--no-index") {
		// the work tree against the index (or, --cached, the index against HEAD): only
		// files with uncommitted changes show
		for i := n; i < len(w.res.Searches); i++ {
			w.res.Searches[i].Changes = true
		}
	}
}

// gitShowBlobs records the files REV:PATH operands print: REV:./PATH and REV:../PATH are
// taken from the working directory, REV:PATH from the top of the repository.
func (w *walker) gitShowBlobs(blobs []arg, op string, e *env) {
	for _, b := range blobs {
		if b.s == "." || b.s == ".." || strings.HasPrefix(b.s, "./") || strings.HasPrefix(b.s, "../") {
			w.search([]arg{b}, op, false, e)
			continue
		}
		w.searchTopPath(path.Clean(b.s), op, false)
	}
}

// gitShowsContent reports a git read that prints the content of files, not only their
// names or counts.
func gitShowsContent(sub string, opts []opt) bool {
	switch sub {
	case "show", "diff":
		return hasOpt(opts, gitPatch...) || !hasOpt(opts, gitNoPatch...)
	case "log", "whatchanged", "diff-tree", "diff-index", "diff-files":
		return hasOpt(opts, gitPatch...)
	case "cat-file":
		return !hasOpt(opts, "-t", "-s", "-e", "--batch-check")
	}
	return false
}

// gitShown is what the operands of a git read name: blobs (REV:PATH), pathspecs (roots),
// whether an exclude pathspec leaves memory-bank/ out, and whether revisions are named
// (REV:PATH or other words).
type gitShown struct {
	blobs, roots          []arg
	noBank, revPath, revs bool
}

// gitShowOperands sorts the operands of a git read: after --, every word is a pathspec;
// before it, the words that look like paths.
func gitShowOperands(ops, rest []arg) gitShown {
	var after []arg
	for i, a := range rest {
		if a.exact && a.s == "--" {
			after = rest[i+1:]
			break
		}
	}
	var g gitShown
	for _, a := range ops[:len(ops)-min(len(ops), len(after))] {
		g.before(a)
	}
	for _, a := range after {
		if a.exact && strings.HasPrefix(a.s, ":") {
			g.noBank = g.noBank || gitExcludesBank(a.s)
			continue
		}
		g.roots = append(g.roots, a)
	}
	return g
}

// before sorts an operand before --: a blob, a path, or a revision.
func (g *gitShown) before(a arg) {
	if !a.exact {
		g.revs = true
		return
	}
	if p, ok := gitBlobPath(a.s); ok {
		g.revPath = true
		if p != "" && !strings.HasSuffix(p, "/") {
			g.blobs = append(g.blobs, arg{s: p, exact: true})
		}
		return
	}
	if pathLike(a.s) && !strings.Contains(a.s, "..") {
		g.roots = append(g.roots, a)
	} else {
		g.revs = true
	}
}

// searchTop records a search of the whole repository the command runs in.
func (w *walker) searchTop(op string, noBank bool) {
	w.searchTopPath(".", op, noBank)
}

// searchTopPath records a search of p, relative to the top of the repository (Access.Top).
func (w *walker) searchTopPath(p, op string, noBank bool) {
	acc := Access{Path: p, Op: op, NoBank: noBank, Top: true}
	if len(w.res.Searches) < 64 && !hasAccess(w.res.Searches, acc) {
		w.res.Searches = append(w.res.Searches, acc)
	}
}

// gitBlobPath is the path of a REV:PATH operand (HEAD:memory-bank/x.md, :0:x.md, the index's
// :x.md); false for any other word, a pathspec with magic (':!memory-bank') included.
func gitBlobPath(s string) (string, bool) {
	i := strings.IndexByte(s, ':')
	if i < 0 {
		return "", false
	}
	if i == 0 {
		if len(s) > 1 && strings.ContainsRune("(!^/", rune(s[1])) {
			return "", false // magic, or :/message (a commit by its message)
		}
		if len(s) > 2 && s[1] >= '0' && s[1] <= '3' && s[2] == ':' {
			return s[3:], true // :N:PATH, a merge stage
		}
	}
	return s[i+1:], true
}

// pathLike guesses whether an operand that could be a ref is a path.
func pathLike(s string) bool {
	if s == "." || s == ".." || strings.Contains(s, "/") {
		return true
	}
	return hasExt(s)
}

// hasExt reports a file name ending in .EXT with a letter in EXT.
func hasExt(s string) bool {
	dot := strings.LastIndexByte(s, '.')
	if dot < 0 || dot == len(s)-1 || len(s)-dot > 9 {
		return false
	}
	letter := false
	for i := dot + 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return letter
}

// findValue lists find primaries that take one argument.
var findValue = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true,
	"-iwholename": true, "-regex": true, "-iregex": true, "-type": true, "-xtype": true,
	"-maxdepth": true, "-mindepth": true, "-newer": true, "-anewer": true, "-cnewer": true,
	"-perm": true, "-size": true, "-mtime": true, "-atime": true, "-ctime": true, "-mmin": true,
	"-amin": true, "-cmin": true, "-user": true, "-group": true, "-uid": true, "-gid": true,
	"-links": true, "-inum": true, "-samefile": true, "-printf": true, "-fstype": true,
	"-regextype": true, "-used": true, "-context": true, "-lname": true, "-ilname": true,
	"-files0-from": true,
}

func (w *walker) find(args []arg, e *env, depth int) {
	roots, exprs := findRoots(args)
	act := w.findActions(exprs, e, depth)
	if act.execs {
		// what -exec runs may show every file below the roots (find . -exec cat {} +)
		w.search(roots, "find -exec", false, e)
	}
	changes := act.del || act.execWrite
	for _, r := range roots {
		n := len(w.res.Writes)
		switch {
		case act.del:
			w.writeDir(r, "find -delete", e)
		case act.execWrite:
			w.writeDir(r, "find -exec", e)
		default:
			w.readArg(r, "find", e)
		}
		if changes && noMarkdown(exprs) {
			for i := n; i < len(w.res.Writes); i++ {
				w.res.Writes[i].NoMarkdown = w.res.Writes[i].Tree
			}
		}
	}
}

// findRoots splits a find command line into its starting points (the working directory
// when none is named) and its expression, past the options before them (-H, -L, -P,
// -O LEVEL, -D DEBUG).
func findRoots(args []arg) (roots, exprs []arg) {
	i := 0
	for i < len(args) && args[i].exact {
		s := args[i].s
		if s == "-H" || s == "-L" || s == "-P" || strings.HasPrefix(s, "-O") {
			i++
		} else if s == "-D" {
			i += 2
		} else {
			break
		}
	}
	for ; i < len(args); i++ {
		s := args[i].s
		if args[i].exact && (strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == ")") {
			break
		}
		roots = append(roots, args[i])
	}
	if len(roots) == 0 {
		roots = []arg{here}
	}
	return roots, args[i:]
}

// findExecs are find's actions that run a command; findPrints those that write a file.
var (
	findExecs  = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}
	findPrints = map[string]bool{"-fprint": true, "-fprint0": true, "-fls": true, "-fprintf": true}
)

// findAction is what a find expression does besides testing: delete, run commands (that
// may write), write files of its own (-fprint).
type findAction struct{ del, execWrite, execs bool }

// findActions walks a find expression for its actions, recording the files -fprint and
// the like write.
func (w *walker) findActions(args []arg, e *env, depth int) findAction {
	var act findAction
	for i := 0; i < len(args); i++ {
		s := args[i].s
		switch {
		case s == "-delete":
			act.del = true
		case findExecs[s]:
			act.execs = true
			j := i + 1
			for j < len(args) && args[j].s != ";" && args[j].s != "+" {
				j++
			}
			act.execWrite = w.subWrites(args[i+1:j], e, depth) || act.execWrite
			i = j
		case findPrints[s]:
			i = w.findPrint(args, i, e)
		case findValue[s]:
			i++
		}
	}
	return act
}

// findPrint records the file -fprint FILE (-fprint0, -fls, -fprintf FILE FORMAT) at
// args[i] writes, and returns the index of the last word it took.
func (w *walker) findPrint(args []arg, i int, e *env) int {
	s := args[i].s
	if i+1 < len(args) {
		i++
		w.writeArg(args[i], "find "+s, e)
	}
	if s == "-fprintf" {
		i++
	}
	return i
}

// noMarkdown reports a find expression that can match no Markdown file: a
// plain AND of tests with at least one -name/-iname whose pattern ends in a
// literal extension other than .md. Alternatives (-o) and negations can
// widen the match, so they are never trusted.
func noMarkdown(exprs []arg) bool {
	safe := false
	for i := 0; i < len(exprs); i++ {
		a := exprs[i]
		if !a.exact {
			return false
		}
		switch a.s {
		case "-o", "-or", "!", "-not", ",":
			return false
		case "-name", "-iname":
			if i+1 < len(exprs) && exprs[i+1].exact && literalNonMarkdownExt(exprs[i+1].s) {
				safe = true
			}
			i++
		case "-exec", "-execdir", "-ok", "-okdir":
			for i+1 < len(exprs) && exprs[i+1].s != ";" && exprs[i+1].s != "+" {
				i++
			}
		}
	}
	return safe
}

// literalNonMarkdownExt reports a name pattern ending in ".EXT" with EXT
// literal (no glob characters) and not md: "*.pyc", "build.log".
func literalNonMarkdownExt(p string) bool {
	if p != "" && !strings.ContainsAny(p, "*?[]\\{}()") {
		// a literal name (__pycache__, node_modules, build.log) matches only itself
		return !strings.EqualFold(path.Ext(p), ".md") && !strings.EqualFold(p, bankName)
	}
	dot := strings.LastIndexByte(p, '.')
	if dot < 0 || dot == len(p)-1 {
		return false
	}
	ext := p[dot+1:]
	if strings.ContainsAny(ext, "*?[]\\{}()") {
		return false
	}
	return !strings.EqualFold(ext, "md")
}

// subWrites classifies a command run by find -exec on paths it is handed,
// and reports whether it may write them. Only known read-only commands are
// trusted not to.
func (w *walker) subWrites(args []arg, e *env, depth int) bool {
	if len(args) == 0 {
		return false
	}
	sub := walker{res: &Result{}, parser: w.parser}
	se := *e
	sub.call(args, &se, depth, &stdin{})
	w.res.Interpreter = w.res.Interpreter || sub.res.Interpreter
	w.res.Unknown = w.res.Unknown || sub.res.Unknown
	for _, a := range sub.res.Writes {
		if !strings.Contains(a.Path, "{}") {
			w.addWrite(a)
		}
	}
	if sub.res.Write {
		return true
	}
	name := path.Base(args[0].s)
	if execWrapped[name] {
		return true // wrapped: not worth unwrapping here, stay safe
	}
	_, reader := readers()[name]
	return !reader && !execPrints[name]
}

// execWrapped are the wrappers find -exec may run a command through: not unwrapped there,
// so taken to write; execPrints the commands that only print words, besides the readers.
var (
	execWrapped = map[string]bool{"sudo": true, "env": true, "nice": true, "timeout": true, "command": true}
	execPrints  = map[string]bool{"echo": true, "printf": true, "basename": true, "dirname": true}
)

func (w *walker) curl(c *invocation) {
	e := c.e
	opts, ops := parseArgs(c.args, c.spec.flags)
	base := e
	if d, ok := optValue(opts, "--output-dir"); ok {
		base = chdir(e, d)
	}
	for _, o := range opts {
		if o.has {
			w.curlOption(o, base, e)
		}
	}
	urls := ops
	if u, ok := optValue(opts, "--url"); ok {
		urls = append(urls, u)
	}
	for _, u := range urls {
		w.curlFileURL(u, e)
	}
	if hasOpt(opts, "-J", "--remote-header-name") {
		w.writeDir(here, "curl -O", base)
		return
	}
	if hasOpt(opts, "-O", "--remote-name", "--remote-name-all") {
		urls := ops
		if u, ok := optValue(opts, "--url"); ok {
			urls = append(urls, u)
		}
		for _, u := range urls {
			w.urlFile(u, "curl -O", base)
		}
	}
}

// curlOptions says what curl's options with a value do with it: 'o' writes the output
// (below --output-dir), 'w' writes a file of its own, 'u' uploads the file, 'd' sends
// @FILE's bytes.
var curlOptions = sync.OnceValue(func() map[string]byte {
	return map[string]byte{
		"-o": 'o', "--output": 'o',
		"-D": 'w', "--dump-header": 'w', "-c": 'w', "--cookie-jar": 'w', "--stderr": 'w', "--trace": 'w',
		"--trace-ascii": 'w', "--etag-save": 'w',
		"-T": 'u', "--upload-file": 'u',
		"-d": 'd', "--data": 'd', "--data-binary": 'd', "--data-urlencode": 'd', "--json": 'd', "-F": 'd', "--form": 'd',
	}
})

// curlOption records what one curl option with a value writes or sends.
func (w *walker) curlOption(o opt, base, e *env) {
	switch curlOptions()[o.name] {
	case 'o':
		if o.value.s != "-" {
			w.writeArg(o.value, "curl -o", base)
		}
	case 'w':
		if o.value.s != "-" {
			w.writeArg(o.value, "curl "+o.name, e)
		}
	case 'u':
		w.carryArg(o.value, "curl", e)
	case 'd':
		// @FILE (name@FILE, name=@FILE, name=<FILE in a form) sends the file's bytes,
		// which a server may send back
		v := o.value.s
		if i := strings.IndexAny(v, "@<"); o.value.exact && i >= 0 && (o.name == "-F" || o.name == "--form" || v[i] == '@') {
			f, _, _ := strings.Cut(v[i+1:], ";") // -F's ;type=…
			w.carryArg(arg{s: f, exact: true}, "curl", e)
		}
	}
}

// curlFileURL records the local file a file:// URL reads and prints.
func (w *walker) curlFileURL(u arg, e *env) {
	rest, ok := strings.CutPrefix(u.s, "file://")
	switch {
	case !ok:
	case u.exact:
		w.readArg(arg{s: rest, exact: true}, "curl", e)
	default:
		w.searchWord(arg{s: rest}, "curl", e)
	}
}

// urlFile records the file a download named after its URL creates.
func (w *walker) urlFile(u arg, op string, e *env) {
	if !u.exact {
		w.writeDir(arg{s: ".", exact: true}, op, e)
		return
	}
	s := u.s
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	b := ""
	if i := strings.IndexByte(s, '/'); i >= 0 {
		b = path.Base(s[i:])
	}
	if b == "" || b == "/" || b == "." {
		b = "index.html"
	}
	w.writeArg(arg{s: b, exact: true}, op, e)
}

func (w *walker) wget(c *invocation) {
	args, e := c.args, c.e
	opts, ops := parseArgs(args, c.spec.flags)
	for _, o := range opts {
		switch o.name {
		case "-o", "--output-file", "-a", "--append-output":
			if o.has {
				w.writeArg(o.value, "wget "+o.name, e)
			}
		}
	}
	if o, ok := optValue(opts, "-O", "--output-document"); ok {
		if o.s != "-" {
			w.writeArg(o, "wget -O", e)
		}
		return
	}
	base := e
	if d, ok := optValue(opts, "-P", "--directory-prefix"); ok {
		base = chdir(e, d)
	}
	if hasOpt(opts, "--spider") {
		return
	}
	if hasOpt(opts, "-r", "--recursive", "-m", "--mirror", "-p", "--page-requisites", "-i", "--input-file") {
		w.writeDir(arg{s: ".", exact: true}, "wget", base)
		return
	}
	for _, u := range ops {
		w.urlFile(u, "wget", base)
	}
}

// tarLine is what a tar command line asks for.
type tarLine struct {
	mode               byte // 'x' extract, 'c' create (or append, update, delete), 't' list; 0 none
	archive, dir       arg  // -f ARCHIVE, -C DIR
	hasArchive, hasDir bool
	remove, toStdout   bool // --remove-files, -O
	operands           []arg
}

// tarLongModes and tarShortModes are tar's options that choose what it does.
var (
	tarLongModes = map[string]byte{
		"--extract": 'x', "--get": 'x',
		"--create": 'c', "--append": 'c', "--update": 'c', "--delete": 'c', "--concatenate": 'c',
		"--list": 't', "--diff": 't', "--compare": 't',
	}
	tarShortModes = map[byte]byte{'x': 'x', 'c': 'c', 'r': 'c', 'u': 'c', 'A': 'c', 't': 't', 'd': 't'}
)

// tarShortValues are tar's short options that take a value (attached or the next word).
const tarShortValues = "fCbTXKNgLVH"

// parseTar reads a tar command line, old style ("xzf archive.tar") included.
func parseTar(args []arg) tarLine {
	// Old-style first argument without a dash: "xzf archive.tar".
	if len(args) > 0 && args[0].exact && args[0].s != "" && args[0].s[0] != '-' {
		args = append([]arg{{s: "-" + args[0].s, exact: true}}, args[1:]...)
	}
	var t tarLine
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.exact && a.s == "--remove-files":
			t.remove = true
		case a.exact && a.s == "--to-stdout":
			t.toStdout = true
		case !a.exact || len(a.s) < 2 || a.s[0] != '-':
			t.operands = append(t.operands, a)
		case strings.HasPrefix(a.s, "--"):
			i = t.long(args, i)
		default:
			i = t.short(args, i)
		}
	}
	return t
}

// long reads the long option args[i] and returns the index of the last word it took.
func (t *tarLine) long(args []arg, i int) int {
	name, val, eq := strings.Cut(args[i].s, "=")
	if m, ok := tarLongModes[name]; ok {
		t.mode = m
		return i
	}
	if name != "--file" && name != "--directory" {
		return i
	}
	var v arg
	switch {
	case eq:
		v = arg{s: val, exact: true}
	case i+1 < len(args):
		i++
		v = args[i]
	}
	t.set(name[2], v)
	return i
}

// short reads the bundle of short options args[i] and returns the index of the last word
// it took.
func (t *tarLine) short(args []arg, i int) int {
	s := args[i].s
	for j := 1; j < len(s); j++ {
		c := s[j]
		if m, ok := tarShortModes[c]; ok {
			t.mode = m
			continue
		}
		if c == 'O' {
			t.toStdout = true
			continue
		}
		if strings.IndexByte(tarShortValues, c) < 0 {
			continue
		}
		var v arg
		if j+1 < len(s) {
			v = arg{s: s[j+1:], exact: true}
		} else if i+1 < len(args) {
			i++
			v = args[i]
		}
		t.set(c, v)
		break
	}
	return i
}

// set records the value of -f/--file ('f') or -C/--directory ('C' or 'd'); other
// options' values are dropped.
func (t *tarLine) set(c byte, v arg) {
	switch c {
	case 'f':
		t.archive, t.hasArchive = v, true
	case 'C', 'd':
		t.dir, t.hasDir = v, true
	}
}

// tar: extraction writes unknown entries below -C DIR (or the working
// directory); creation writes the archive.
func (w *walker) tar(args []arg, e *env) {
	switch t := parseTar(args); t.mode {
	case 'x':
		w.tarExtract(t, e)
	case 'c':
		w.tarCreate(t, e)
	}
}

func (w *walker) tarExtract(t tarLine, e *env) {
	if t.hasArchive && t.archive.s != "-" {
		w.readArg(t.archive, "tar", e)
	}
	if t.toStdout {
		return // tar x -O prints the entries, it writes no tree
	}
	dir := t.dir
	if !t.hasDir {
		dir = here
	}
	w.writeDir(dir, "tar x", e)
}

func (w *walker) tarCreate(t tarLine, e *env) {
	if t.hasDir {
		e = chdir(e, t.dir)
	}
	w.carryAll(t.operands, "tar c", e)
	switch {
	case t.hasArchive && t.archive.s != "-":
		w.writeArg(t.archive, "tar c", e)
	case t.hasArchive:
		// tar cf - prints the archive: a write to stdout only
	default:
		w.res.Write = true // no -f: the archive goes to $TAPE or the build's default device
	}
	if t.remove {
		// tar --remove-files deletes what it archived
		w.writeAll(t.operands, "tar --remove-files", e)
	}
}

func (w *walker) unzip(c *invocation) {
	args, e := c.args, c.e
	opts, ops := parseArgs(args, c.spec.flags)
	if hasOpt(opts, "-l", "-t", "-p", "-Z", "-v", "-z") {
		return
	}
	if len(ops) > 0 {
		w.readArg(ops[0], "unzip", e)
	}
	dir, ok := optValue(opts, "-d")
	if !ok {
		dir = arg{s: ".", exact: true}
	}
	w.writeDir(dir, "unzip", e)
}

func (w *walker) sevenZip(args []arg, e *env) {
	ops, out := sevenZipArgs(args)
	if len(ops) == 0 {
		return
	}
	switch ops[0].s {
	case "x", "e":
		w.writeDir(out, "7z x", e)
	case "a", "u", "d", "rn":
		w.sevenZipUpdate(args, ops, e)
	}
}

// sevenZipArgs splits a 7z command line into its operands (the command, the archive, the
// files) and the directory -oDIR extracts to.
func sevenZipArgs(args []arg) (ops []arg, out arg) {
	out = here
	for _, a := range args {
		switch {
		case a.exact && strings.HasPrefix(a.s, "-o") && len(a.s) > 2:
			out = arg{s: a.s[2:], exact: true}
		case a.exact && strings.HasPrefix(a.s, "-"):
		default:
			ops = append(ops, a)
		}
	}
	return ops, out
}

// sevenZipUpdate: 7z a, u, d and rn write the archive; a and u carry the files they store,
// and with -sdel delete them.
func (w *walker) sevenZipUpdate(args, ops []arg, e *env) {
	w.res.Write = true
	if len(ops) > 1 {
		w.writeArg(ops[1], "7z "+ops[0].s, e)
	}
	if len(ops) > 2 && (ops[0].s == "a" || ops[0].s == "u") {
		w.carryAll(ops[2:], "7z "+ops[0].s, e)
	}
	for _, a := range args {
		if a.exact && a.s == "-sdel" && len(ops) > 2 {
			w.writeAll(ops[2:], "7z -sdel", e) // deletes the files it stored
		}
	}
}

// applyPatch reads the file headers of the Codex-style patch handed to
// apply_patch as an argument or on stdin.
func (w *walker) applyPatch(args []arg, in *stdin, e *env) {
	w.res.Write = true
	var body arg
	switch {
	case len(args) > 0:
		body = args[0]
	case in.hdoc != nil:
		body = *in.hdoc
	default:
		w.res.Unknown = true
		return
	}
	if !body.exact {
		w.res.Unknown = true
	}
	found := false
	for _, line := range strings.Split(body.s, "\n") {
		line = strings.TrimSpace(line)
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, h); ok {
				found = true
				w.writeArg(arg{s: strings.TrimSpace(p), exact: true}, "apply_patch", e)
			}
		}
	}
	if !found {
		w.res.Unknown = true
	}
}

func argStrings(args []arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.s
	}
	return out
}
