package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/mbguard/mbguard/bank"
)

func headOf(o MigrateOptions) (hash, branch string, err error) {
	r, err := open(o.Root)
	if err != nil {
		return "", "", err
	}
	ref, err := r.Head()
	if err != nil {
		return "", "", refuse("the repository has no commit yet: commit memory-bank/ first")
	}
	if ref.Name().IsBranch() {
		branch = ref.Name().String()
	}
	return ref.Hash().String(), branch, nil
}

// runGit carries a journaled migration from wherever it stands to the end.
func runGit(ctx context.Context, o MigrateOptions, j *journal, res *MigrateResult) error {
	r, err := open(o.Root)
	if err != nil {
		return err
	}
	rg := &gitRun{r: r, g: newGoGit(r, o), o: o, j: j, res: res}
	res.NoMoves = len(j.Plan.Moves) == 0
	if j.Phase == phaseStarted {
		if err := rg.moves(ctx); err != nil {
			return err
		}
	}
	if o.FailAfter == "commit1" {
		return ErrInjected
	}
	if j.Phase == phaseMoved {
		if err := rg.memory(); err != nil {
			return err
		}
	}
	if o.FailAfter == "commit2" {
		return ErrInjected
	}
	if j.Phase == phaseBuilt {
		if err := rg.links(); err != nil {
			return err
		}
	}
	res.Applied = true
	return nil
}

// gitRun is one run of runGit: each phase makes its commit, or finds it made by a run killed
// before the journal knew, and moves the journal on.
type gitRun struct {
	r   *gitRepo
	g   *goGit
	o   MigrateOptions
	j   *journal
	res *MigrateResult
}

func (rg *gitRun) head() (plumbing.Hash, error) {
	ref, err := rg.r.Head()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading HEAD: %w", err)
	}
	return ref.Hash(), nil
}

// ours reports whether h is the commit with msg on parent that a run made.
func (rg *gitRun) ours(h plumbing.Hash, msg string, parent string) bool {
	c, err := rg.r.CommitObject(h)
	return err == nil && c.Message == msg && len(c.ParentHashes) == 1 && c.ParentHashes[0].String() == parent
}

func (rg *gitRun) made(h plumbing.Hash, msg string) {
	subject, _, _ := strings.Cut(msg, "\n")
	rg.res.Commits = append(rg.res.Commits, Commit{h.String(), subject})
}

// moves makes commit 1, the moves.
func (rg *gitRun) moves(ctx context.Context) error {
	j := rg.j
	h, err := rg.head()
	if err != nil {
		return err
	}
	switch {
	case h.String() == j.Start:
		if err := ctx.Err(); err != nil {
			return err
		}
		if h, err = commitMoves(rg.g, j); err != nil {
			return err
		}
		if !rg.res.NoMoves {
			rg.made(h, msgMoves)
		}
	case rg.ours(h, msgMoves, j.Start):
		rg.made(h, msgMoves) // killed after the commit, before the journal knew
	default:
		return fmt.Errorf("HEAD moved to %s since the migration started at %s: run mbguard migrate --rollback, or finish by hand", h.String()[:12], j.Start[:12])
	}
	j.Commit1, j.Phase = h.String(), phaseMoved
	return j.save(rg.o.StateDir)
}

// memory makes commit 2, MEMORY.md (and legacy.md).
func (rg *gitRun) memory() error {
	j := rg.j
	h, err := rg.head()
	if err != nil {
		return err
	}
	msg := memoryMessage(j.Plan)
	switch {
	case h.String() == j.Commit1:
		if h, err = commitMemory(rg.g, j, rg.res); err != nil {
			return err
		}
	case rg.ours(h, msg, j.Commit1):
	default:
		return fmt.Errorf("HEAD moved to %s since the first migration commit %s: run mbguard migrate --rollback, or finish by hand", h.String()[:12], j.Commit1[:12])
	}
	rg.made(h, msg)
	j.Commit2, j.Phase = h.String(), phaseBuilt
	return j.save(rg.o.StateDir)
}

