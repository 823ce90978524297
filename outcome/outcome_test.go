package outcome

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/scanner"
)

const goodMemory = "# Memory\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\nfocus\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\nmine\n<!-- USER_BLOCK_END -->\n"

// aSecret is a token gitleaks' github-pat rule reports (split so this file holds none).
var aSecret = "ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo"

// newBank makes a real repository with a well-formed bank and its Guard.
func newBank(t *testing.T) (string, *Guard) {
	t.Helper()
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nuse tables\n")
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\n")
	testgit.Write(t, root, "src/main.go", "package main\n")
	testgit.Commit(t, root, "init")
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, tracked(t, New(r, Options{Rules: rulesFor(root)}))
}

func rulesFor(root string) Rules {
	var s *scanner.Secrets
	return Rules{Minimum: bank.CurrentTemplate, Secrets: func() *scanner.Secrets {
		if s == nil {
			s = scanner.NewSecrets(root)
		}
		return s
	}}
}

// node is what the disk holds at one path: kind, mode and bytes (a symlink's target).
type node struct {
	kind  Kind
	mode  os.FileMode
	bytes string
	nlink uint64
}

func snapshot(t *testing.T, root string) map[string]node {
	t.Helper()
	es, err := walk(root, bank.Dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]node{}
	for p, e := range es {
		n := node{kind: e.Kind, mode: e.Mode, nlink: e.Nlink}
		abs := filepath.Join(root, p)
		switch e.Kind {
		case KindFile:
			b, err := os.ReadFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			n.bytes = string(b)
		case KindSymlink:
			s, _ := os.Readlink(abs)
			n.bytes = s
		}
		out[p] = n
	}
	return out
}

func sameTree(t *testing.T, want, got map[string]node) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		if !ok {
			t.Errorf("%s is missing afterwards", p)
			continue
		}
		if w != g {
			t.Errorf("%s differs afterwards: %+v, want %+v", p, g, w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is left over afterwards", p)
		}
	}
}

// testOwner marks every process a test's shell starts (children inherit it), so a test kills
// only its own processes: other programs on the machine may share the session and the time.
var testOwner = "MBGUARD_TEST_OWNER=" + strconv.Itoa(os.Getpid())

func sh(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), testOwner)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("running %q: %v\n%s", script, err, out)
	}
}

// quarantined collects every byte string kept in the quarantine.
func quarantined(t *testing.T, g *Guard) []string {
	t.Helper()
	qs, err := ListQuarantine(g.r)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range qs {
		for _, e := range q.Entries {
			b, err := ReadQuarantined(g.r, q, e)
			if err != nil {
				t.Fatal(err)
			}
			if e.File != "" {
				out = append(out, string(b))
			}
		}
	}
	return out
}

