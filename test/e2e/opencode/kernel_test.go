package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// TestOpenCodeKernelLine: with the default kernel.mode (on), the plugin runs the model's bash
// call under the jail. A bank path computed at run time fails with EROFS in the kernel (not undone after the
// fact), also after trying to remount or unmount the bank (as root too), and the model reads
// why; the write tool still writes a .md file in the bank.
func TestOpenCodeKernelLine(t *testing.T) {
	testhost.Tool(t, "bwrap", "apt-get install -y bubblewrap")
	progress := "# Progress\n- retries wired\n"
	model := startFakeModel(t, []step{
		{Tool: "bash", Args: map[string]any{"command": `d=$(printf memory-)bank; mount -o remount,bind,rw "$d"; umount "$d"; echo x > "$d/late.json"; echo status=$?`, "description": "write a cache"}},
		{Tool: "write", Args: map[string]any{"filePath": "memory-bank/details/progress.md", "content": progress}},
	})
	w := newWorld(t, model)
	out := w.run(t, nil, "note", "the", "progress")

	reqs := model.agentRequests()
	if len(reqs) < 3 {
		t.Fatalf("the model got %d agent requests, want 3\n%s", len(reqs), out)
	}
	res := reqs[2].toolResults()
	if len(res) < 2 || !strings.Contains(res[0], "Read-only file system") || !strings.Contains(res[0], "status=1") {
		t.Errorf("the bash result the model read lacks the kernel's refusal: %q", res)
	}
	if strings.Contains(strings.Join(res, "\n"), "[mbguard] undid") {
		t.Errorf("the write reached the bank and was undone after; want it refused by the kernel: %q", res)
	}
	if _, err := os.Stat(filepath.Join(w.project, "memory-bank/late.json")); err == nil {
		t.Error("memory-bank/late.json was written by the jailed shell")
	}
	if b, _ := os.ReadFile(filepath.Join(w.project, "memory-bank/details/progress.md")); string(b) != progress {
		t.Errorf("progress.md = %q: the write tool could not write the bank", b)
	}
}

// TestOpenCodeKernelLineStopsLateJobs: with the default install, jobs a bash call leaves
// behind — a plain `&`, setsid, a double fork — try to write the bank a second after their
// call returned and fail in the kernel, while `git checkout` of a branch whose bank differs
// runs outside the jail and leaves the bank as git does.
func TestOpenCodeKernelLineStopsLateJobs(t *testing.T) {
	testhost.Tool(t, "bwrap", "apt-get install -y bubblewrap")
	// the path is computed at run time, as a script would: the gate before the call cannot see it
	late := func(name string) string {
		return `sleep 1; d=$(printf memory-)bank; echo x > "$d/` + name + `.json"; echo $? > done-` + name
	}
	model := startFakeModel(t, []step{
		{Tool: "bash", Args: map[string]any{"command": "(" + late("a") + ") >/dev/null 2>&1 &", "description": "start a job"}},
		{Tool: "bash", Args: map[string]any{"command": "setsid sh -c '" + late("b") + "' >/dev/null 2>&1 </dev/null &", "description": "start a daemon"}},
		{Tool: "bash", Args: map[string]any{"command": "sh -c '(" + late("c") + ") &' >/dev/null 2>&1", "description": "fork twice"}},
		{Tool: "bash", Args: map[string]any{"command": "git checkout -q other", "description": "switch branch"}},
	})
	w := newWorld(t, model)
	main := strings.TrimSpace(testgit.Git(t, w.project, "rev-parse", "--abbrev-ref", "HEAD"))
	other := "# Patterns\nUse the other pattern.\n"
	testgit.Git(t, w.project, "switch", "-q", "-c", "other")
	testgit.Write(t, w.project, "memory-bank/details/patterns.md", other)
	// only the bank file: opencode.json and the plugin stay untracked, in the work tree on both branches
	testgit.Git(t, w.project, "commit", "-q", "-m", "other: patterns", "--", "memory-bank/details/patterns.md")
	testgit.Git(t, w.project, "switch", "-q", main)
	out := w.run(t, nil, "start", "the", "jobs")

	for _, name := range []string{"a", "b", "c"} {
		done := filepath.Join(w.project, "done-"+name)
		for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if b, err := os.ReadFile(done); err == nil && len(b) > 0 {
				if strings.TrimSpace(string(b)) == "0" {
					t.Errorf("job %s wrote the bank (status 0)", name)
				}
				break
			}
			if time.Now().After(end) {
				t.Fatalf("job %s never finished\n%s", name, out)
			}
		}
		if _, err := os.Stat(filepath.Join(w.project, "memory-bank", name+".json")); err == nil {
			t.Errorf("memory-bank/%s.json was written by a job the call left behind", name)
		}
	}
	if got := strings.TrimSpace(testgit.Git(t, w.project, "rev-parse", "--abbrev-ref", "HEAD")); got != "other" {
		t.Errorf("HEAD is %q after git checkout other\n%s", got, out)
	}
	if b, _ := os.ReadFile(filepath.Join(w.project, "memory-bank/details/patterns.md")); string(b) != other {
		t.Errorf("patterns.md = %q, want the other branch's: git checkout could not update the bank", b)
	}
	if st := testgit.Git(t, w.project, "status", "--porcelain", "--", "memory-bank"); st != "" {
		t.Errorf("the bank differs from the branch after git checkout:\n%s", st)
	}
}