// links makes commit 3, the rewritten links, unless the run was asked not to.
func (rg *gitRun) links() error {
	j := rg.j
	if !j.NoLinks {
		h, err := rg.head()
		if err != nil {
			return err
		}
		switch {
		case h.String() == j.Commit2:
			c, ok, err := commitLinks(rg.g, j, rg.res)
			if err != nil {
				return err
			}
			if ok {
				rg.made(c, msgLinks)
				j.Commit3 = c.String()
			}
		case rg.ours(h, msgLinks, j.Commit2):
			if _, _, err := linkChanges(rg.g, j, rg.res); err != nil { // for the report
				return err
			}
			rg.made(h, msgLinks)
			j.Commit3 = h.String()
		default:
			return fmt.Errorf("HEAD moved to %s since the second migration commit %s: run mbguard migrate --rollback, or finish by hand", h.String()[:12], j.Commit2[:12])
		}
	}
	j.Phase = phaseDone
	return j.save(rg.o.StateDir)
}

// memoryMessage is commit 2's message; it names the files the plan builds MEMORY.md from.
func memoryMessage(p Plan) string {
	if p.Kind == "" { // a journal from before Kind was recorded
		return msgMemory
	}
	var from []string
	for _, m := range p.Merges {
		from = append(from, path.Base(m.From))
	}
	subject, _, _ := strings.Cut(msgMemory, "\n")
	if p.Kind == bank.KindUnmarked {
		return subject + "\n\nThe old MEMORY.md is kept byte for byte as its USER_BLOCK; the markers, the template\nversion and the fixed sections are added around it.\n"
	}
	return subject + "\n\n" + string(p.Kind) + " memory bank: " + strings.Join(from, ", ") + " become MEMORY.md (and legacy.md\nfor text with no other place).\n"
}

// commitMoves is commit 1: pure renames. With go-git it renames the entries of the one loaded
// index and builds the commit's tree from HEAD's, rewriting only the trees on the moved paths
// (Worktree.Move would rewrite the whole index per file, Worktree.Commit rehash every tree);
// with --git-cli it runs git mv.
func commitMoves(g *goGit, j *journal) (plumbing.Hash, error) {
	o, r := g.o, g.r
	moves := j.Plan.Moves
	if len(moves) == 0 {
		return plumbing.NewHash(j.Start), nil // nothing to rename: no commit, the start stands in
	}
	if o.GitCLI {
		if err := gitMoves(o.Root, j.Plan, o.FailAfter); err != nil {
			return plumbing.ZeroHash, err
		}
		if _, err := gitOut(o.Root, "commit", "-q", "-m", msgMoves); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("committing the moves (run mbguard migrate --apply again to resume): %w", err)
		}
		return headAfter(r)
	}
	g.prepare()
	// Read the index before touching the disk: an index mbguard cannot edit stops the run here.
	ix, err := g.index()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if err := renameOnDisk(o.Root, j.Plan, o.Progress); err != nil {
		return plumbing.ZeroHash, err
	}
	if o.FailAfter == "moves" {
		return plumbing.ZeroHash, ErrInjected
	}
	byName := ix.byName()
	edits := make([]treeEdit, 0, 2*len(moves))
	for _, m := range moves {
		e := byName[m.From]
		switch {
		case e != nil:
			e.setName(m.To)
		case byName[m.To] != nil:
			e = byName[m.To] // renamed in the index by an interrupted run
		default:
			continue // ignored file, moved on disk only
		}
		if fi, err := os.Lstat(filepath.Join(o.Root, filepath.FromSlash(m.To))); err == nil {
			e.setStat(fi) // a rename changes ctime; keep git status from rehashing
		}
		edits = append(edits, treeEdit{Path: m.From}, treeEdit{Path: m.To, Hash: e.hash(), Mode: e.mode()})
	}
	if err := ix.write(); err != nil {
		return plumbing.ZeroHash, err
	}
	return g.commit(plumbing.NewHash(j.Start), edits, msgMoves)
}

