package outcome

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/gitexec"
)

// GitMark is what identifies the repository's git state when a call starts: the commit HEAD
// names, the index file's identity, the top of the stash and the length of HEAD's reflog.
// When the post check finds any of them changed, git itself did work during the call (a
// checkout, merge, pull, rebase, cherry-pick, revert, reset, am, stash): the bank files git
// put there are git's, not the agent's, and the reflog lines written since name the operations.
type GitMark struct {
	Head  string `json:"head,omitempty"`
	Index string `json:"index,omitempty"` // size:mtime-ns:inode of the index file
	Stash string `json:"stash,omitempty"`
	Log   int64  `json:"log,omitempty"` // size of HEAD's reflog
	// Auto is the autostash a merge or rebase that stopped keeps (MERGE_AUTOSTASH,
	// rebase-*/autostash): the person's uncommitted work, which git puts back when it ends.
	Auto string `json:"auto,omitempty"`
}

// gitMark reads the mark without running git (a reftable repository needs one rev-parse).
func (g *Guard) gitMark() *GitMark {
	m := &GitMark{Head: g.headOid(), Stash: g.refOid("refs/stash"), Auto: g.autostash()}
	if fi, err := os.Stat(filepath.Join(g.r.GitDir, "index")); err == nil {
		ino, _ := inode(fi)
		m.Index = strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + ":" + strconv.FormatUint(ino, 10)
	}
	if fi, err := os.Stat(g.reflogPath()); err == nil {
		m.Log = fi.Size()
	}
	return m
}

