package outcome

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// settle judges every change against the calls that own it: owners' allowed paths are
// accepted when the result passes the rules, others' allowed paths are left for their own
// post check, and everything else is undone.
func (g *Guard) settle(m *manifest, owners, others []Call, rep *Report) error {
	g.noteCommits(true) // commits made in the owners' windows are the agent's (provenance.go)
	changes, touched, err := g.changesSinceLazy(m, true)
	if err != nil || len(changes) == 0 {
		return err
	}
	if g.late() {
		return errDeadline // nothing changed yet: the background check starts over
	}
	gw, fromAgent := g.gitDuring(owners, changes)
	own := ownershipOf(owners, others, g.o.Fold != nil && g.o.Fold())
	found, err := g.inspect(changes, own, gw, fromAgent, rep)
	if err != nil {
		return err
	}
	v, why := verdicts(changes, found, own, gw != nil)
	return g.restore(m, changes, v, why, touched, rep)
}

// gitDuring is git's work during the owners' calls (nil: none), and which changed paths hold
// content the agent brought in through it (gitwork.go).
func (g *Guard) gitDuring(owners []Call, changes []*change) (*gitWork, map[string]string) {
	var gw *gitWork
	for _, c := range owners {
		if gw = g.gitWorked(c.Git); gw != nil {
			break
		}
	}
	if gw == nil {
		return nil, nil
	}
	for _, c := range changes { // git's work is told by the bytes
		g.readNew(c)
	}
	return gw, g.agentContent(gw, changes)
}

// inspect reads what verdicts needs of every changed file: whose it is, and what the rules
// (or git's work) say of its new state. A created file nobody may write is not read when the
// undo is large: which other rules it breaks changes nothing.
func (g *Guard) inspect(changes []*change, own ownership, gw *gitWork, fromAgent map[string]string, rep *Report) ([]finding, error) {
	found := make([]finding, len(changes))
	for i, c := range changes {
		if i%256 == 255 && g.late() {
			return nil, errDeadline // only read so far
		}
		if c.isDir() {
			continue
		}
		f := &found[i]
		switch f.claim = own.claim(c.path); {
		case f.claim == claimMine:
			g.readNew(c)
			if err := g.readOld(c); err != nil {
				return nil, err
			}
			probs, err := g.o.Rules.judge(c.path, c.b, c.d, c.old, c.new)
			if err != nil {
				return nil, err
			}
			f.probs = probs
		case f.claim == claimTheirs:
		case gw != nil && g.byGit(gw, c, fromAgent, rep, &f.probs):
			f.claim = claimGit
		case c.unread && len(changes) > wholeTreeAbove:
			// a large undo: reading 20,000 files costs more than the undo itself
		default:
			g.readNew(c)
			_ = g.readOld(c)
			f.probs, _ = g.o.Rules.judge(c.path, c.b, c.d, c.old, c.new)
		}
	}
	return found, nil
}

// restore carries the verdicts out: kept changes become known-good, undone ones are put back
// (undo), and the manifest is saved with what was done, also when the undo stops half-way.
func (g *Guard) restore(m *manifest, changes []*change, v []verdict, why [][]Problem, touched bool, rep *Report) error {
	undoList, undoWhy, blobs, err := g.acceptKept(m, changes, v, why, rep)
	if err != nil {
		return err
	}
	if len(undoList) > 0 {
		if err := g.undo(m, undoList, undoWhy, rep); errors.Is(err, errDeadline) {
			// what was put back, and what was accepted, is saved; the rest is judged again
			if err := g.saveManifest(m, blobs); err != nil {
				return err
			}
			return errDeadline
		} else if err != nil {
			// what was accepted stays accepted; the rest is tried again by the next check
			_ = g.saveManifest(m, blobs)
			return err
		}
	}
	if blobs || touched || len(undoList) > 0 {
		return g.saveManifest(m, blobs)
	}
	return nil
}