func headAfter(r *gitRepo) (plumbing.Hash, error) {
	ref, err := r.Head()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading HEAD: %w", err)
	}
	return ref.Hash(), nil
}

// gitMoves renames whole folders with one git mv each where it can, file by file where an
// interrupted run left a folder half moved, and the top-level files one by one.
func gitMoves(root string, p Plan, failAfter string) error {
	inDir := func(f string) bool {
		for _, d := range p.Dirs {
			if strings.HasPrefix(f, d.From+"/") {
				return true
			}
		}
		return false
	}
	for _, m := range p.Moves {
		if inDir(m.From) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(m.From))); err != nil {
			continue // moved by an earlier, interrupted run
		}
		if err := gitMove(root, m.From, m.To); err != nil {
			return err
		}
	}
	for _, dm := range p.Dirs {
		if err := gitMoveDir(root, dm.From, dm.To, p.Moves); err != nil {
			return err
		}
	}
	if failAfter == "moves" {
		return ErrInjected
	}
	return nil
}

// gitMove is git mv from to, after making to's folder.
func gitMove(root, from, to string) error {
	if err := os.MkdirAll(filepath.Dir(filepath.Join(root, filepath.FromSlash(to))), 0o755); err != nil {
		return fmt.Errorf("creating the folder of %s: %w", to, err)
	}
	if _, err := gitOut(root, "mv", "--", from, to); err != nil {
		return fmt.Errorf("moving %s (run mbguard migrate --apply again to resume): %w", from, err)
	}
	return nil
}

// gitMoveDir moves the folder src to dst whole, or, when dst exists already (an interrupted
// run), the moves still to do inside it one by one.
func gitMoveDir(root, src, dst string, moves []Move) error {
	if fi, err := os.Lstat(filepath.Join(root, src)); err != nil || !fi.IsDir() {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(root, dst)); err != nil {
		return gitMove(root, src, dst)
	}
	for _, m := range moves {
		if !strings.HasPrefix(m.From, src+"/") {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, m.From)); err != nil {
			continue
		}
		os.MkdirAll(filepath.Dir(filepath.Join(root, m.To)), 0o755)
		if _, err := gitOut(root, "mv", "--", m.From, m.To); err != nil {
			return fmt.Errorf("moving %s (run mbguard migrate --apply again to resume): %w", m.From, err)
		}
	}
	removeEmptyDirs(filepath.Join(root, src))
	return nil
}

// goGit is what both go-git commits share: one repository, one index read once, and one
// identity resolved once, while the moves run.
type goGit struct {
	r    *gitRepo
	o    MigrateOptions
	ix   *gitIndex
	sigs func() (author, committer *object.Signature, err error)
}

func newGoGit(r *gitRepo, o MigrateOptions) *goGit {
	g := &goGit{r: r, o: o}
	var once sync.Once
	var author, committer *object.Signature
	var err error
	g.sigs = func() (*object.Signature, *object.Signature, error) {
		once.Do(func() { author, committer, err = signatures(r, o.Root) })
		return author, committer, err
	}
	return g
}

// prepare starts resolving the identity in the background; commit waits for it.
func (g *goGit) prepare() { go g.sigs() }

func (g *goGit) index() (*gitIndex, error) {
	if g.ix == nil {
		ix, err := readGitIndex(indexPath(g.o.GitDir))
		if err != nil {
			return nil, err
		}
		g.ix = ix
	}
	return g.ix, nil
}