// autostash is the commit of the autostash a stopped merge or rebase keeps ("" when none).
func (g *Guard) autostash() string {
	for _, n := range []string{"MERGE_AUTOSTASH", "rebase-merge/autostash", "rebase-apply/autostash"} {
		if b, err := os.ReadFile(filepath.Join(g.r.GitDir, n)); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

func (g *Guard) reflogPath() string { return filepath.Join(g.r.GitDir, "logs", "HEAD") }

func (g *Guard) headOid() string {
	b, err := os.ReadFile(filepath.Join(g.r.GitDir, "HEAD"))
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(s, "ref: "); ok {
		return g.refOid(ref)
	}
	return s
}

func (g *Guard) refOid(ref string) string {
	if v, ok := g.obj.refValue(ref); ok {
		return v
	}
	if !g.obj.reftable {
		return "" // no such ref (an unborn branch, no stash)
	}
	out, _ := g.git("rev-parse", "-q", "--verify", ref)
	return strings.TrimSpace(string(out))
}

func (g *Guard) git(args ...string) ([]byte, error) { return g.gitIn(nil, args...) }

// gitIn runs git with stdin (nil: none).
func (g *Guard) gitIn(stdin io.Reader, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return gitexec.Cmd{Dir: g.r.Root, Stdin: stdin, Env: []string{"GIT_OPTIONAL_LOCKS=0"}}.Run(ctx, args...)
}

// treeEnt is a bank path's blob and mode in a tree or the index.
type treeEnt struct {
	blob string
	mode string // 100644, 100755, 120000
}

// bankTree lists the bank's entries in a tree-ish (nil when it cannot be read).
func (g *Guard) bankTree(rev string) map[string]treeEnt {
	if rev == "" {
		return nil
	}
	out, err := g.git("ls-tree", "-r", "-z", "--full-tree", rev, "--", bank.Dir)
	if err != nil {
		return nil
	}
	m := map[string]treeEnt{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		m[string(path)] = treeEnt{blob: f[2], mode: f[0]}
	}
	return m
}

// gitWork is what git did during a call, as far as the bank is concerned.
type gitWork struct {
	ops []string // reflog operations since the call started ("checkout", "pull", …)
	// old is the bank in HEAD when the call started: a known-good file that differs from it is
	// uncommitted work, which git must not take away.
	old map[string]treeEnt
	// put are the trees git may have written the bank from: the new HEAD (unless the agent made
	// that commit itself), the stash tops, and the index while an operation is in progress.
	put []map[string]treeEnt
	// drops are the trees whose lack of a file means git removed it: the new HEAD and the
	// index of an operation in progress (a stash lists what it saved, not what should go)
	drops    []map[string]treeEnt
	unmerged map[string]bool
	// stopped: an operation stopped for the person (a conflict, an edit); autostash: it keeps
	// the person's uncommitted work in an autostash, which git puts back when it ends. What
	// git left then is left exactly so (no partial restore).
	stopped   bool
	autostash string
	// head is the new HEAD; starts are the commits git took content from that no ref may name
	// any more (the stash the call began with, MERGE_HEAD, CHERRY_PICK_HEAD…): provenance.go
	head   string
	starts []string
	// headTree is the new HEAD's bank when git moved HEAD (nil otherwise)
	headTree map[string]treeEnt
}

// reflogOps are the operations HEAD's reflog names after offset from (commit, merge,
// rebase, …); committed says one was a commit.
func (g *Guard) reflogOps(from int64) (ops []string, committed bool) {
	b, err := os.ReadFile(g.reflogPath())
	if err != nil || int64(len(b)) < from {
		return nil, false
	}
	for _, line := range strings.Split(string(b[from:]), "\n") {
		_, msg, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		op, _, _ := strings.Cut(msg, ":")
		op = strings.TrimSpace(op)
		if f := strings.Fields(op); len(f) > 0 {
			op = f[0]
		}
		ops = append(ops, op)
		committed = committed || op == "commit"
	}
	return ops, committed
}

// readIndex is the index's bank entries at stage 0; the paths with unmerged stages go into
// unmerged.
func (g *Guard) readIndex(unmerged map[string]bool) map[string]treeEnt {
	idx := map[string]treeEnt{}
	out, err := g.git("ls-files", "-s", "-z", "--", bank.Dir)
	if err != nil {
		return idx
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
			continue
		}
		if f[2] == "0" {
			idx[string(path)] = treeEnt{blob: f[1], mode: f[0]}
		} else {
			unmerged[string(path)] = true
		}
	}
	return idx
}

// gitWorked returns what git did during the call whose mark is mk, or nil when the mark is
// unchanged (git did nothing: every change is judged as before).
func (g *Guard) gitWorked(mk *GitMark) *gitWork {
	if mk == nil {
		return nil
	}
	now := g.gitMark()
	if *now == *mk {
		return nil
	}
	w := &gitWork{old: g.bankTree(mk.Head), unmerged: map[string]bool{}, head: now.Head, autostash: now.Auto}
	w.starts = append(w.starts, mk.Stash, mk.Auto, now.Auto)
	if w.old == nil {
		w.old = map[string]treeEnt{}
	}
	var committed bool
	w.ops, committed = g.reflogOps(mk.Log)
	// `git commit` writes no file: a bank file equal to a commit the call made itself was
	// written by the agent first.
	trustHead := now.Head != mk.Head && !committed
	if trustHead {
		if t := g.bankTree(now.Head); t != nil {
			w.put, w.drops = append(w.put, t), append(w.drops, t)
			w.headTree = t
		}
	}
	// a stash, and the autostash of a merge or rebase that stopped or ended, hold work git
	// puts back
	for _, s := range uniq([]string{mk.Stash, now.Stash, mk.Auto, now.Auto}) {
		if s != "" {
			w.put = append(w.put, g.bankTree(s), g.bankTree(s+"^3"))
		}
	}
	heads := g.opHeads()
	w.starts = append(w.starts, heads...)
	w.stopped = len(heads) > 0 || g.inProgress()
	// the index is read whenever it changed: `checkout -m` leaves unmerged entries and
	// no MERGE_HEAD
	if w.stopped || now.Index != mk.Index {
		idx := g.readIndex(w.unmerged)
		w.stopped = w.stopped || len(w.unmerged) > 0
		if w.stopped {
			w.put, w.drops = append(w.put, idx), append(w.drops, idx)
		}
	}
	if len(w.ops) == 0 {
		w.ops = []string{"git"}
	}
	return w
}

// opHeads are the commits an operation in progress takes from (MERGE_HEAD lists one per line).
func (g *Guard) opHeads() []string {
	var out []string
	for _, n := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD"} {
		if b, err := os.ReadFile(filepath.Join(g.r.GitDir, n)); err == nil {
			out = append(out, strings.Fields(string(b))...)
		}
	}
	return out
}

