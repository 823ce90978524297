package outcome

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/gitobj"
	"github.com/mbguard/mbguard/internal/repo"
)

// Prime builds r's known-good store (every bank file's bytes as a blob, the manifest, its
// outside copy and the ref) when r has none, so that no hook call pays for it: on a
// 10,000-file bank that is seconds, longer than some hosts wait for a hook. `init`,
// `install`, `migrate --apply` and `watch`/`serve` call it. A repository that already has a
// store, or a bank, is left alone; a store that was lost (ErrStoreLost) is reported, never
// replaced by the disk.
func Prime(r repo.Repo) error {
	return New(r, Options{}).prime()
}

func (g *Guard) prime() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	lk, err := g.lock()
	if err != nil {
		return err
	}
	defer lk.Unlock()
	m, err := g.loadManifest()
	if err != nil || m != nil {
		return err
	}
	if m, err = g.recoverManifest(); m != nil || errors.Is(err, ErrStoreLost) {
		return err // the hook's next check puts it back or reports it
	}
	disk, err := walk(g.r.Root, bank.Dir)
	if err != nil || len(disk) == 0 {
		return err // no memory-bank/ yet: the first check that finds one builds the store
	}
	_, err = g.build(disk, 0)
	return err
}

// A check that finds no store at all builds it only for a bank of up to bigBank entries in
// one go (as before Prime existed: the first check judges and keeps them). A larger bank
// (one that no init, install, migrate, watch or serve primed) is built incrementally: each
// check stores blobs for at most hookBudget, and the call is not checked until the store is
// complete — never one multi-second stall inside a hook, which some hosts cut off.
var (
	hookBudget = time.Second
	bigBank    = 1000
)

// build makes disk the known-good state of a repository that has none. The rules are not
// applied: what the bank broke before mbguard guarded it is `mbguard check`'s to report, and
// nothing is undone on a first look either way. With a budget, build stops once it is spent
// (after storing one new blob at least) and returns nil: the blobs stored so far stay in the
// object store, content-addressed, so the next check only reads and hashes them, and goes on.
func (g *Guard) build(disk map[string]Entry, budget time.Duration) (*manifest, error) {
	if budget == 0 {
		return g.buildAll(disk)
	}
	deadline := time.Now().Add(budget)
	m := &manifest{Entries: map[string]Entry{}}
	stored := false
	for _, p := range sortedKeys(disk) {
		if stored && time.Now().After(deadline) {
			return nil, nil
		}
		d := disk[p]
		c := &change{path: p, d: &d}
		if err := g.readDisk(c); err != nil {
			return nil, err
		}
		if c.newBlob != "" && !stored {
			stored = !g.obj.stored(c.newBlob)
		}
		if err := g.accept(m, c); err != nil {
			return nil, err
		}
	}
	return m, g.saveManifest(m, true)
}

// buildAll is build without a budget (Prime): the files are read and stored by a few
// workers, as storing a blob is mostly waiting on the file system. Blobs git has already
// (packed, after a migration or a clone) are not written again, and the outside copies go
// into one batch file, written before the manifest that names them.
func (g *Guard) buildAll(disk map[string]Entry) (*manifest, error) {
	keys := sortedKeys(disk)
	changes := make([]*change, len(keys))
	errs := make([]error, len(keys))
	packs := gitobj.OpenPacks(filepath.Join(g.obj.commonDir, "objects"), g.obj.sha256)
	defer packs.Close()
	batches := g.obj.outsideBatches()
	var mu sync.Mutex
	outside := map[string][]byte{}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(keys); i = int(next.Add(1) - 1) {
				d := disk[keys[i]]
				c := &change{path: keys[i], d: &d}
				if errs[i] = g.readDisk(c); errs[i] == nil && c.new != nil {
					var z []byte
					if c.newBlob, z, errs[i] = g.obj.storeKnown(c.new, packs, batches); z != nil {
						mu.Lock()
						outside[c.newBlob] = z
						mu.Unlock()
					}
				}
				changes[i] = c
			}
		}()
	}
	wg.Wait()
	m := &manifest{Entries: map[string]Entry{}}
	for i, c := range changes {
		if errs[i] != nil {
			return nil, errs[i]
		}
		e := *c.d
		if (e.Kind == KindFile || e.Kind == KindSymlink) && c.new != nil {
			e.Blob = c.newBlob
		}
		m.Entries[c.path] = e
	}
	if len(outside) > 0 {
		_ = gitobj.WriteBatch(g.obj.outside, g.obj.sha256, outside) // best effort: git's copy counts first
	}
	return m, g.saveManifest(m, true)
}

// stored reports whether blob id is a loose object already in git's store, and loose or in a
// batch in the copy outside the repository: writing it again costs nothing.
func (o *objects) stored(id string) bool {
	if _, err := os.Stat(o.path(id)); err != nil {
		return false
	}
	if o.outside != "" {
		if _, err := os.Stat(gitobj.Path(o.outside, id)); err != nil && !o.outsideBatches().Has(id) {
			return false
		}
	}
	return true
}