// commit makes a commit on parent whose tree is parent's with edits applied, and moves the
// branch HEAD points to from parent to it (failing if something else moved it meanwhile).
func (g *goGit) commit(parent plumbing.Hash, edits []treeEdit, msg string) (plumbing.Hash, error) {
	pc, err := g.r.CommitObject(parent)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading commit %s: %w", parent, err)
	}
	tree, err := editTree(g.r.Storer, pc.TreeHash, edits)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	author, committer, err := g.sigs()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	c := &object.Commit{Author: *author, Committer: *committer, Message: msg, TreeHash: tree, ParentHashes: []plumbing.Hash{parent}}
	obj := g.r.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encoding the commit: %w", err)
	}
	h, err := g.r.Storer.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("storing the commit: %w", err)
	}
	head, err := g.r.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading HEAD: %w", err)
	}
	name := plumbing.HEAD
	if head.Type() != plumbing.HashReference {
		name = head.Target()
	}
	if err := g.r.Storer.CheckAndSetReference(plumbing.NewHashReference(name, h), plumbing.NewHashReference(name, parent)); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("moving %s to the new commit (run mbguard migrate --apply again to resume): %w", name.Short(), err)
	}
	return h, nil
}

// signatures is the commit identity. It comes from git itself when it is installed (so
// GIT_AUTHOR_*, includes and every config scope apply), else from go-git's config reading.
// The two git var processes run side by side, once per migration.
func signatures(r *gitRepo, root string) (author, committer *object.Signature, err error) {
	if _, err := exec.LookPath("git"); err == nil {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); author = ident(root, "GIT_AUTHOR_IDENT") }()
		committer = ident(root, "GIT_COMMITTER_IDENT")
		wg.Wait()
	}
	if author == nil {
		author, committer = r.configIdentity()
		now := time.Now()
		for _, s := range []*object.Signature{author, committer} {
			if s != nil {
				s.When = now
			}
		}
	}
	if author == nil {
		return nil, nil, errors.New("committing: no author identity: set user.name and user.email, then run mbguard migrate --apply again")
	}
	if committer == nil {
		committer = author
	}
	return sanitize(*author), sanitize(*committer), nil
}

var identStrip = strings.NewReplacer("<", "", ">", "", "\n", "")

// sanitize drops what git drops from a name or email: angle brackets and newlines.
func sanitize(s object.Signature) *object.Signature {
	return &object.Signature{Name: identStrip.Replace(s.Name), Email: identStrip.Replace(s.Email), When: s.When}
}

// ident parses `git var GIT_AUTHOR_IDENT`: "Name <email> 1700000000 +0100".
func ident(root, which string) *object.Signature {
	out, err := gitOut(root, "var", which)
	if err != nil {
		return nil
	}
	lt, gt := strings.LastIndex(out, "<"), strings.LastIndex(out, ">")
	if lt < 0 || gt < lt {
		return nil
	}
	s := &object.Signature{Name: strings.TrimSpace(out[:lt]), Email: out[lt+1 : gt], When: time.Now()}
	f := strings.Fields(out[gt+1:])
	if len(f) == 2 {
		if sec, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			if t, err := time.Parse("-0700", f[1]); err == nil {
				s.When = time.Unix(sec, 0).In(t.Location())
			}
		}
	}
	return s
}

// commitMemory is commit 2: MEMORY.md (and legacy.md) built from the entry files as commit 1
// recorded them — never from the disk, so a run killed halfway through rebuilds the same bytes —
// then the old entry files removed.
func commitMemory(g *goGit, j *journal, res *MigrateResult) (plumbing.Hash, error) {
	o, r := g.o, g.r
	if !o.GitCLI {
		g.prepare()
	}
	c1, err := r.CommitObject(plumbing.NewHash(j.Commit1))
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading commit %s: %w", j.Commit1, err)
	}
	tree, err := c1.Tree()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading commit %s: %w", j.Commit1, err)
	}
	mem, leg, err := buildOutputs(j.Plan, treeFile(tree))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if err := writeOutputs(o, mem, leg); err != nil {
		return plumbing.ZeroHash, err
	}
	res.Legacy = leg != nil
	if o.FailAfter == "memory" {
		return plumbing.ZeroHash, ErrInjected
	}
	content := map[string][]byte{bank.Entry: mem}
	if leg != nil {
		content[bank.Dir+"/legacy.md"] = leg
	}
	if err := removeMerged(o.Root, j.Plan); err != nil {
		return plumbing.ZeroHash, err
	}
	if o.GitCLI {
		return commitMemoryCLI(r, o.Root, j.Plan, content)
	}
	return commitMemoryGoGit(g, c1.Hash, j.Plan, content)
}

