package outcome

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// bringOps are the git subcommands whose revision operands bring a commit's tree (or its
// changes) into the work tree; am takes patch files, whose "From <id>" lines name commits.
var bringOps = map[string]bool{"merge": true, "checkout": true, "switch": true, "cherry-pick": true,
	"reset": true, "rebase": true, "am": true}

// gitValueOpts are options of those subcommands that take the next word as their value.
var gitValueOpts = map[string]bool{"-m": true, "-s": true, "-X": true, "-b": true, "-B": true, "-c": true,
	"-C": true, "-F": true, "--strategy": true, "--strategy-option": true, "--orphan": true, "--conflict": true,
	"--file": true, "--message": true, "--exec": true, "--mainline": true, "--pathspec-from-file": true}

// RefuseGit returns why the shell command cmd (run in cwd) must not run, or "": a git
// merge, checkout, switch, cherry-pick, reset, rebase or am of a commit the agent made (or of
// a range holding one) whose bank content breaks the write-tool rules. What the command line
// hides (a script, a variable) is left to the check after the call. Free when the agent made
// no commit.
func (g *Guard) RefuseGit(cmd, cwd string) string {
	if !strings.Contains(cmd, "git") {
		return ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	rec := g.loadCommits()
	if rec == nil || len(rec.agent) == 0 {
		return ""
	}
	if cwd == "" {
		cwd = g.r.Root
	}
	revs, shown := gitBrings(cmd, cwd)
	if len(revs) == 0 {
		return ""
	}
	// one process resolves every word; one lists the commits they bring
	var in bytes.Buffer
	for _, r := range revs {
		in.WriteString(r + "^{commit}\n")
	}
	out, _ := g.gitIn(&in, "cat-file", "--batch-check=%(objectname)")
	var tips []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 1 && len(f[0]) >= 40 {
			tips = append(tips, f[0])
		}
	}
	if len(tips) == 0 {
		return ""
	}
	head := g.headOid()
	args := append([]string{"rev-list"}, tips...)
	if head != "" {
		args = append(args, "--not", head)
	}
	listed, _ := g.git(args...)
	for _, x := range strings.Fields(string(listed)) {
		if !rec.set[x] {
			continue
		}
		if why := g.agentCommitBreaks(x, head); why != "" {
			return "[mbguard] blocked: `" + shown + "` would bring into memory-bank/ what commit " + short(x) +
				", which the agent made, holds: " + why + ". Next: change memory-bank/ with the write or edit tool on a .md file, " +
				"keeping the block markers and the USER_BLOCK as they are; the commit stays for the user to look at."
		}
	}
	return ""
}

// agentCommitBreaks judges what commit x changes in the bank against HEAD by the write-tool
// rules (HEAD's bank standing for the known-good state, which the pre check may not lock to
// read), counting only the states no one else's commit introduced; it returns the first
// problems found ("" when none).
func (g *Guard) agentCommitBreaks(x, head string) string {
	now, then := g.bankTree(x), g.bankTree(head)
	if now == nil {
		return ""
	}
	cs := treeChanges(now, then)
	from := g.fromAgent(&gitWork{head: x, starts: []string{x}}, cs)
	for _, c := range cs {
		if _, ok := from[c.path]; !ok {
			continue
		}
		if s := g.commitBreaks(c, then); s != "" {
			return s
		}
	}
	return ""
}

// treeChanges lists the changes from the bank tree then to the bank tree now.
func treeChanges(now, then map[string]treeEnt) []*change {
	var cs []*change
	for p, e := range now {
		if t, ok := then[p]; ok && t == e {
			continue
		}
		c := &change{path: p, newBlob: e.blob, d: &Entry{Kind: KindFile, Mode: 0o644, Nlink: 1}}
		switch e.mode {
		case "120000":
			c.d.Kind = KindSymlink
		case "100755":
			c.d.Mode = 0o755
		}
		cs = append(cs, c)
	}
	for p := range then {
		if _, ok := now[p]; !ok {
			cs = append(cs, &change{path: p})
		}
	}
	return cs
}

// commitBreaks returns the rules one committed change breaks, joined, or "".
func (g *Guard) commitBreaks(c *change, then map[string]treeEnt) string {
	if t, ok := then[c.path]; ok && t.mode != "120000" {
		c.b = &Entry{Kind: KindFile, Mode: 0o644, Nlink: 1, Blob: t.blob}
		_ = g.readOld(c)
		c.b.Size = int64(len(c.old))
	}
	if c.d != nil {
		body, err := g.obj.readBlob(c.newBlob)
		if err != nil {
			return ""
		}
		c.new, c.d.Size = body, int64(len(body))
	}
	probs, _ := g.o.Rules.judge(c.path, c.b, c.d, c.old, c.new)
	var s []string
	for _, p := range probs {
		s = append(s, p.String())
	}
	return strings.Join(s, "; ")
}

// fromLine is the first line format-patch writes for each commit of a patch file, compiled on
// first use: only a `git am` of a patch file needs it, and every hook process would otherwise
// compile it at start.
var fromLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^From ([0-9a-f]{40}|[0-9a-f]{64}) Mon Sep 17 00:00:00 2001$`)
})

// gitBrings lists the revision operands of the git commands in cmd that bring commits into
// the work tree (bringOps), and the commit ids the patch files handed to `git am` name; shown
// is the first such command as written.
func gitBrings(cmd, cwd string) (revs []string, shown string) {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, ""
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		sub, ops, ok := gitBringCall(n)
		if !ok {
			return true
		}
		if sub == "am" {
			revs = append(revs, amRevs(ops, cwd)...)
		} else {
			revs = append(revs, ops...)
		}
		if shown == "" && len(ops) > 0 {
			shown = "git " + sub + " " + strings.Join(ops, " ")
		}
		return true
	})
	return revs, shown
}

// gitBringCall reads a git call that brings commits: its subcommand and operands.
func gitBringCall(n syntax.Node) (sub string, ops []string, ok bool) {
	call, ok := n.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 || call.Args[0].Lit() != "git" {
		return "", nil, false
	}
	var words []string
	for _, a := range call.Args[1:] {
		words = append(words, a.Lit()) // "" for a word built at run time
	}
	i := 0
	for ; i < len(words) && strings.HasPrefix(words[i], "-"); i++ {
		if w := words[i]; w == "-C" || w == "-c" || w == "--git-dir" || w == "--work-tree" || w == "--namespace" {
			i++
		}
	}
	if i >= len(words) || !bringOps[words[i]] {
		return "", nil, false
	}
	return words[i], gitOperands(words[i+1:]), true
}

// gitOperands returns the operands among a git subcommand's words: options, their values and
// the paths after -- left out (--onto's value kept).
func gitOperands(words []string) []string {
	var ops []string
	for j := 0; j < len(words); j++ {
		w := words[j]
		switch {
		case w == "--":
			j = len(words) // paths follow
		case w == "--onto" && j+1 < len(words):
			ops = append(ops, words[j+1])
			j++
		case gitValueOpts[w]:
			j++
		case strings.HasPrefix(w, "-"), w == "":
		default:
			ops = append(ops, w)
		}
	}
	return ops
}

// amRevs returns the commits named by the From lines of the mailboxes git am applies.
func amRevs(ops []string, cwd string) []string {
	var revs []string
	for _, p := range ops {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if b, err := readHead(p, 4<<20); err == nil {
			for _, m := range fromLine().FindAllSubmatch(b, 64) {
				revs = append(revs, string(m[1]))
			}
		}
	}
	return revs
}

// readHead reads at most n bytes of the file at p.
func readHead(p string, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