func TestAttacksAreUndone(t *testing.T) {
	cases := []struct {
		name   string
		script string
		kept   []string // bytes the agent wrote that the quarantine must hold
		rule   string   // a rule the report must name
	}{
		{"non-md file", `printf 'x=1' > memory-bank/run.sh`, []string{"x=1"}, RuleNotAllowed},
		{"break a marker", `sed -i 's/MACHINE_BLOCK_END/MACHINE_BLOK_END/' memory-bank/MEMORY.md`, nil, scanner.RuleMarkerMalformed},
		{"change USER_BLOCK", `sed -i 's/^mine$/theirs/' memory-bank/MEMORY.md`, []string{strings.Replace(goodMemory, "mine", "theirs", 1)}, RuleUserBlock},
		{"lower the template", `sed -i 's/v7.1/v7.0/' memory-bank/MEMORY.md`, nil, RuleTemplate},
		{"delete MEMORY.md", `rm memory-bank/MEMORY.md`, nil, RuleEntryGone},
		{"rename", `mv memory-bank/details/patterns.md memory-bank/details/p2.md`, []string{"# Patterns\nuse tables\n"}, RuleNotAllowed},
		{"chmod", `chmod 600 memory-bank/details/progress.md`, nil, RuleNotAllowed},
		{"chmod a directory", `chmod 700 memory-bank/details`, nil, RuleNotAllowed},
		{"hard link out", `ln memory-bank/details/progress.md ../outside-link`, nil, RuleHardLink},
		{"hard link in", `printf evil > ../evil && ln ../evil memory-bank/details/evil.md`, []string{"evil"}, RuleNotAllowed},
		{"symlink in", `ln -s ../../src/main.go memory-bank/details/link.md`, []string{"../../src/main.go"}, scanner.RuleSymlink},
		{"symlink replaces a file", `rm memory-bank/details/progress.md && ln -s /etc/hostname memory-bank/details/progress.md`, []string{"/etc/hostname"}, scanner.RuleSymlink},
		{"secret", `printf 'token: ` + aSecret + `\n' >> memory-bank/details/progress.md`, []string{"# Progress\ntoken: " + aSecret + "\n"}, scanner.SecretRulePrefix + "github-pat"},
		{"new directories", `mkdir -p memory-bank/x/y && printf deep > memory-bank/x/y/z.md`, []string{"deep"}, RuleNotAllowed},
		{"directory replaced by a file", `rm -rf memory-bank/details && printf flat > memory-bank/details`, []string{"flat"}, RuleNotAllowed},
		{"delete the whole bank", `rm -rf memory-bank`, nil, RuleEntryGone},
		{"bank replaced by a symlink", `mv memory-bank ../elsewhere && ln -s ../elsewhere memory-bank`, []string{"../elsewhere"}, scanner.RuleSymlink},
		{"valid md through the shell", `printf '# Note\n' > memory-bank/details/note.md`, []string{"# Note\n"}, RuleNotAllowed},
		{"fifo", `mkfifo memory-bank/details/pipe.md`, nil, RuleOther},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, g := newBank(t)
			want := snapshot(t, root)
			c := Call{ID: "c1", Session: "s", Tool: "Bash"}
			if _, err := g.Before(c); err != nil {
				t.Fatal(err)
			}
			sh(t, root, tc.script)
			rep, err := g.After(c)
			if err != nil {
				t.Fatal(err)
			}
			sameTree(t, want, snapshot(t, root))
			if !rep.Blocked() {
				t.Fatalf("nothing was undone")
			}
			rules := map[string]bool{}
			for _, u := range rep.Undone {
				for _, w := range u.Why {
					rules[w.Rule] = true
				}
			}
			if !rules[tc.rule] {
				t.Errorf("report names rules %v, want %s", rules, tc.rule)
			}
			kept := quarantined(t, g)
			for _, k := range tc.kept {
				found := false
				for _, q := range kept {
					found = found || q == k
				}
				if !found {
					t.Errorf("quarantine lacks the agent's bytes %q (has %q)", k, kept)
				}
			}
			msg := rep.Message("claude")
			if !strings.Contains(msg, "mbguard quarantine show") && len(tc.kept) > 0 || !strings.Contains(msg, "Write or Edit") {
				t.Errorf("message does not say where the bytes are or what to use:\n%s", msg)
			}
			if strings.Contains(msg, aSecret) {
				t.Errorf("message leaks the secret")
			}
			// the next call sees a clean bank: nothing more to undo
			if _, err := g.Before(Call{ID: "c2", Session: "s", Tool: "Bash"}); err != nil {
				t.Fatal(err)
			}
			if rep, err := g.After(Call{ID: "c2", Session: "s", Tool: "Bash"}); err != nil || rep.Blocked() {
				t.Errorf("second check: %v %+v", err, rep.Undone)
			}
		})
	}
}

func TestAllowedWriteIsKept(t *testing.T) {
	cases := []struct {
		name, path, content string
		kept                bool
	}{
		{"valid md", "memory-bank/details/tech.md", "# Tech\nGo\n", true},
		{"new folder", "memory-bank/details/design/api.md", "# API\n", true},
		{"machine block edit", "memory-bank/MEMORY.md", strings.Replace(goodMemory, "focus", "new focus", 1), true},
		{"user block edit", "memory-bank/MEMORY.md", strings.Replace(goodMemory, "mine", "agent's", 1), false},
		{"broken markers", "memory-bank/details/tech.md", "<!-- USER_BLOCK_START -->\n", false},
		{"secret", "memory-bank/details/tech.md", "key " + aSecret + "\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, g := newBank(t)
			want := snapshot(t, root)
			c := Call{ID: "w", Session: "s", Tool: "Write", Allowed: []string{tc.path}}
			if _, err := g.Before(c); err != nil {
				t.Fatal(err)
			}
			testgit.Write(t, root, tc.path, tc.content)
			rep, err := g.After(c)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(filepath.Join(root, tc.path))
			if tc.kept {
				if string(got) != tc.content || rep.Blocked() {
					t.Fatalf("allowed write undone: %+v", rep.Undone)
				}
				return
			}
			sameTree(t, want, snapshot(t, root))
			if !rep.Blocked() {
				t.Fatal("a write that breaks a rule was kept")
			}
		})
	}
}

