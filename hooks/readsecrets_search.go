package hooks

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/gating/shell"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/scanner"
	"github.com/mbguard/mbguard/watcher"
)

// A search whose target is a directory above the bank (the repository root, or no path at
// all) reads the bank's files too, and on the hosts that cannot hide a tool's output afterwards
// (secretRefuse) what it shows reaches the model. searchAbove decides, before the call runs,
// whether it would show a bank secret.

// contentSearch is a structured search tool's call — Qwen Code's grep_search, Factory Droid's
// Grep, Crush's grep, all "grep" to the engine — as far as it decides which lines come back.
type contentSearch struct {
	re            *regexp.Regexp // nil when the pattern does not compile as a Go regexp
	root          string         // the directory (or file) searched
	globs         []string       // the file filters (glob, glob_pattern, include)
	before, after int            // context lines shown around each match
	namesOnly     bool           // only file names or counts come back
	multiline     bool           // a match may span lines
}

// searchArgs are the argument names the hosts' search tools use for each setting.
var (
	searchPathArgs   = []string{"path", "folder", "dir_path", "directory"}
	searchGlobArgs   = []string{"glob", "glob_pattern", "include", "iglob"}
	searchFoldArgs   = []string{"-i", "case_insensitive", "ignore_case"}
	searchFixedArgs  = []string{"fixed_string", "literal_text", "-F", "fixed_strings"}
	searchBeforeArgs = []string{"-B", "context_before", "before"}
	searchAfterArgs  = []string{"-A", "context_after", "after"}
	searchAroundArgs = []string{"-C", "context"}
	// output modes that show no line of a file (Claude Code's and Droid's names)
	searchNamesOnly = map[string]bool{"files_with_matches": true, "file_paths": true, "count": true}
)

// searchOf reads c as a structured content search; false when it is not one.
//
// Matching folds case unless the call says it does not: Qwen's grep_search always folds, and a
// search judged as folding when the host's does not only refuses more.
func searchOf(c *hookCall) (contentSearch, bool) {
	if !strings.EqualFold(c.Tool, "grep") || c.Args == nil {
		return contentSearch{}, false
	}
	s := contentSearch{root: c.Cwd}
	for _, k := range searchPathArgs {
		if p, ok := c.Args[k].(string); ok && p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(c.Cwd, p)
			}
			s.root = filepath.Clean(p)
			break
		}
	}
	for _, k := range searchGlobArgs {
		if g, ok := c.Args[k].(string); ok && g != "" {
			s.globs = append(s.globs, g)
		}
	}
	pattern, _ := c.Args["pattern"].(string)
	if argTrue(c.Args, searchFixedArgs) {
		pattern = regexp.QuoteMeta(pattern)
	}
	if !argFalse(c.Args, searchFoldArgs) {
		pattern = "(?i)" + pattern
	}
	if argTrue(c.Args, []string{"multiline", "-U"}) {
		s.multiline = true
		pattern = "(?s)" + pattern
	}
	s.re, _ = regexp.Compile(pattern)
	mode, _ := c.Args["output_mode"].(string)
	s.namesOnly = searchNamesOnly[mode]
	around := argInt(c.Args, searchAroundArgs)
	s.before = max(around, argInt(c.Args, searchBeforeArgs))
	s.after = max(around, argInt(c.Args, searchAfterArgs))
	return s, true
}

// shows reports whether the search would show a line of the secret f, whose file holds body
// and lies at rel below the search's root.
func (s contentSearch) shows(f bankSecret, body []byte, rel string) bool {
	if s.namesOnly || !globsAdmit(s.globs, rel) {
		return false
	}
	if s.re == nil {
		return true // a pattern Go cannot read: it may match anything
	}
	if s.multiline {
		return s.re.Match(body)
	}
	lines := strings.Split(string(body), "\n")
	first := f.line - 1
	last := first + strings.Count(f.secret, "\n") // a private key spans lines
	// a match at line m shows lines m-before … m+after
	for m := max(0, first-s.after); m <= min(len(lines)-1, last+s.before); m++ {
		if s.re.MatchString(lines[m]) {
			return true
		}
	}
	return false
}