// treeFile reads a file of tree by path; nil when it is not there or cannot be read.
func treeFile(tree *object.Tree) func(p string) []byte {
	return func(p string) []byte {
		f, err := tree.File(p)
		if err != nil {
			return nil
		}
		s, err := f.Contents()
		if err != nil {
			return nil
		}
		return []byte(s)
	}
}

// memoryOutputs are the files commit 2 adds, MEMORY.md first.
func memoryOutputs(content map[string][]byte) []string {
	outputs := []string{bank.Entry}
	if _, ok := content[bank.Dir+"/legacy.md"]; ok {
		outputs = append(outputs, bank.Dir+"/legacy.md")
	}
	return outputs
}

// removeMerged removes the entry files merged into MEMORY.md, and the folder the bank came
// from when nothing else is left in it.
func removeMerged(root string, p Plan) error {
	for _, d := range p.Delete {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(d))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", d, err)
		}
	}
	if p.From != "" {
		removeEmptyDirs(filepath.Join(root, filepath.FromSlash(p.From)))
	}
	return nil
}

// commitMemoryCLI makes commit 2 through the git CLI.
func commitMemoryCLI(r *gitRepo, root string, p Plan, content map[string][]byte) (plumbing.Hash, error) {
	if len(p.Delete) > 0 {
		if _, err := gitOut(root, append([]string{"rm", "-q", "--cached", "--ignore-unmatch", "--"}, p.Delete...)...); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	if _, err := gitOut(root, append([]string{"add", "--"}, memoryOutputs(content)...)...); err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := gitOut(root, "commit", "-q", "-m", memoryMessage(p)); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("committing MEMORY.md (run mbguard migrate --apply again to resume): %w", err)
	}
	return headAfter(r)
}

// commitMemoryGoGit makes commit 2 on c1 through go-git's plumbing, and updates the index.
func commitMemoryGoGit(g *goGit, c1 plumbing.Hash, plan Plan, content map[string][]byte) (plumbing.Hash, error) {
	ix, err := g.index()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	outputs := memoryOutputs(content)
	drop := map[string]bool{}
	var edits []treeEdit
	for _, d := range plan.Delete {
		drop[d] = true
		edits = append(edits, treeEdit{Path: d})
	}
	for _, p := range outputs {
		drop[p] = true
	}
	ix.drop(drop)
	for _, p := range outputs {
		h, err := storeBlob(g.r, content[p])
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("storing %s: %w", p, err)
		}
		fi, _ := os.Lstat(filepath.Join(g.o.Root, filepath.FromSlash(p)))
		ix.entries = append(ix.entries, newRawEntry(p, h, fi))
		edits = append(edits, treeEdit{Path: p, Hash: h, Mode: filemode.Regular})
	}
	if err := ix.write(); err != nil {
		return plumbing.ZeroHash, err
	}
	return g.commit(c1, edits, memoryMessage(plan))
}