// acceptKept accepts the kept changes into m and lists the ones to undo, with why; blobs says
// m took new bytes.
func (g *Guard) acceptKept(m *manifest, changes []*change, v []verdict, why [][]Problem, rep *Report) (undoList []*change, undoWhy [][]Problem, blobs bool, err error) {
	for i, c := range changes {
		if i%256 == 255 && g.late() {
			return nil, nil, false, errDeadline // blobs written, nothing on disk changed: judged again
		}
		if v[i] == verdictUndo && c.b != nil && c.b.Kind == KindFile && c.b.Blob == "" {
			// the known-good bytes were never kept (too large, or unreadable): undoing would
			// lose them, so the change stays and is reported
			v[i] = verdictKeep
			rep.Noticed = append(rep.Noticed, Problem{Path: c.path, Rule: RuleNotAllowed,
				Text: "changed, but mbguard keeps no known-good copy of a file this large or unreadable, so it was left as it is"})
		}
		switch v[i] {
		case verdictKeep:
			if err := g.accept(m, c); err != nil {
				return nil, nil, false, err
			}
			rep.Accepted = append(rep.Accepted, c.path)
			blobs = true
		case verdictUndo:
			undoList = append(undoList, c)
			undoWhy = append(undoWhy, why[i])
		}
	}
	return undoList, undoWhy, blobs, nil
}

// undo puts the listed entries back to their known-good state, after moving what the disk
// holds there into a new quarantine entry. Every known-good blob is read before anything
// is moved: a restore that cannot finish must not start.
func (g *Guard) undo(m *manifest, list []*change, why [][]Problem, rep *Report) error {
	for i, c := range list {
		if i%256 == 255 && g.late() {
			return errDeadline // nothing moved yet
		}
		if c.b != nil && (c.b.Kind == KindFile || c.b.Kind == KindSymlink) {
			if err := g.readOld(c); err != nil {
				return fmt.Errorf("%w; %s was left as the agent made it", err, c.path)
			}
		}
	}
	if err := g.reopenDirs(list); err != nil {
		return err
	}
	q, err := g.newQuarantine(rep.Call)
	if err != nil {
		return err
	}
	mv := g.moveTrees(list, q)
	// 1. move the agent's bytes away, deepest first. Out of time, the moves stop at cut:
	// list[cut:] is moved (and put back below), the rest is left for the next check.
	cut, err := g.moveAway(list, why, q, mv)
	if err != nil {
		return err
	}
	if err := g.putBack(m, list[cut:], cut > 0); err != nil {
		return err
	}
	for i, c := range list[cut:] {
		rep.Undone = append(rep.Undone, Undone{Path: c.path, Change: c.what(), Why: why[cut+i]})
	}
	if err := g.keepQuarantine(q, rep); err != nil {
		return err
	}
	if cut > 0 {
		return errDeadline
	}
	return nil
}

func (g *Guard) abs(p string) string { return filepath.Join(g.r.Root, filepath.FromSlash(p)) }

// reopenDirs gives directories whose mode changed their mode back first, so that what lies
// in them can move.
func (g *Guard) reopenDirs(list []*change) error {
	for _, c := range list {
		if c.b != nil && c.d != nil && c.b.Kind == KindDir && c.d.Kind == KindDir {
			if err := os.Chmod(g.abs(c.path), c.b.Mode|0o700); err != nil {
				return fmt.Errorf("restoring %s: %w", c.path, err)
			}
			// the walk could not read a folder without r/x: what it holds is looked at again
			g.reopened = g.reopened || c.d.Mode&0o500 != 0o500
		}
	}
	return nil
}

// movedTrees are the new folders a large undo moved into the quarantine whole.
type movedTrees struct {
	newDirs map[string]bool   // new folders of a large undo
	moved   map[string]string // new top folder -> its file in the quarantine
}

// moveTrees: for a large undo (over wholeTreeAbove paths, or a path longer than an absolute
// path may be), a new folder goes to the quarantine whole, in one rename: a tree of 20,000
// files or 1,500 levels moves as fast as one file; what lies in it is listed, its bytes under
// the folder's entry. A small undo keeps one quarantine file per path.
func (g *Guard) moveTrees(list []*change, q *quarantine) movedTrees {
	mv := movedTrees{newDirs: map[string]bool{}, moved: map[string]string{}}
	whole := len(list) > wholeTreeAbove
	for _, c := range list {
		whole = whole || len(g.r.Root)+len(c.path) > 2048
	}
	for _, c := range list {
		if whole && c.b == nil && c.d != nil && c.d.Kind == KindDir {
			mv.newDirs[c.path] = true
		}
	}
	for _, c := range list {
		if !mv.newDirs[c.path] || mv.newDirs[parentOf(c.path)] {
			continue
		}
		name := "files/" + strconv.Itoa(len(q.meta.Entries)+len(mv.moved)) + "d"
		if os.Rename(g.abs(c.path), filepath.Join(q.dir, filepath.FromSlash(name))) == nil {
			mv.moved[c.path] = name
		}
	}
	return mv
}