// mayMatch reports whether the search's pattern matches anywhere in file: a file it matches
// nowhere shows no line, so its secrets need no scan (the scan costs far more than the match).
// A pattern Go cannot read may match anything.
func (s contentSearch) mayMatch(file string) bool {
	if s.re == nil {
		return true
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Size() > scanner.MaxReadScan {
		return false // not scanned either (secretScan.file)
	}
	b, err := os.ReadFile(file)
	return err == nil && s.re.Match(b)
}

// globsAdmit reports whether a search with the file filters globs may read the file at rel
// (slash-separated, below the search's root). It decides conservatively: a filter it cannot
// read admits the file. A negated filter leaves a file out only when it names memory-bank/.
func globsAdmit(globs []string, rel string) bool {
	base := path.Base(rel)
	positive, admitted := false, false
	for _, g := range globs {
		if neg, ok := strings.CutPrefix(g, "!"); ok {
			if shell.ExcludesBank(neg) {
				return false
			}
			continue
		}
		positive = true
		for _, alt := range expandGlobBraces(g) {
			// the last segment of a glob must match the file's own name
			last := alt[strings.LastIndex(alt, "/")+1:]
			if ok, err := path.Match(strings.ToLower(last), strings.ToLower(base)); ok || err != nil {
				admitted = true
			}
		}
	}
	return !positive || admitted
}

// expandGlobBraces expands one level of {a,b} alternatives; a glob with nested or unbalanced
// braces comes back as "*", which admits everything.
func expandGlobBraces(g string) []string {
	open := strings.IndexByte(g, '{')
	if open < 0 {
		if strings.IndexByte(g, '}') >= 0 {
			return []string{"*"}
		}
		return []string{g}
	}
	end := strings.IndexByte(g[open:], '}')
	if end < 0 || strings.IndexByte(g[open+1:open+end], '{') >= 0 {
		return []string{"*"}
	}
	var out []string
	for _, alt := range strings.Split(g[open+1:open+end], ",") {
		out = append(out, expandGlobBraces(g[:open]+alt+g[open+end+1:])...)
	}
	return out
}

// searchAbove returns the secrets a call that searches a directory holding a bank would show,
// and the one way to search without them. A structured search counts only the secrets on lines
// its pattern matches (and its file filter admits).
func searchAbove(c *hookCall, sh shell.Result, repos []repo.Repo, sc *secretScan) (found []bankSecret, next string) {
	if gating.ShellTool(c.Tool) {
		return shellSearchAbove(sh, repos, sc)
	}
	s, ok := searchOf(c)
	if !ok {
		return nil, ""
	}
	for _, r := range repos {
		if !holdsBank(r, s.root) {
			continue
		}
		root := s.root
		walkBank(r, r.BankDir(), func(rel, file string) {
			below, err := filepath.Rel(root, file)
			if err != nil {
				below = rel
			}
			below = filepath.ToSlash(below)
			if s.namesOnly || !globsAdmit(s.globs, below) || !s.mayMatch(file) {
				return // nothing of this file comes back: no need to scan it
			}
			fs, body := sc.file(r, rel, file)
			for _, f := range fs {
				if s.shows(f, body, below) {
					found = append(found, f)
				}
			}
		})
	}
	return found, "search a path that does not hold memory-bank/, or with a pattern those lines do not match"
}

// shellOf classifies a shell call's command line where it runs; false for another tool.
func shellOf(c *hookCall) (shell.Result, bool) {
	if !gating.ShellTool(c.Tool) {
		return shell.Result{}, false
	}
	cmd, ok := c.Args["command"].(string)
	if !ok {
		cmd, _ = c.Args["cmd"].(string)
	}
	cwd := c.Cwd
	for _, k := range []string{"workdir", "cwd", "dir_path", "directory"} {
		if wd, ok := c.Args[k].(string); ok && wd != "" {
			if !filepath.IsAbs(wd) {
				wd = filepath.Join(cwd, wd)
			}
			cwd = filepath.Clean(wd)
			break
		}
	}
	if gating.PowerShellTool(c.Tool) {
		return shell.ClassifyPowerShell(cmd, filepath.ToSlash(cwd)), true
	}
	// the agent's shell shares the hook's environment: "$HOME/x" is a known path, as the
	// engine sees it
	return shell.ClassifyEnv(cmd, filepath.ToSlash(cwd), (*watcher.Facts)(nil).Env()), true
}

// bankDirOf is the part of a bank that lies below p: the whole bank when p holds it (the
// repository root), p when it is a directory or file in the bank, "" when p is outside it.
func bankDirOf(r repo.Repo, p string) string {
	if holdsBank(r, p) {
		return r.BankDir()
	}
	if _, in := bankRel(r, p); in {
		return p
	}
	return ""
}

// carriedSecrets returns the secrets in the bank files a shell command copies, archives or
// links elsewhere (cp memory-bank/… /tmp/y, tar cf /tmp/b.tar memory-bank, ln -s): the copy
// holds the secret under a name no gate guards, and the next call shows it. A copy into the
// bank is the bank guard's to judge; it refuses it first.
func carriedSecrets(sh shell.Result, repos []repo.Repo, sc *secretScan) []bankSecret {
	var paths []string
	for _, a := range sh.Carries {
		paths = append(paths, a.Path)
	}
	return secretsUnder(paths, repos, sc)
}

// ranSecrets returns the secrets in the bank files a shell command runs as programs (bash -x
// memory-bank/…, python memory-bank/…): a shell's trace and an interpreter's syntax error
// print the file's lines.
func ranSecrets(sh shell.Result, repos []repo.Repo, sc *secretScan) []bankSecret {
	var paths []string
	for _, r := range sh.Runs {
		paths = append(paths, r.Path)
	}
	return secretsUnder(paths, repos, sc)
}

// maxScriptScan bounds the text of a script read to see whether it names the bank.
const maxScriptScan = 256 << 10

// scriptSecrets returns the secrets of every bank a script the shell command runs names by
// its directory (python3 /tmp/dump.py, whose code opens memory-bank/…): what the script prints
// cannot be known before it runs. A script in the bank is ranSecrets's; one that does not name
// memory-bank/ is not judged (a name built at run time is not seen).
func scriptSecrets(sh shell.Result, repos []repo.Repo, sc *secretScan) (found []bankSecret, script string) {
	for _, run := range sh.Runs {
		if run.Kind == "patch" {
			continue // git apply prints no line of what it applies
		}
		p := filepath.FromSlash(run.Path)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxScriptScan {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), bank.Dir) {
			continue
		}
		for _, r := range repos {
			if _, in := bankRel(r, p); in {
				continue
			}
			walkBank(r, r.BankDir(), func(rel, file string) {
				fs, _ := sc.file(r, rel, file)
				found = append(found, fs...)
			})
		}
		if len(found) > 0 {
			return found, filepath.Base(p)
		}
	}
	return nil, ""
}

