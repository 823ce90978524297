//go:build linux

package outcome

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A commit a job the agent left running makes after its call returned is the agent's: the
// next call's merge of it is judged.
func TestJobsCommitIsTheAgents(t *testing.T) {
	root, g := newBank(t)
	dir := t.TempDir()
	goFile, made := filepath.Join(dir, "go"), filepath.Join(dir, "made")
	startJob(t, g, "job", `(while [ ! -f `+goFile+` ]; do sleep 0.05; done; (`+addEvil+`); : > `+made+`; sleep 30) >/dev/null 2>&1 &`)
	want := snapshot(t, root)
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, made)
	feat := short(revParse(t, root, "feat"))
	rep := call(t, g, "bring", "git merge -q --ff-only feat")
	sameTree(t, want, snapshot(t, root))
	if !rep.Blocked() || !strings.Contains(rep.Message("claude"), feat) {
		t.Errorf("the job's commit was not judged as the agent's: %s", rep.Message("claude"))
	}
}