// treeFiles reads the files of commit h under memory-bank/ (and under more folders, the ones a
// bank brought from elsewhere left): their paths, and, when content is true, the bytes of the
// Markdown ones. Those are read from the work tree when the file there
// hashes to the commit's blob (a thousand small files read and hashed cost a fraction of loading
// them from a pack), else from the object database, so the result is the commit's either way.
func treeFiles(r *gitRepo, root string, h plumbing.Hash, content bool, more ...string) (names map[string]bool, md map[string][]byte, err error) {
	c, err := r.CommitObject(h)
	if err != nil {
		return nil, nil, fmt.Errorf("reading commit %s: %w", h, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("reading commit %s: %w", h, err)
	}
	names, md = map[string]bool{}, map[string][]byte{}
	for _, dir := range append([]string{bank.Dir}, more...) {
		if err := dirFiles(r, root, tree, dir, content, names, md); err != nil {
			return nil, nil, fmt.Errorf("reading commit %s: %w", h, err)
		}
	}
	return names, md, nil
}

// dirFiles adds the files of tree under dir to names (and the Markdown ones' bytes to md).
func dirFiles(r *gitRepo, root string, tree *object.Tree, dir string, content bool, names map[string]bool, md map[string][]byte) error {
	sub, err := tree.Tree(dir)
	if err != nil {
		return nil // no such folder in that commit
	}
	w := object.NewTreeWalker(sub, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if e.Mode == filemode.Dir {
			continue
		}
		p := dir + "/" + name
		names[p] = true
		if !content || !markdownFile(p) || (e.Mode != filemode.Regular && e.Mode != filemode.Executable) {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p))); err == nil && plumbing.ComputeHash(plumbing.BlobObject, b) == e.Hash {
			md[p] = b
			continue
		}
		blob, err := object.GetBlob(r.Storer, e.Hash)
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		rd, err := blob.Reader()
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		b, err := io.ReadAll(rd)
		rd.Close()
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		md[p] = b
	}
}

// linkChanges computes commit 3 from the commits before it (never from the disk, so a resumed
// run makes the same change): the bank's Markdown as commit 2 left it, links resolved against
// the files at the start.
func linkChanges(g *goGit, j *journal, res *MigrateResult) (map[string][]byte, plumbing.Hash, error) {
	c2 := plumbing.NewHash(j.Commit2)
	if len(j.Plan.Moves) == 0 && len(j.Plan.Delete) == 0 {
		return nil, c2, nil
	}
	var from []string
	if j.Plan.From != "" {
		from = []string{j.Plan.From}
	}
	before, _, err := treeFiles(g.r, g.o.Root, plumbing.NewHash(j.Start), false, from...)
	if err != nil {
		return nil, c2, err
	}
	_, after, err := treeFiles(g.r, g.o.Root, c2, true)
	if err != nil {
		return nil, c2, err
	}
	changed, rw, un := rewriteAll(g.o.Root, j.Plan, after, before)
	res.Rewritten, res.Unresolved = rw, un
	m := newBankMap(j.Plan, before)
	var files map[string][]byte
	dirty := map[string]bool{}
	if s := g.o.scan; s != nil && s.head == j.Start {
		files, dirty = s.files, s.dirty
	} else if files, err = outsideTree(g.r, g.o.Root, c2, m, dirty); err != nil {
		return nil, c2, fmt.Errorf("reading the files outside memory-bank/: %w", err)
	}
	och, orw, listed := outsideChanges(files, m, resolverFor(g.o.Root, j.Plan, before))
	for p, b := range och {
		if dirty[p] {
			// A file that already holds exactly this rewrite was written by an interrupted
			// run of this migration, not edited by the user: it goes into the commit.
			if disk, err := os.ReadFile(filepath.Join(g.o.Root, filepath.FromSlash(p))); err != nil || !bytes.Equal(disk, b) {
				continue
			}
			delete(dirty, p)
		}
		changed[p] = b
	}
	for _, l := range orw {
		if dirty[l.Path] { // the user's uncommitted edits there are theirs: list, never overwrite
			listed = append(listed, Mention{Path: l.Path, Line: l.Line, Text: l.Target, Now: l.New, Why: "the file has uncommitted changes: not rewritten, change it by hand"})
			continue
		}
		res.Rewritten = append(res.Rewritten, l)
	}
	res.Mentions = append(bankMentions(after, changed, m), listed...)
	return changed, c2, nil
}