// inProgress reports a merge, cherry-pick, revert, rebase or am that stopped for the person.
func (g *Guard) inProgress() bool {
	for _, n := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "rebase-merge", "rebase-apply"} {
		if _, err := os.Lstat(filepath.Join(g.r.GitDir, n)); err == nil {
			return true
		}
	}
	return false
}

// has reports whether one of the trees git writes from holds blob at path.
func (w *gitWork) has(path, blob string) bool {
	for _, t := range w.put {
		if e, ok := t[path]; ok && e.blob == blob {
			return true
		}
	}
	return false
}

func (w *gitWork) what() string { return "git " + strings.Join(uniq(w.ops), ", ") }

func uniq(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// gitVerdict is how git's work decides one change.
type gitVerdict int

const (
	gitNone     gitVerdict = iota // not git's: judged as any other change
	gitPut                        // git wrote (or removed) it: accepted
	gitConflict                   // a conflict git left for the person: accepted and reported
	gitLost                       // git took away uncommitted work: put back
	gitStashed                    // as gitLost, but git keeps the work in an autostash: left as git left it
)

// judge decides change c: the known-good state differing from the old HEAD is uncommitted
// work (the person's, or an allowed write's); git changing it took it away. Otherwise a
// state equal to one git wrote from is git's.
func (w *gitWork) judge(c *change) gitVerdict {
	if c.d != nil && c.d.Kind == KindDir || c.d == nil && c.b != nil && c.b.Kind == KindDir {
		return gitNone // directories follow what lies below them
	}
	// a path git left unmerged is the person's to resolve, whatever it held before
	if w.unmerged[c.path] {
		if c.d != nil && c.d.Kind == KindFile {
			return gitConflict
		}
		return gitPut
	}
	old, inOld := w.old[c.path]
	if uncommitted(c, old, inOld) {
		return w.judgeUncommitted(c, old)
	}
	return w.judgeCommitted(c)
}

// judgeCommitted judges a path whose known-good state was HEAD's: git's doing when a tree it
// may have written from lacks the path (deleted) or holds the bytes now there.
func (w *gitWork) judgeCommitted(c *change) gitVerdict {
	if c.d == nil {
		for _, t := range w.drops {
			if _, ok := t[c.path]; t != nil && !ok {
				return gitPut
			}
		}
		return gitNone
	}
	for _, t := range w.put {
		if e, ok := t[c.path]; ok && c.newBlob != "" && e.blob == c.newBlob && e.mode == modeOf(c.d) {
			return gitPut
		}
	}
	return gitNone
}

// uncommitted reports a path whose known-good state differs from HEAD's when the call
// started (old, when inOld).
func uncommitted(c *change, old treeEnt, inOld bool) bool {
	if c.b == nil {
		return inOld // deleted in the work tree, still in HEAD
	}
	return !inOld || c.b.Blob == "" || c.b.Blob != old.blob || modeOf(c.b) != old.mode
}

// judgeUncommitted judges a path that held uncommitted work.
func (w *gitWork) judgeUncommitted(c *change, old treeEnt) gitVerdict {
	// git's doing only when what is there now is what git has: a committed version, a
	// stash's, or nothing (a write of new bytes in the same call is the agent's)
	if c.d == nil || c.newBlob != "" && (old.blob == c.newBlob || w.has(c.path, c.newBlob)) {
		switch {
		case w.stopped && w.autostash != "":
			return gitStashed // restoring would half undo git's work; the autostash has it
		case w.stopped && conflictMarked(c.new):
			return gitConflict
		}
		return gitLost
	}
	if w.stopped && conflictMarked(c.new) {
		return gitConflict // merged with the person's work (checkout -m): theirs to resolve
	}
	return gitNone
}

func modeOf(e *Entry) string {
	switch {
	case e.Kind == KindSymlink:
		return "120000"
	case e.Mode&0o111 != 0:
		return "100755"
	}
	return "100644"
}

// conflictMarked reports a file git wrote conflict markers into: a line that opens with
// "<<<<<<< " and a later one that opens with ">>>>>>> ".
func conflictMarked(b []byte) bool {
	i := bytes.Index(b, []byte("<<<<<<< "))
	if i < 0 || i > 0 && b[i-1] != '\n' {
		return false
	}
	j := bytes.Index(b[i:], []byte("\n>>>>>>> "))
	return j > 0
}

// byGit decides change c by git's work w: it reports whether git's work explains c, and sets
// *why when c is to be undone all the same (uncommitted work git took away, or bank content
// from a commit the agent made that breaks the write-tool rules: from, see fromAgent).
// Conflicts and work kept in an autostash are left as git left them, and reported.
func (g *Guard) byGit(w *gitWork, c *change, from map[string]string, rep *Report, why *[]Problem) bool {
	switch w.judge(c) {
	case gitPut:
		if id, ok := from[c.path]; ok {
			g.readNew(c)
			_ = g.readOld(c)
			probs, err := g.o.Rules.judge(c.path, c.b, c.d, c.old, c.new)
			if err != nil {
				probs = append(probs, Problem{Path: c.path, Rule: RuleAgentCommit, Text: "could not be checked: " + err.Error()})
			}
			if len(probs) > 0 {
				*why = append([]Problem{{Path: c.path, Rule: RuleAgentCommit, Text: agentCommitText(id, w.what())}}, probs...)
			}
		}
	case gitConflict:
		rep.Noticed = append(rep.Noticed, Problem{Path: c.path, Rule: RuleConflict,
			Text: "holds a merge conflict from " + w.what() + "; resolve it and commit (mbguard leaves it to you)"})
	case gitStashed:
		rep.Noticed = append(rep.Noticed, Problem{Path: c.path, Rule: RuleConflict,
			Text: w.what() + " stopped; the uncommitted changes here are in git's autostash " + short(w.autostash) +
				", which git puts back when the operation ends (--continue or --abort)"})
	case gitLost:
		*why = []Problem{{Path: c.path, Rule: RuleGitDiscarded,
			Text: w.what() + " discarded uncommitted work here; it was put back from the known-good state"}}
	default:
		return g.carried(w, c)
	}
	return true
}

// carried reports whether c's new bytes are what git makes of the uncommitted work the
// known-good state held when it carries that work onto the new HEAD (`checkout -m`, an
// autostash applied back after a merge or rebase): the clean three-way merge of the old
// HEAD's version, the new HEAD's and the known-good one. One `git merge-file`, run only for
// an uncommitted file whose new bytes no tree git wrote from holds.
func (g *Guard) carried(w *gitWork, c *change) bool {
	if !carriable(w, c) {
		return false
	}
	base, ok1 := w.old[c.path]
	ours, ok2 := w.headTree[c.path]
	if !ok1 || !ok2 || base.blob == ours.blob || g.readOld(c) != nil {
		return false
	}
	dir, err := os.MkdirTemp(g.r.StateDir(), "carried-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	files := []string{filepath.Join(dir, "ours"), filepath.Join(dir, "base"), filepath.Join(dir, "theirs")}
	if g.writeMergeFiles(files, []string{ours.blob, base.blob, ""}, c.old) != nil {
		return false
	}
	out, err := g.git(append([]string{"merge-file", "-p"}, files...)...)
	return err == nil && bytes.Equal(out, c.new)
}

// carriable reports a file changed in place while git moved HEAD: the only kind a checkout
// can carry.
func carriable(w *gitWork, c *change) bool {
	return w.headTree != nil && c.b != nil && c.d != nil && c.b.Kind == KindFile && c.d.Kind == KindFile && c.new != nil
}

// writeMergeFiles writes each blob to its file, or the bytes from before the call for an
// empty blob name.
func (g *Guard) writeMergeFiles(files, blobs []string, before []byte) error {
	for i, blob := range blobs {
		b := before
		if blob != "" {
			var err error
			if b, err = g.obj.readBlob(blob); err != nil {
				return err
			}
		}
		if err := os.WriteFile(files[i], b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// agentContent is fromAgent for the changes git's work put into the bank.
func (g *Guard) agentContent(w *gitWork, changes []*change) map[string]string {
	var put []*change
	for _, c := range changes {
		if w.judge(c) == gitPut && (c.d == nil || c.d.Kind != KindDir) {
			put = append(put, c)
		}
	}
	return g.fromAgent(w, put)
}
