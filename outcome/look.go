package outcome

import (
	"errors"
	"fmt"

	"os"
	"path/filepath"
	"slices"

	"github.com/mbguard/mbguard/bank"
)

// fullEvery makes every fullEvery-th tracked check walk the whole bank anyway: a backstop for
// what inotify cannot see (see tracker).
const fullEvery = 64

// Track makes g use a private inotify instance on memory-bank/ (Linux): its checks then lstat
// only the paths that changed since the last check instead of walking the bank. For resident
// processes (serve, watch); a per-call hook gains nothing from it. Without inotify (another
// system, the watch limit reached) every check walks, as without Track. Close ends it.
func (g *Guard) Track() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tr != nil {
		return nil
	}
	t, err := newTracker(g.r.Root, bank.Dir)
	if err != nil {
		return err
	}
	g.tr, g.trusted = t, nil
	g.pending, g.trees = map[string]bool{}, map[string]bool{}
	return nil
}

// Close ends tracking.
func (g *Guard) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.untrack()
}

func (g *Guard) untrack() {
	if g.tr != nil {
		g.tr.close()
		g.tr, g.trusted = nil, nil
	}
}

// Tracking reports whether checks use the tracker (tests, bench).
func (g *Guard) Tracking() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tr != nil
}

// look returns the disk entries to compare with m, and the manifest paths they cover: nil
// when it walked the whole bank. With a tracker whose view is relative to m (the manifest
// it last saw, not one reloaded since), it lstats only the paths whose events arrived since
// the last check (and every file with more than one link). Called with g.mu held.
func (g *Guard) look(m *manifest) (map[string]Entry, []string, error) {
	g.changed = g.changed[:0]
	if g.tr == nil {
		disk, err := walk(g.r.Root, bank.Dir)
		return disk, nil, err
	}
	full := g.tr.drain(g.pending, g.trees)
	g.checks++
	// until keepPending confirms this check ran to its end, the next one walks everything
	trusted := g.trusted == m
	g.trusted, g.looked = nil, m
	if full || !trusted || g.checks%fullEvery == 0 {
		g.fulls++
		disk := map[string]Entry{}
		err := walkAt(g.r.Root, bank.Dir, disk, g.arm)
		if err != nil {
			return nil, nil, err
		}
		if g.tr != nil {
			g.tr.prune(disk)
		}
		clear(g.pending)
		clear(g.trees)
		return disk, nil, nil
	}
	disk, cands, err := g.lookTracked(m)
	if err != nil {
		return nil, nil, err
	}
	clear(g.pending)
	clear(g.trees)
	slices.Sort(cands)
	return disk, cands, nil
}

// candSet lists paths once each, in the order first added.
type candSet struct {
	seen map[string]bool
	list []string
}

func (c *candSet) add(p string) {
	if !c.seen[p] {
		c.seen[p] = true
		c.list = append(c.list, p)
	}
}

// lookTracked looks only where the tracker's events point: the trees it lost sight of are
// walked, the pending paths (and every file with more than one link) lstatted.
func (g *Guard) lookTracked(m *manifest) (map[string]Entry, []string, error) {
	disk := map[string]Entry{}
	cands := candSet{seen: map[string]bool{}, list: []string{}} // not nil: nil means the whole bank
	for t := range g.trees {
		if err := walkAt(g.r.Root, t, disk, g.arm); err != nil {
			return nil, nil, err
		}
		for p := range m.Entries {
			if under(p, t) {
				cands.add(p)
			}
		}
		cands.add(t)
	}
	for p := range g.pending {
		cands.add(p)
	}
	for p, e := range m.Entries {
		if e.Nlink > 1 {
			cands.add(p) // a hard link's other name may lie outside the bank
		}
	}
	if err := g.lstatCands(m, cands.list, disk); err != nil {
		return nil, nil, err
	}
	for p := range disk {
		cands.add(p)
	}
	return disk, cands.list, nil
}