// secretsUnder returns the secrets in the bank files at or below paths (slash-separated,
// globs expanded).
func secretsUnder(paths []string, repos []repo.Repo, sc *secretScan) (found []bankSecret) {
	for _, p := range expandGlobs(paths) {
		p = filepath.FromSlash(p)
		for _, r := range repos {
			if dir := bankDirOf(r, p); dir != "" {
				walkBank(r, dir, func(rel, file string) {
					fs, _ := sc.file(r, rel, file)
					found = append(found, fs...)
				})
			}
		}
	}
	return found
}

// shellSearchAbove returns the secrets in every bank a shell command searches at any depth
// from a directory that holds it (grep -r token ., rg token, find . -exec cat {} +): the
// command's output cannot be known before it runs, so every finding counts. A search told to
// leave memory-bank/ out is not one. git's views of files (git show HEAD:memory-bank/x.md,
// git log -p, git diff) are judged by the files as they are now: a secret only in the history
// is not looked for.
func shellSearchAbove(res shell.Result, repos []repo.Repo, sc *secretScan) (found []bankSecret, next string) {
	ss := &searchScan{sc: sc, changed: map[string]map[string]bool{}}
	gitView, runTime := false, false
	for _, s := range res.Searches {
		if s.NoBank {
			continue
		}
		fs := ss.search(s, repos)
		found = append(found, fs...)
		gitView = gitView || len(fs) > 0 && strings.HasPrefix(s.Op, "git ") && s.Op != "git grep"
		runTime = runTime || len(fs) > 0 && s.Unknown
	}
	switch {
	case runTime:
		return found, "name the files to read in the command instead of building their names when it runs"
	case gitView:
		return found, "view the history with the bank left out (git log -p -- . ':!memory-bank', git diff -- . ':!memory-bank')"
	}
	return found, "search with the bank left out (grep -r --exclude-dir=memory-bank …, rg -g '!memory-bank' …, git grep … -- ':!memory-bank')"
}

