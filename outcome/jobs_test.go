//go:build linux

package outcome

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
)

// startJob runs script as the shell call id and returns the in-flight record of what it left
// running. The processes are killed when the test ends.
func startJob(t *testing.T, g *Guard, id, script string) Call {
	t.Helper()
	c := Call{ID: id, Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	sh(t, g.r.Root, script)
	if rep, err := g.After(Call{ID: id, Session: "s", Tool: "Bash", Check: true, Spawns: true}); err != nil || rep.Blocked() {
		t.Fatalf("post check: %v %+v", err, rep)
	}
	for _, x := range g.loadInflight().Calls {
		if x.ID == id+bgSuffix {
			t.Cleanup(func() {
				for _, pid := range jobProcs(x.Procs) {
					if ownedByTest(pid) {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})
			return x
		}
	}
	t.Fatalf("%q left nothing running that mbguard tracks (in flight: %+v)", script, g.loadInflight().Calls)
	return Call{}
}

// ownedByTest reports whether pid was started by this test binary's shells (testOwner in its
// environment): never kill a process that is not the test's own.
func ownedByTest(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && slices.Contains(strings.Split(string(b), "\x00"), testOwner)
}

// waitFor polls until p exists (a deadline, not a fixed sleep).
func waitFor(t *testing.T, p string) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", p)
}

// A job that writes into the bank after its call returned is followed by ancestry, wherever it
// runs: a plain `&`, `cd /tmp` with setsid, a double fork. Without evidence that it made the
// write (it no longer holds the file), the write is reported with the call and processes named,
// and kept: it could have been a person's.
func TestBackgroundWriteIsReported(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"subshell", `(sleep 1; echo x > memory-bank/a.json; : > %DONE%) >/dev/null 2>&1 &`},
		{"setsid in /tmp", `(cd /tmp && setsid bash -c 'sleep 1; echo x > %ROOT%/memory-bank/a.json; : > %DONE%') >/dev/null 2>&1 < /dev/null &`},
		{"double fork", `( (cd /; sleep 1; echo x > %ROOT%/memory-bank/a.json; : > %DONE%) & ) >/dev/null 2>&1`},
		{"relay", `(sleep 0.3; (sleep 1; echo x > %ROOT%/memory-bank/a.json; : > %DONE%) & ) >/dev/null 2>&1 &`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, g := newBank(t)
			done := filepath.Join(t.TempDir(), "done")
			script := strings.NewReplacer("%ROOT%", root, "%DONE%", done).Replace(tc.script)
			job := startJob(t, g, "toolu_bg", script)
			waitFor(t, done)
			rep, err := g.Before(Call{ID: "next", Session: "s", Tool: "Bash"})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Blocked() {
				t.Errorf("undone without evidence: %+v", rep.Undone)
			}
			found := false
			for _, p := range rep.Noticed {
				found = found || p.Path == "memory-bank/a.json" && p.Rule == RuleBackground &&
					strings.Contains(p.Text, "toolu_bg") && strings.Contains(p.Text, "pid ")
			}
			if !found {
				t.Errorf("the job's write is not reported with its call and processes (job %+v): %+v", job.Procs, rep.Noticed)
			}
			// the person sees it too (`mbguard status`, `doctor`)
			kept, err := JobReports(g.r, time.Now())
			if err != nil || len(kept) != 1 || kept[0].Path != "memory-bank/a.json" || !strings.Contains(kept[0].Text, "toolu_bg") {
				t.Errorf("kept reports = %+v, %v; want the job's write", kept, err)
			}
		})
	}
}

// A person's edit while an agent's background job runs is never reverted.
func TestPersonsEditWhileJobRunsStands(t *testing.T) {
	root, g := newBank(t)
	startJob(t, g, "toolu_dev", `(cd /tmp && setsid sleep 30) >/dev/null 2>&1 < /dev/null &`)
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\nthe person's\n")
	for _, id := range []string{"d", "e"} {
		if rep := call(t, g, id, ""); rep.Blocked() {
			t.Fatalf("call %s undid the person's edit: %+v", id, rep.Undone)
		}
	}
	if got := readBank(t, root, "memory-bank/details/progress.md"); got != "# Progress\nthe person's\n" {
		t.Errorf("progress.md = %q", got)
	}
}

// A job that holds the bank file it wrote open for writing is caught by that evidence: the
// write is undone, and the reply names the process.
func TestBackgroundWriteHeldOpenIsUndone(t *testing.T) {
	root, g := newBank(t)
	done := filepath.Join(t.TempDir(), "done")
	want := snapshot(t, root)
	startJob(t, g, "toolu_hold", `(cd /tmp && setsid bash -c 'sleep 0.5; exec 3>>`+root+`/memory-bank/details/progress.md; echo agent >&3; : > `+done+`; sleep 30') >/dev/null 2>&1 < /dev/null &`)
	waitFor(t, done)
	rep, err := g.Before(Call{ID: "next", Session: "s", Tool: "Bash"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Blocked() {
		t.Fatalf("a write held open by the job stands: %+v", rep)
	}
	sameTree(t, want, snapshot(t, root))
	if msg := rep.Message("claude"); !strings.Contains(msg, "holds it open for writing") || !strings.Contains(msg, "toolu_hold") {
		t.Errorf("the reply does not name the process evidence:\n%s", msg)
	}
}