// in returns the moved top folder p lies in.
func (mv movedTrees) in(p string) (string, bool) {
	if !mv.newDirs[parentOf(p)] {
		return "", false
	}
	for d := range mv.moved { // few: the tops of new trees
		if strings.HasPrefix(p, d+"/") {
			return d, true
		}
	}
	return "", false
}

// moveAway moves the agent's bytes into the quarantine, deepest first, and returns where it
// stopped when out of time (0: all moved).
func (g *Guard) moveAway(list []*change, why [][]Problem, q *quarantine, mv movedTrees) (int, error) {
	cut := 0
	for i := len(list) - 1; i >= 0; i-- {
		if (len(list)-1-i)%64 == 63 && g.late() {
			cut = i + 1
			break
		}
		if c := list[i]; c.d != nil {
			if err := g.moveOne(c, why[i], q, mv); err != nil {
				return 0, err
			}
		}
	}
	for i := 0; i < cut; i++ { // a folder moved whole keeps its quarantine entry
		if name, ok := mv.moved[list[i].path]; ok {
			q.add(list[i], name, "", why[i])
		}
	}
	return cut, nil
}

// moveOne moves one change's disk state into the quarantine (or records it there).
func (g *Guard) moveOne(c *change, why []Problem, q *quarantine, mv movedTrees) error {
	if name, ok := mv.moved[c.path]; ok {
		q.add(c, name, "", why)
		return nil
	}
	if top, ok := mv.in(c.path); ok && c.b == nil {
		q.add(c, "", "", append(slices.Clip(why), Problem{Path: c.path, Rule: RuleNotAllowed, Text: "kept inside " + top + "'s quarantine entry"}))
		return nil
	}
	sameBytes := c.b != nil && c.b.Kind == c.d.Kind && c.b.Blob != "" && c.b.Blob == c.newBlob
	switch {
	case c.d.Kind == KindDir:
		if c.b == nil || c.b.Kind != KindDir {
			q.add(c, g.abs(c.path), "", why)
			if err := os.Remove(g.abs(c.path)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("removing %s: %w", c.path, err)
			}
		}
	case sameBytes:
		// mode or link change only: the bytes are the known-good ones, nothing to keep
		q.add(c, "", "", why)
		if c.d.Nlink > 1 {
			if err := os.Remove(g.abs(c.path)); err != nil {
				return fmt.Errorf("unlinking %s: %w", c.path, err)
			}
		}
	default:
		return q.move(c, g.abs(c.path), why)
	}
	return nil
}

// putBack puts the known-good entries back, shallowest first, and records their new stat in
// m. cut says the moves stopped early: an entry whose folder is not back yet waits for the
// next check, which restores both.
func (g *Guard) putBack(m *manifest, list []*change, cut bool) error {
	for _, c := range list {
		if c.b == nil {
			continue
		}
		if cut && c.d == nil {
			if _, err := os.Lstat(g.abs(parentOf(c.path))); err != nil {
				continue
			}
		}
		p := g.abs(c.path)
		if err := putEntry(p, c); err != nil {
			return fmt.Errorf("restoring %s: %w", c.path, err)
		}
		if fi, err := os.Lstat(p); err == nil {
			e := entryOf(fi)
			e.Blob = c.b.Blob
			m.Entries[c.path] = e
		}
	}
	return nil
}

// putEntry writes c's known-good state at p.
func putEntry(p string, c *change) error {
	switch c.b.Kind {
	case KindDir:
		if err := os.Mkdir(p, c.b.Mode); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		return os.Chmod(p, c.b.Mode)
	case KindFile:
		if _, err := os.Lstat(p); err == nil && c.d != nil {
			// same bytes, mode changed: chmod in place keeps the inode
			return os.Chmod(p, c.b.Mode)
		}
		return writeExact(p, c.old, c.b.Mode)
	case KindSymlink:
		if err := os.Symlink(string(c.old), p); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	return nil
}