// commitLinks is commit 3: the bank's relative links pointed at the files' new places. ok is
// false when no link needed it (then there is no commit).
func commitLinks(g *goGit, j *journal, res *MigrateResult) (h plumbing.Hash, ok bool, err error) {
	o, r := g.o, g.r
	changed, c2, err := linkChanges(g, j, res)
	if err != nil || len(changed) == 0 {
		return plumbing.ZeroHash, false, err
	}
	if !o.GitCLI {
		g.prepare()
	}
	names := make([]string, 0, len(changed))
	for p := range changed {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if err := o.Write(filepath.Join(o.Root, filepath.FromSlash(p)), changed[p], 0o644); err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("rewriting the links of %s (run mbguard migrate --apply again to resume): %w", p, err)
		}
	}
	if o.FailAfter == "links" {
		return plumbing.ZeroHash, false, ErrInjected
	}
	if o.GitCLI {
		if _, err := gitOut(o.Root, append([]string{"add", "--"}, names...)...); err != nil {
			return plumbing.ZeroHash, false, err
		}
		if _, err := gitOut(o.Root, "commit", "-q", "-m", msgLinks); err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("committing the rewritten links (run mbguard migrate --apply again to resume): %w", err)
		}
		h, err := headAfter(r)
		return h, err == nil, err
	}
	h, err = commitLinksGoGit(g, c2, names, changed)
	return h, err == nil, err
}

// commitLinksGoGit makes the links commit on c2 through go-git's plumbing, and updates the
// index.
func commitLinksGoGit(g *goGit, c2 plumbing.Hash, names []string, changed map[string][]byte) (plumbing.Hash, error) {
	ix, err := g.index()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	byName := ix.byName()
	var edits []treeEdit
	for _, p := range names {
		bh, err := storeBlob(g.r, changed[p])
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("storing %s: %w", p, err)
		}
		fi, _ := os.Lstat(filepath.Join(g.o.Root, filepath.FromSlash(p)))
		mode := filemode.Regular
		if e := byName[p]; e != nil {
			mode = e.mode()
			copy(e.fixed[ixHashOff:], bh[:])
			if fi != nil {
				e.setStat(fi)
			}
		} else {
			ix.entries = append(ix.entries, newRawEntry(p, bh, fi))
			ix.sort()
		}
		edits = append(edits, treeEdit{Path: p, Hash: bh, Mode: mode})
	}
	if err := ix.write(); err != nil {
		return plumbing.ZeroHash, err
	}
	return g.commit(c2, edits, msgLinks)
}

// storeBlob writes b to the object database.
func storeBlob(r *gitRepo, b []byte) (plumbing.Hash, error) {
	obj := r.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(b)))
	wr, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	_, err = wr.Write(b)
	if cerr := wr.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return r.Storer.SetEncodedObject(obj)
}