// searchScan finds the secrets shell searches would show, asking git once per repository
// which bank files have uncommitted changes.
type searchScan struct {
	sc      *secretScan
	changed map[string]map[string]bool // repository root → bank files with uncommitted changes
}

// search returns the secrets in every bank one search reaches from where it starts.
func (ss *searchScan) search(s shell.Access, repos []repo.Repo) []bankSecret {
	var found []bankSecret
	for _, p := range expandGlobs([]string{filepath.FromSlash(s.Path)}) {
		for _, r := range repos {
			if s.Top {
				p = filepath.Join(r.Root, filepath.FromSlash(s.Path)) // git's REV:PATH
			}
			if dir := bankDirOf(r, p); dir != "" {
				walkBank(r, dir, func(rel, file string) { found = append(found, ss.file(s, r, rel, file)...) })
			}
		}
	}
	return found
}

// file returns the secrets of one bank file the search s shows: none when its file filters let
// no Markdown file in (grep --include='*.go'), or, for git diff, when the file has no
// uncommitted change.
func (ss *searchScan) file(s shell.Access, r repo.Repo, rel, file string) []bankSecret {
	if s.NoMarkdown && strings.EqualFold(filepath.Ext(file), ".md") {
		return nil
	}
	if s.Changes {
		if ss.changed[r.Root] == nil {
			ss.changed[r.Root] = bankChanges(r)
		}
		if !ss.changed[r.Root]["*"] && !ss.changed[r.Root][rel] {
			return nil
		}
	}
	fs, _ := ss.sc.file(r, rel, file)
	return fs
}

// bankChanges is the set of r's bank files with uncommitted changes (repository-relative, as
// bankRel gives them); {"*": true} when git cannot tell, so that every file counts.
func bankChanges(r repo.Repo) map[string]bool {
	files, ok := watcher.NewFacts(r.Root, nil).BankChanges()
	if !ok {
		return map[string]bool{"*": true}
	}
	set := map[string]bool{"": true} // never nil: asked once
	for _, f := range files {
		set[filepath.ToSlash(f)] = true
	}
	return set
}

// maxGlobPaths bounds the paths one glob in a call's arguments is expanded to.
const maxGlobPaths = 256

// expandGlobs replaces each path holding a glob (cat memory-bank/*/*, head */*/*.md) by the
// paths it matches now, at most maxGlobPaths each; other paths, and a glob matching nothing,
// stay as they are.
func expandGlobs(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil || len(m) == 0 {
			out = append(out, p)
			continue
		}
		out = append(out, m[:min(len(m), maxGlobPaths)]...)
	}
	return out
}

// stopRefusal is the reason a call is refused before it runs because of where it would take
// the bank's secrets (what: "and this search would show it to the model, …"): where the
// secrets are (file, line, rule; never the secret) and the one next step, which then ends
// (", or search …").
func stopRefusal(found []bankSecret, what, then string) string {
	var lines, fixes []string
	for _, f := range found {
		lines = append(lines, f.String())
		fixes = append(fixes, fmt.Sprintf("%s line %d (rule %s)", f.rel, f.line, f.rule))
	}
	return "[mbguard] " + strings.Join(lines, "; ") + ", " + what + ". " +
		"Do not repeat the secret anywhere. Next: remove the secret at " + strings.Join(fixes, ", ") +
		" with the write or edit tool (keep only where it lives: a vault, an environment variable name)" + then + "."
}

func argTrue(args map[string]any, keys []string) bool {
	for _, k := range keys {
		if b, ok := args[k].(bool); ok && b {
			return true
		}
	}
	return false
}

func argFalse(args map[string]any, keys []string) bool {
	for _, k := range keys {
		if b, ok := args[k].(bool); ok && !b {
			return true
		}
	}
	return false
}

// argInt is the largest whole number among keys (JSON numbers, or digits in a string).
func argInt(args map[string]any, keys []string) int {
	n := 0
	for _, k := range keys {
		switch v := args[k].(type) {
		case float64:
			if v > float64(n) && v < 1<<20 {
				n = int(v)
			}
		case string:
			var x int
			if _, err := fmt.Sscanf(v, "%d", &x); err == nil && x > n && x < 1<<20 {
				n = x
			}
		}
	}
	return n
}
