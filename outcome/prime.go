package outcome

import (
	"errors"

	"github.com/mbguard/mbguard/bank"
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
	return g.build(disk)
}

// build makes disk the known-good state of a repository that has none. The rules are not
// applied: what the bank broke before mbguard guarded it is `mbguard check`'s to report, and
// nothing is undone on a first look either way.
func (g *Guard) build(disk map[string]Entry) error {
	m := &manifest{Entries: map[string]Entry{}}
	changes, _, err := g.diff(m, disk, nil)
	if err != nil {
		return err
	}
	g.changed = g.changed[:0]
	for _, c := range changes {
		if err := g.accept(m, c); err != nil {
			return err
		}
	}
	return g.saveManifest(m, true)
}
