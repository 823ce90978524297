package outcome

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// stateWritable reports whether mbguard can write its state (the manifest's folder): a pre
// check that could not, recorded nothing.
func (g *Guard) stateWritable() error {
	f, err := os.CreateTemp(g.r.StateDir(), ".probe*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// stateErr says, for an error that comes from the state folder being unwritable (no
// permission, a read-only mount, an immutable folder), what the person does about it.
func (g *Guard) stateErr(err error) error {
	if err == nil || !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS) {
		return err
	}
	dir := g.r.StateDir()
	return fmt.Errorf("mbguard cannot write its state in %s (%w); make it writable (`chmod u+w %s`, `chattr -i %s`, or mount it read-write)", dir, err, dir, dir)
}

// reportOnly lists what changed since the known-good state as noticed, without undoing or
// accepting anything: mbguard cannot tell whose the changes are.
func (g *Guard) reportOnly(m *manifest, rep *Report, cause error) (Report, error) {
	disk, cands, err := g.look(m)
	if err != nil {
		return *rep, err
	}
	changes, _, err := g.diff(m, disk, cands)
	if err != nil {
		return *rep, err
	}
	for _, c := range changes {
		rep.Noticed = append(rep.Noticed, Problem{Path: c.path, Rule: RuleNotAllowed,
			Text: c.what() + " since the last check; mbguard could not record this call's start, so it cannot tell whether a person or the agent did it: kept"})
	}
	return *rep, fmt.Errorf("mbguard cannot write its state (%v), so memory-bank/ changes were kept and reported, not undone; make %s writable", cause, g.r.StateDir())
}