func TestHarmlessEffectsOutsideTheBankStay(t *testing.T) {
	root, g := newBank(t)
	c := Call{ID: "c", Session: "s", Tool: "Bash"}
	g.Before(c)
	sh(t, root, `printf 'package x\n' > src/x.go && cat memory-bank/MEMORY.md > /dev/null && touch memory-bank/details/progress.md`)
	rep, err := g.After(c)
	if err != nil || rep.Blocked() {
		t.Fatalf("harmless call undone: %v %+v", err, rep.Undone)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src/x.go")); string(b) != "package x\n" {
		t.Error("a file outside the bank was touched")
	}
}

func TestHumanEditsBetweenCallsAreKept(t *testing.T) {
	root, g := newBank(t)
	g.Before(Call{ID: "a", Session: "s", Tool: "Bash"})
	g.After(Call{ID: "a", Session: "s", Tool: "Bash"})
	// a person edits between calls: one valid change, one that breaks a rule
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\nday 2\n")
	testgit.Write(t, root, "memory-bank/notes.txt", "human notes")
	rep, err := g.Before(Call{ID: "b", Session: "s", Tool: "Bash"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Noticed) != 1 || rep.Noticed[0].Path != "memory-bank/notes.txt" || rep.Notice() == "" {
		t.Errorf("noticed %+v, want the non-md file reported", rep.Noticed)
	}
	rep, err = g.After(Call{ID: "b", Session: "s", Tool: "Bash"})
	if err != nil || rep.Blocked() {
		t.Fatalf("human edits undone: %v %+v", err, rep.Undone)
	}
	for p, want := range map[string]string{"memory-bank/details/progress.md": "# Progress\nday 2\n", "memory-bank/notes.txt": "human notes"} {
		if b, _ := os.ReadFile(filepath.Join(root, p)); string(b) != want {
			t.Errorf("%s = %q, want the human's %q", p, b, want)
		}
	}
}

func TestParallelCallsLoseNothing(t *testing.T) {
	root, g := newBank(t)
	w := Call{ID: "write", Session: "s", Tool: "Write", Allowed: []string{"memory-bank/details/tech.md"}}
	b := Call{ID: "bash", Session: "s", Tool: "Bash"}
	g.Before(w)
	g.Before(b)
	testgit.Write(t, root, "memory-bank/details/tech.md", "# Tech\n")
	testgit.Write(t, root, "memory-bank/evil.sh", "rm -rf /")
	// the shell call ends first: it undoes its own stray file, and leaves the write's path
	rep, err := g.After(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Undone) != 1 || rep.Undone[0].Path != "memory-bank/evil.sh" {
		t.Errorf("undone %+v, want only evil.sh", rep.Undone)
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank/details/tech.md")); err != nil {
		t.Fatal("the other call's allowed write was touched")
	}
	rep, err = g.After(w)
	if err != nil || rep.Blocked() || len(rep.Accepted) != 1 {
		t.Fatalf("allowed write: %v undone %+v accepted %v", err, rep.Undone, rep.Accepted)
	}
}

func TestStaleCallIsSettledByTheNextCheck(t *testing.T) {
	root, g := newBank(t)
	now := time.Unix(1_700_000_000, 0)
	g.o.Now = func() time.Time { return now }
	g.Before(Call{ID: "lost", Session: "s", Tool: "Bash"})
	testgit.Write(t, root, "memory-bank/x.bin", "agent bytes")
	now = now.Add(StaleAfter + time.Second) // the post never came
	rep, err := g.Before(Call{ID: "next", Session: "s", Tool: "Bash"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Blocked() || len(rep.Settled) != 1 {
		t.Fatalf("stale call not settled: %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank/x.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the lost call's stray file is still there")
	}
}

func TestForgetEndsCalls(t *testing.T) {
	root, g := newBank(t)
	g.Before(Call{ID: "lost", Session: "s", Tool: "Bash"})
	testgit.Write(t, root, "memory-bank/x.bin", "agent bytes")
	rep, err := g.End("s", "", true)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Blocked() || len(rep.Settled) != 1 {
		t.Fatal("a call of a session that moved on was not settled when its window closed")
	}
	if rep, _ := g.Before(Call{ID: "next", Session: "s", Tool: "Bash"}); rep.Blocked() {
		t.Errorf("the next call undid something again: %+v", rep.Undone)
	}
}

func TestKnownGoodSurvivesGC(t *testing.T) {
	root, g := newBank(t)
	c := Call{ID: "c", Session: "s", Tool: "Bash"}
	g.Before(c)
	// the blobs must be reachable from the private ref, so gc keeps (and packs) them
	testgit.Git(t, root, "gc", "-q", "--prune=now")
	if out := testgit.Git(t, root, "cat-file", "-t", g.Ref()); out != "tree" {
		t.Fatalf("%s is %q, want a tree", g.Ref(), out)
	}
	loose := testgit.Git(t, root, "count-objects")
	if !strings.HasPrefix(loose, "0 objects") {
		t.Logf("after gc: %s", loose)
	}
	// an uncommitted new file that only the known-good store holds
	want := snapshot(t, root)
	sh(t, root, `printf 'garbage' > memory-bank/details/patterns.md`)
	// and the manifest is lost: the packed ref's tree names the bytes
	if err := os.Remove(g.manifestPath()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", g.Ref())); err == nil {
		t.Log("the ref is still loose after gc")
	}
	g.cache = nil
	rep, err := g.After(c)
	if err != nil || !rep.Blocked() {
		t.Fatalf("after gc: %v %+v", err, rep)
	}
	sameTree(t, want, snapshot(t, root))
}

func TestSHA256Repository(t *testing.T) {
	testgit.Isolate(t)
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	cmd := exec.Command("git", "init", "-q", "--object-format=sha256")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("git cannot make a sha256 repository here: %v %s", err, out)
	}
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	r, _ := repo.Find(root)
	g := New(r, Options{Rules: rulesFor(root)})
	want := snapshot(t, root)
	c := Call{ID: "c", Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	sh(t, root, `printf broken > memory-bank/MEMORY.md`)
	if _, err := g.After(c); err != nil {
		t.Fatal(err)
	}
	sameTree(t, want, snapshot(t, root))
	testgit.Git(t, root, "fsck", "--no-dangling")
	if out := testgit.Git(t, root, "cat-file", "-t", g.Ref()); out != "tree" {
		t.Errorf("%s is %q", g.Ref(), out)
	}
}

func TestQuarantineRestoreAndDrop(t *testing.T) {
	root, g := newBank(t)
	c := Call{ID: "c", Session: "s", Tool: "Bash", Host: "claude"}
	g.Before(c)
	testgit.Write(t, root, "memory-bank/keep.txt", "precious")
	rep, _ := g.After(c)
	qs, _ := ListQuarantine(g.r)
	if len(qs) != 1 || qs[0].ID != rep.Quarantine || qs[0].Session != "s" || qs[0].Tool != "Bash" || qs[0].Call != "c" {
		t.Fatalf("quarantine = %+v", qs)
	}
	// the quarantine is in the git directory: nothing there can be committed
	if st := testgit.Git(t, root, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean: %s", st)
	}
	done, err := RestoreQuarantine(g.r, rep.Quarantine, false)
	if err != nil || len(done) != 1 {
		t.Fatal(done, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/keep.txt")); string(b) != "precious" {
		t.Error("restore did not put the bytes back")
	}
	// a restore is a human change: the next check keeps it and reports it
	rep, _ = g.Before(Call{ID: "d", Session: "s", Tool: "Bash"})
	if len(rep.Noticed) == 0 {
		t.Error("restored non-md file not reported")
	}
	g.After(Call{ID: "d", Session: "s", Tool: "Bash"})
	if _, err := os.Stat(filepath.Join(root, "memory-bank/keep.txt")); err != nil {
		t.Error("a restored file was undone")
	}
	if err := DropQuarantine(g.r, "nope"); err == nil {
		t.Error("dropping an unknown id succeeded")
	}
	if _, err := GetQuarantine(g.r, "../x"); err == nil {
		t.Error("a path as id was accepted")
	}
}

func TestAddedLines(t *testing.T) {
	got := addedLines([]byte("a\nb\nc\n"), []byte("a\nx\nb\nc\nb\n"))
	if want := []int{2, 5}; !slices.Equal(got, want) {
		t.Errorf("addedLines = %v, want %v", got, want)
	}
}

// A file too large to keep a known-good copy of is never "restored" to nothing.
func TestUnkeptBytesAreNeverLost(t *testing.T) {
	root, g := newBank(t)
	big := strings.Repeat("x", maxHashed+1)
	testgit.Write(t, root, "memory-bank/details/big.md", big)
	c := Call{ID: "c", Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	sh(t, root, `printf 'agent' >> memory-bank/details/big.md`)
	rep, err := g.After(c)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/details/big.md")); string(b) != big+"agent" {
		t.Errorf("big.md has %d bytes, want the agent's %d", len(b), len(big)+5)
	}
	if len(rep.Noticed) == 0 {
		t.Error("the change was not reported")
	}
}

// With a trusted event counter, a pre check skips its walk while the counter stands still and
// walks (absorbing a person's edit) once it moved.
func TestQuietCounterSkipsThePreWalk(t *testing.T) {
	for _, moved := range []bool{false, true} {
		t.Run(fmt.Sprint("moved=", moved), func(t *testing.T) {
			root, g := newBank(t)
			var n uint64
			g.o.Quiet = func() (uint64, bool) { return n, true }
			g.Before(Call{ID: "a", Session: "s", Tool: "Bash"})
			g.After(Call{ID: "a", Session: "s", Tool: "Bash"})
			testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\nhuman\n")
			if moved {
				n++ // the watcher saw the edit
			}
			g.Before(Call{ID: "b", Session: "s", Tool: "Bash"})
			rep, _ := g.After(Call{ID: "b", Session: "s", Tool: "Bash"})
			// a tracker reads its own events before the pre check: the edit is always absorbed
			if wantBlocked := !moved && !g.Tracking(); rep.Blocked() != wantBlocked {
				t.Errorf("moved=%v: undone %+v; the pre walk ran %v", moved, rep.Undone, moved)
			}
		})
	}
}

// A linked worktree shares the object store; its known-good tree gets a ref of its own.
func TestLinkedWorktree(t *testing.T) {
	main, _ := newBank(t)
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Git(t, main, "worktree", "add", "-q", wt)
	wt, _ = filepath.EvalSymlinks(wt)
	r, err := repo.Find(wt)
	if err != nil {
		t.Fatal(err)
	}
	g := New(r, Options{Rules: rulesFor(wt)})
	want := snapshot(t, wt)
	c := Call{ID: "c", Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	sh(t, wt, `printf broken > memory-bank/MEMORY.md`)
	if rep, err := g.After(c); err != nil || !rep.Blocked() {
		t.Fatalf("%v %+v", err, rep)
	}
	sameTree(t, want, snapshot(t, wt))
	if g.Ref() == "refs/mbguard/known-good" {
		t.Errorf("a linked worktree uses the main worktree's ref")
	}
	if out := testgit.Git(t, main, "cat-file", "-t", g.Ref()); out != "tree" {
		t.Errorf("%s = %q in the shared store", g.Ref(), out)
	}
}

// A script can delete all of mbguard's state in the git directory (manifest, in-flight log,
// the private ref) in the same call that writes into the bank: the copy of the manifest
// outside the repository still names the known-good bytes, so the post check undoes it and
// no later pre check accepts it as a human's edit.
func TestStateDeletedWithTheAttackIsStillUndone(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"state dir and ref", `rm -rf .git/mbguard .git/refs/mbguard .git/logs/refs/mbguard; printf x > memory-bank/a.json`},
		{"state dir, ref, packed ref", `git update-ref -d refs/mbguard/known-good; rm -rf .git/mbguard; printf 'agent' > memory-bank/MEMORY.md`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, g := newBank(t)
			want := snapshot(t, root)
			c := Call{ID: "c", Session: "s", Tool: "Bash"}
			if _, err := g.Before(c); err != nil {
				t.Fatal(err)
			}
			sh(t, root, tc.script)
			// a fresh process: nothing in memory
			r, _ := repo.Find(root)
			g2 := New(r, Options{Rules: rulesFor(root)})
			rep, err := g2.After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true})
			if err != nil || !rep.Blocked() {
				t.Fatalf("post check after the state was deleted: %v %+v", err, rep)
			}
			sameTree(t, want, snapshot(t, root))
			// and the next call's pre check does not take it back
			if _, err := New(r, Options{Rules: rulesFor(root)}).Before(Call{ID: "d", Session: "s", Tool: "Bash"}); err != nil {
				t.Fatal(err)
			}
			sameTree(t, want, snapshot(t, root))
		})
	}
}