// lstatCands puts the disk entry of every candidate under the bank into disk (a folder where
// none was, with everything below it: all of it is new).
func (g *Guard) lstatCands(m *manifest, cands []string, disk map[string]Entry) error {
	for _, p := range cands {
		if _, ok := disk[p]; ok || !under(p, bank.Dir) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(g.r.Root, filepath.FromSlash(p)))
		if err != nil {
			continue // gone
		}
		e := entryOf(fi)
		if b, ok := m.Entries[p]; e.Kind == KindDir && (!ok || b.Kind != KindDir) {
			if err := walkAt(g.r.Root, p, disk, g.arm); err != nil {
				return err
			}
			continue
		}
		disk[p] = e
		g.arm(p, e.Kind == KindDir)
	}
	return nil
}

// arm watches rel; a watch that cannot be added (the inotify limit) ends tracking, so the
// next check walks.
func (g *Guard) arm(rel string, dir bool) {
	if g.tr == nil {
		return
	}
	if err := g.tr.watch(rel, dir); err != nil {
		g.untrack()
	}
}

// keepPending puts back, after a check, the paths it saw changed that still differ from
// the manifest (left for another call's post check, or changed again meanwhile), so the next
// check looks at them again. Called with g.mu held.
func (g *Guard) keepPending(m *manifest) {
	looked := g.looked
	g.looked = nil
	if g.tr == nil || looked == nil || looked != m {
		return
	}
	g.trusted = m
	for _, p := range g.changed {
		fi, err := os.Lstat(filepath.Join(g.r.Root, filepath.FromSlash(p)))
		b, ok := m.Entries[p]
		switch {
		case err != nil && !ok:
		case err == nil && ok && b.sameStat(entryOf(fi)):
		default:
			g.pending[p] = true
		}
	}
}

// walkAt lstats top (a slash path relative to root) and everything below it into out,
// never following a symlink. arm, when set, is called for every folder before it is read and
// every regular file before it is lstatted, so no change made after the walk saw a path goes
// unseen.
func walkAt(root, top string, out map[string]Entry, arm func(rel string, dir bool)) error {
	abs := filepath.Join(root, filepath.FromSlash(top))
	fi, err := os.Lstat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", abs, err)
	}
	e := entryOf(fi)
	out[top] = e
	if e.Kind != KindDir {
		if arm != nil && e.Kind == KindFile {
			arm(top, false)
		}
		return nil
	}
	// Each folder is opened relative to its parent's descriptor (openat), so depth is no
	// limit. A folder below the top that cannot be opened or read (chmod 000) is not an error
	// that would switch the check off: its own entry records the mode, and what it held shows
	// as gone — a change, judged like any other.
	w := treeWalk{out: out, arm: arm}
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return nil // unreadable: a change of its mode, see above
		}
		return fmt.Errorf("reading %s: %w", abs, err)
	}
	defer f.Close()
	return w.folder(f, abs, top)
}

// treeWalk is one walkAt: where the entries go, and what is armed before each is read.
type treeWalk struct {
	out map[string]Entry
	arm func(rel string, dir bool)
}

// folder reads the open folder f (dir on disk, rel in the bank) and everything below it.
func (w treeWalk) folder(f *os.File, dir, rel string) error {
	if w.arm != nil {
		w.arm(rel, true)
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil
	}
	for _, d := range ents {
		if err := w.entry(f, dir, rel, d); err != nil {
			return err
		}
	}
	return nil
}

// entry lstats one entry of folder f, and walks it when it is a folder.
func (w treeWalk) entry(f *os.File, dir, rel string, d os.DirEntry) error {
	n := d.Name()
	p := dir + string(filepath.Separator) + n
	r := rel + "/" + n
	if w.arm != nil && d.Type() == 0 {
		w.arm(r, false)
	}
	e, err := lstatIn(f, dir, n)
	if errors.Is(err, os.ErrNotExist) {
		return nil // gone while walking
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	w.out[r] = e
	if e.Kind == KindDir {
		sub, err := openDirIn(f, dir, n)
		if err != nil {
			return nil // gone or unreadable: see walkAt
		}
		defer sub.Close()
		return w.folder(sub, p, r)
	}
	if w.arm != nil && e.Kind == KindFile && d.Type() != 0 {
		w.arm(r, false) // d_type did not say regular; lstat did
	}
	return nil
}