// rollback restores memory-bank/ and the branch to the commit the journal started from, when
// every commit since is one of ours.
func rollback(o MigrateOptions) (MigrateResult, error) {
	var res MigrateResult
	j, err := readJournal(o.StateDir)
	if err != nil {
		return res, err
	}
	lockErr := checkIndexLock(o.GitDir, time.Now())
	if j == nil {
		if lockErr != nil {
			// a migrate killed before its journal was written can leave git's lock behind
			return res, refuse("no migration is recorded in %s, so there is nothing to roll back; but %v", JournalPath(o.StateDir), strings.TrimPrefix(lockErr.Error(), ErrRefused.Error()+": "))
		}
		return res, refuse("no migration is recorded in %s: nothing to roll back", JournalPath(o.StateDir))
	}
	if lockErr != nil {
		return res, lockErr
	}
	if _, err := exec.LookPath("git"); err != nil {
		return res, errors.New("--rollback needs the git CLI: install git, or run git reset to " + j.Start)
	}
	subjects, err := gitOut(o.Root, "log", "--format=%s", j.Start+"..HEAD")
	if err != nil {
		return res, refuse("the starting commit %s is not behind HEAD (%v): roll back by hand", j.Start[:12], err)
	}
	for _, s := range strings.Split(subjects, "\n") {
		if s != "" && s != strings.SplitN(msgMoves, "\n", 2)[0] && s != strings.SplitN(msgMemory, "\n", 2)[0] && s != strings.SplitN(msgLinks, "\n", 2)[0] && !contains(oldSubjects, s) {
			return res, refuse("HEAD has commits since the migration that mbguard did not make (%q): roll back by hand with git revert", s)
		}
	}
	// The links commit also edits files outside the bank (README links, agent instructions):
	// those are restored with it.
	var outside []string
	if changed, err := gitOut(o.Root, "diff", "--name-only", "-z", "--no-renames", j.Start, "HEAD"); err == nil {
		for _, f := range strings.Split(changed, "\x00") {
			if f != "" && f != bank.Dir && !strings.HasPrefix(f, bank.Dir+"/") {
				outside = append(outside, f)
			}
		}
	}
	steps := [][]string{
		{"reset", "-q", "--soft", j.Start},
		{"restore", "--source=" + j.Start, "--staged", "--worktree", "--", bank.Dir},
		{"clean", "-fdq", "--", bank.Dir},
	}
	if len(outside) > 0 {
		steps = append(steps, append([]string{"restore", "--source=" + j.Start, "--staged", "--worktree", "--"}, outside...))
	}
	for _, args := range steps {
		if _, err := gitOut(o.Root, args...); err != nil {
			return res, fmt.Errorf("rolling back to %s: %w", j.Start[:12], err)
		}
	}
	if err := os.Remove(JournalPath(o.StateDir)); err != nil {
		return res, fmt.Errorf("removing the migration journal: %w", err)
	}
	res.RolledBack = j.Start
	return res, nil
}

// dirtyGoGit is the clean-tree check without the git CLI: the index against HEAD and the disk
// against the index, under memory-bank/ only (never Worktree.Status, which walks everything).
func dirtyGoGit(o MigrateOptions) error {
	r, err := open(o.Root)
	if err != nil {
		return err
	}
	idx, err := r.Storer.Index()
	if err != nil {
		return fmt.Errorf("reading the git index: %w", err)
	}
	inIndex := map[string]*index.Entry{}
	for _, e := range idx.Entries {
		if strings.HasPrefix(e.Name, bank.Dir+"/") {
			inIndex[e.Name] = e
		}
	}
	head, err := r.Head()
	if err != nil {
		return refuse("the repository has no commit yet: commit memory-bank/ first")
	}
	c, err := r.CommitObject(head.Hash())
	if err != nil {
		return fmt.Errorf("reading HEAD: %w", err)
	}
	tree, _ := c.Tree()
	seen := 0
	err = tree.Files().ForEach(func(f *object.File) error {
		if !strings.HasPrefix(f.Name, bank.Dir+"/") {
			return nil
		}
		seen++
		if e := inIndex[f.Name]; e == nil || e.Hash != f.Hash {
			return refuse("uncommitted changes under memory-bank/ (%s): commit them first", f.Name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if seen != len(inIndex) {
		return refuse("uncommitted changes under memory-bank/ (staged files): commit them first")
	}
	return filepath.WalkDir(filepath.Join(o.Root, bank.Dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(o.Root, p)
		rel = filepath.ToSlash(rel)
		e := inIndex[rel]
		if e == nil {
			return refuse("untracked file under memory-bank/ (%s): commit or remove it first", rel)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() == int64(e.Size) && fi.ModTime().Equal(e.ModifiedAt) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			t, _ := os.Readlink(p)
			b = []byte(t)
		}
		if plumbing.ComputeHash(plumbing.BlobObject, b) != e.Hash {
			return refuse("uncommitted changes under memory-bank/ (%s): commit them first", rel)
		}
		return nil
	})
}