// A command can tamper with mbguard's state instead of deleting it: a forged manifest (an
// empty one would make every bank file look "created" and be moved away), or a directory
// where the lock file goes (the check could not lock and would not run). Neither may switch
// the check off or turn it against the bank.
func TestTamperedStateIsNotTrusted(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"empty manifest", `printf 'mbguard known-good 2\ntree -\n' > .git/mbguard/known-good.idx; printf x > memory-bank/a.json`},
		{"manifest naming the agent's file", `printf 'f 644 1 0 0 1 - memory-bank/a.json\0' >> .git/mbguard/known-good.idx; printf x > memory-bank/a.json`},
		{"lock is a directory", `rm -f .git/mbguard/outcome.lock; mkdir .git/mbguard/outcome.lock; printf x > memory-bank/a.json`},
		{"state dir unreadable", `chmod 000 .git/mbguard; printf x > memory-bank/a.json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, g := newBank(t)
			want := snapshot(t, root)
			c := Call{ID: "c", Session: "s", Tool: "Bash"}
			if _, err := g.Before(c); err != nil {
				t.Fatal(err)
			}
			sh(t, root, tc.script)
			r, _ := repo.Find(root)
			rep, err := New(r, Options{Rules: rulesFor(root)}).After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true})
			os.Chmod(filepath.Join(root, ".git", "mbguard"), 0o755)
			if err != nil || !rep.Blocked() {
				t.Fatalf("post check: %v %+v", err, rep)
			}
			sameTree(t, want, snapshot(t, root))
		})
	}
}

// A process the host itself starts during a call (a language server, a formatter) has a
// living parent that predates the call: it is no background job of the call, and a person's
// edit made while it runs is kept, not undone as the agent's.
func TestHostStartedProcessIsNoBackgroundJob(t *testing.T) {
	root, g := newBank(t)
	c := Call{ID: "c", Session: "s", Tool: "Bash", Start: time.Now().UnixMilli()}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	// started by this test process, which outlives the call, and working in the repository
	server := exec.Command("sleep", "30")
	server.Dir = root
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Process.Kill(); server.Wait() })
	if rep, err := g.After(Call{ID: "c", Session: "s", Tool: "Bash", Check: true, Spawns: true}); err != nil || rep.Blocked() {
		t.Fatalf("post check: %v %+v", err, rep)
	}
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\nhuman, while the server runs\n")
	pre, err := g.Before(Call{ID: "d", Session: "s", Tool: "Bash"})
	if err != nil || pre.Blocked() {
		t.Fatalf("pre check: %v %+v", err, pre)
	}
	post, err := g.After(Call{ID: "d", Session: "s", Tool: "Bash", Check: true, Spawns: true})
	if err != nil || post.Blocked() {
		t.Fatalf("post check: %v %+v", err, post)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/details/progress.md")); string(b) != "# Progress\nhuman, while the server runs\n" {
		t.Errorf("a person's edit was undone while a host-started process ran: %q", b)
	}
}

// A file name that is not UTF-8 survives the known-good store and an undo byte for byte
// (the manifest keeps names as raw bytes; JSON would have turned them into U+FFFD).
func TestNonUTF8NameKept(t *testing.T) {
	root, g := newBank(t)
	odd := "memory-bank/na\xffme.md"
	testgit.Write(t, root, odd, "# odd\n")
	for _, id := range []string{"c", "d"} {
		if _, err := g.Before(Call{ID: id, Session: "s", Tool: "Bash"}); err != nil {
			t.Fatal(err)
		}
		sh(t, root, `printf evil > memory-bank/MEMORY.md`)
		rep, err := g.After(Call{ID: id, Session: "s", Tool: "Bash", Check: true})
		if err != nil || !rep.Blocked() {
			t.Fatalf("call %s: the write was not undone: %v %+v", id, err, rep)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, odd)); err != nil || string(b) != "# odd\n" {
		t.Fatalf("%q after two checks: %q, %v", odd, b, err)
	}
	names, _ := os.ReadDir(filepath.Join(root, "memory-bank"))
	for _, n := range names {
		if strings.Contains(n.Name(), "\uFFFD") {
			t.Errorf("a renamed copy appeared: %q", n.Name())
		}
	}
}
