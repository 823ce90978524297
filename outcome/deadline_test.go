package outcome

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// bigChange plays a command that creates n files in the bank and overwrites a known one.
func bigChange(t *testing.T, root string, n int) {
	t.Helper()
	dir := filepath.Join(root, "memory-bank/junk")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.md", i)), []byte("junk\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testgit.Write(t, root, "memory-bank/details/patterns.md", "overwritten by a big call\n")
}

// A post check out of time never lets the change stand: the record stays open, the next
// call is refused while the undo goes on, and the background check puts the bank back.
func TestPostOutOfTimeFinishesInBackground(t *testing.T) {
	root, g := newBank(t)
	want := snapshot(t, root)
	handed := 0
	g.o.Deadline = time.Nanosecond // every check with changes runs out of time
	g.o.Background = func() { handed++ }
	if _, err := g.Before(Call{ID: "big", Session: "s", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	bigChange(t, root, 300)
	rep, err := g.After(Call{ID: "big", Session: "s", Tool: "Bash"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Background || handed != 1 {
		t.Fatalf("the check did not hand its rest on (handed %d): %+v", handed, rep)
	}
	if msg := rep.BackgroundMessage(); !strings.Contains(msg, "still undoing") || !strings.Contains(msg, "big") {
		t.Errorf("the agent is not told the undo goes on: %q", msg)
	}
	open := g.loadInflight().Calls
	if len(open) != 1 || open[0].ID != "big" || open[0].Post == 0 {
		t.Fatalf("the record of the call is not open and stamped: %+v", open)
	}
	// the next call waits (here: not at all) and is refused, naming the call
	_, err = g.Before(Call{ID: "next", Session: "s", Tool: "Bash"})
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Call != "big" || !strings.Contains(err.Error(), "retry") {
		t.Fatalf("the next call was not refused while the undo goes on: %v", err)
	}
	// the background check: no deadline
	frep, err := g.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if !frep.Blocked() {
		t.Fatalf("the background check undid nothing: %+v", frep)
	}
	sameTree(t, want, snapshot(t, root))
	if kept := strings.Join(quarantined(t, g), "|"); !strings.Contains(kept, "overwritten by a big call") {
		t.Error("the quarantine lacks the agent's bytes")
	}
	if open := g.loadInflight().Calls; len(open) != 0 {
		t.Errorf("calls left open after the background check: %+v", open)
	}
	g.o.Deadline = PostDeadline
	if _, err := g.Before(Call{ID: "after", Session: "s", Tool: "Bash"}); err != nil {
		t.Fatalf("a call after the background check was refused: %v", err)
	}
}

// With a deadline to spare, nothing goes to the background.
func TestPostInTimeStaysInProcess(t *testing.T) {
	root, g := newBank(t)
	want := snapshot(t, root)
	g.o.Background = func() { t.Error("handed on a check that had time") }
	g.Before(Call{ID: "c", Session: "s", Tool: "Bash"})
	bigChange(t, root, 300)
	rep, err := g.After(Call{ID: "c", Session: "s", Tool: "Bash"})
	if err != nil || rep.Background || !rep.Blocked() {
		t.Fatalf("err %v, report %+v", err, rep)
	}
	sameTree(t, want, snapshot(t, root))
}

const postKillEnv = "MBGUARD_OUTCOME_POSTKILL_HELPER"

// TestPostKillHelperProcess plays a post hook that ran out of time and was killed by the host
// (SIGKILL) before its background check could start; see TestPostKilledNextPreFinishes.
func TestPostKillHelperProcess(t *testing.T) {
	root := os.Getenv(postKillEnv)
	if root == "" {
		return
	}
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	g := New(r, Options{Rules: rulesFor(root), Deadline: time.Nanosecond, Background: func() {
		os.Stdout.WriteString("ready\n")
		select {} // wait for SIGKILL
	}})
	if _, err := g.Before(Call{ID: "doomed", Session: "s", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	bigChange(t, root, 300)
	g.After(Call{ID: "doomed", Session: "s", Tool: "Bash"})
}

func TestPostKilledNextPreFinishes(t *testing.T) {
	root, g := newBank(t)
	want := snapshot(t, root)
	cmd := exec.Command(os.Args[0], "-test.run=^TestPostKillHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), postKillEnv+"="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper said %q", line)
	}
	rep, err := g.Before(Call{ID: "next", Session: "s", Tool: "Bash"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Blocked() || len(rep.Settled) != 1 || rep.Settled[0].ID != "doomed" {
		t.Fatalf("the next pre check did not finish the killed post: %+v", rep)
	}
	sameTree(t, want, snapshot(t, root))
	if kept := strings.Join(quarantined(t, g), "|"); !strings.Contains(kept, "overwritten by a big call") {
		t.Error("the quarantine lacks the agent's bytes")
	}
}

// The next call waits for a background check that holds the lock, up to the deadline, and is
// then refused naming the call.
func TestNextCallWaitsForBackgroundCheck(t *testing.T) {
	_, g := newBank(t)
	g.Before(Call{ID: "a", Session: "s", Tool: "Bash"})
	// a stamped open record, and the lock held as a background check holds it
	in := g.loadInflight()
	markPost(in.Calls, time.Now())
	if err := g.saveInflight(inflight{}, in); err != nil {
		t.Fatal(err)
	}
	lk, err := g.lock()
	if err != nil {
		t.Fatal(err)
	}
	g.o.Deadline = 50 * time.Millisecond // waits lockWait: 2 s
	_, err = g.Before(Call{ID: "b", Session: "s", Tool: "Bash"})
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Call != "a" {
		t.Fatalf("want a refusal naming call a, got %v", err)
	}
	lk.Unlock()
	g.o.Deadline = PostDeadline
	rep, err := g.Before(Call{ID: "b", Session: "s", Tool: "Bash"})
	if err != nil || len(rep.Settled) != 1 {
		t.Fatalf("after the lock was released: err %v, report %+v", err, rep)
	}
}

// A post check that cannot get the lock from a background check stamps its call, and the
// next check settles it as an owner: it does not stay an open window.
func TestPostBusyStampsItsCall(t *testing.T) {
	root, g := newBank(t)
	want := snapshot(t, root)
	g.Before(Call{ID: "late", Session: "s", Tool: "Bash"})
	testgit.Write(t, root, "memory-bank/details/patterns.md", "overwritten while busy\n")
	lk, err := g.lock() // held as a background check holds it
	if err != nil {
		t.Fatal(err)
	}
	g.o.Deadline = time.Millisecond // waits lockWait: 2 s
	_, err = g.After(Call{ID: "late", Session: "s", Tool: "Bash"})
	var busy *BusyError
	if !errors.As(err, &busy) {
		lk.Unlock()
		t.Fatalf("want a BusyError, got %v", err)
	}
	lk.Unlock()
	g.o.Deadline = PostDeadline
	rep, err := g.Before(Call{ID: "next", Session: "s", Tool: "Bash"})
	if err != nil || len(rep.Settled) != 1 || rep.Settled[0].ID != "late" || !rep.Blocked() {
		t.Fatalf("the busy call was not settled by the next check: err %v, report %+v", err, rep)
	}
	sameTree(t, want, snapshot(t, root))
}

// TestInflightLogStaysShort: a session whose log never empties (a job left running, pre
// checks whose post never came) keeps it near what its live calls need: every check reads the
// whole log, a MAC and a JSON decode a line. The live calls survive each rewrite.
func TestInflightLogStaysShort(t *testing.T) {
	root := testgit.New(t)
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	g := New(r, Options{})
	if err := os.MkdirAll(r.StateDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	job := Call{ID: "b1" + bgSuffix, Tool: "Bash", Procs: []Proc{{PID: 1, Start: 1}}}
	prev := inflight{Calls: []Call{job}}
	if err := g.saveInflight(inflight{}, prev); err != nil {
		t.Fatal(err)
	}
	var most int64
	for i := range 300 {
		next := inflight{Calls: []Call{job, {ID: "e" + strconv.Itoa(i%3), Tool: "Edit", Start: int64(i)}}}
		if err := g.saveInflight(prev, next); err != nil {
			t.Fatal(err)
		}
		prev = next
		fi, err := os.Stat(g.inflightPath())
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, fi.Size())
		if got := g.loadInflight().Calls; len(got) != 2 || got[0].ID != job.ID && got[1].ID != job.ID {
			t.Fatalf("after %d checks the log holds %+v, want the job and the last edit", i+1, got)
		}
	}
	if most > 12<<10 { // two live calls need under 1 KiB
		t.Errorf("the log grew to %d bytes (compacted past %d)", most, compactInflightAt)
	}
}
