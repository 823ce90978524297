package outcome

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// conflictBank is newBank with a branch "other" whose patterns.md conflicts with main's and
// whose progress.md and a new topics/db.md merge cleanly. main is checked out.
func conflictBank(t *testing.T) (string, *Guard) {
	t.Helper()
	root, g := newBank(t)
	testgit.Git(t, root, "switch", "-q", "-c", "other")
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nuse tables\nother: queues\n")
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\nother's step\n")
	testgit.Write(t, root, "memory-bank/topics/db.md", "# DB\npostgres\n")
	testgit.Commit(t, root, "other: bank")
	testgit.Git(t, root, "switch", "-q", "main")
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nuse tables\nmain: stacks\n")
	testgit.Commit(t, root, "main: bank")
	return root, g
}

// gitView is what git shows of a repository: the index (modes, blobs, stages) and the status.
func gitView(t *testing.T, root string) string {
	t.Helper()
	return testgit.Git(t, root, "ls-files", "-s") + "\n" + testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all")
}

// Git's work that stops on a conflict is left exactly as git alone leaves it: the same
// operation run in a copy of the repository without mbguard ends with the same work tree and
// index; the person's uncommitted bank work is recoverable from git, never overwritten.
func TestStoppedGitWorkIsLeftAsGitLeftIt(t *testing.T) {
	const mine = "# Progress\nmy uncommitted step\n"
	cases := []struct {
		name, dirty, op string
		// kept returns the person's bytes from where git keeps them
		kept func(t *testing.T, root string) string
		// prep, when set, is what the person does between calls after writing dirty
		prep string
	}{
		{"merge --autostash", "memory-bank/details/progress.md", "git merge --autostash --no-edit other",
			func(t *testing.T, root string) string {
				return testgit.Git(t, root, "show", "MERGE_AUTOSTASH:memory-bank/details/progress.md")
			}, ""},
		{"rebase autoStash", "memory-bank/details/progress.md", "git -c rebase.autoStash=true rebase other",
			func(t *testing.T, root string) string {
				return testgit.Git(t, root, "show", strings.TrimSpace(readBank(t, root, ".git/rebase-merge/autostash"))+":memory-bank/details/progress.md")
			}, ""},
		{"checkout -m", "memory-bank/details/patterns.md", "git checkout -m other",
			func(t *testing.T, root string) string {
				return testgit.Git(t, root, "show", ":3:memory-bank/details/patterns.md")
			}, ""},
		{"merge, unrelated work", "memory-bank/MEMORY.md", "git merge --no-edit other",
			func(t *testing.T, root string) string { return readBank(t, root, "memory-bank/MEMORY.md") }, ""},
		{"cherry-pick", "memory-bank/MEMORY.md", "git cherry-pick other",
			func(t *testing.T, root string) string { return readBank(t, root, "memory-bank/MEMORY.md") }, ""},
		{"stash pop", "memory-bank/details/patterns.md", "git stash pop",
			func(t *testing.T, root string) string {
				return testgit.Git(t, root, "show", "stash@{0}:memory-bank/details/patterns.md")
			}, "git stash -q && git merge -q -X theirs --no-edit other"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, g := conflictBank(t)
			want := mine
			if tc.dirty == "memory-bank/MEMORY.md" {
				want = strings.Replace(goodMemory, "focus", "my focus", 1)
			} else if tc.dirty == "memory-bank/details/patterns.md" {
				want = "# Patterns\nuse tables\nmain: stacks\nmy note\n"
			}
			call(t, g, "before", "")
			testgit.Write(t, root, tc.dirty, want) // the person's, between calls
			if tc.prep != "" {
				sh(t, root, tc.prep)
			}
			call(t, g, "absorb", "")
			ctl := filepath.Join(t.TempDir(), "ctl")
			if out, err := exec.Command("cp", "-a", root, ctl).CombinedOutput(); err != nil {
				t.Fatalf("copying the repository: %v\n%s", err, out)
			}
			c := Call{ID: "op", Session: "s", Tool: "Bash"}
			if _, err := g.Before(c); err != nil {
				t.Fatal(err)
			}
			_ = shErr(tc.op, root) // stops on the conflict (checkout -m exits 0 all the same)
			rep, err := g.After(c)
			if err != nil {
				t.Fatal(err)
			}
			_ = shErr(tc.op, ctl)
			if testgit.Git(t, ctl, "ls-files", "-u") == "" {
				t.Fatalf("%s left no conflict in the control repository", tc.op)
			}
			if rep.Blocked() {
				t.Errorf("git's stopped work was undone: %s", rep.Message("claude"))
			}
			sameTree(t, snapshot(t, ctl), snapshot(t, root))
			if got, wantView := gitView(t, root), gitView(t, ctl); got != wantView {
				t.Errorf("git's view differs from the control:\n%s\nwant:\n%s", got, wantView)
			}
			if got := tc.kept(t, root); !strings.Contains(got+"\n", want) {
				t.Errorf("the person's work is not where git keeps it: %q, want %q", got, want)
			}
			// the next call changes nothing either
			if rep := call(t, g, "next", ""); rep.Blocked() {
				t.Errorf("the next call undid git's work: %+v", rep.Undone)
			}
			sameTree(t, snapshot(t, ctl), snapshot(t, root))
		})
	}
}

// A merge of the agent's own commit that stops on a conflict: the conflicted file is left as
// git left it, and what only the agent's commit brought is still judged and undone.
func TestStoppedMergeOfAgentCommit(t *testing.T) {
	root, g := conflictBank(t)
	call(t, g, "build", `git switch -q other && (`+addEvil+`) && git switch -q main`)
	rep := call(t, g, "merge", "git merge --no-edit feat || true")
	if got := readBank(t, root, "memory-bank/details/patterns.md"); !strings.Contains(got, "<<<<<<<") {
		t.Errorf("the conflict markers are gone: %q", got)
	}
	if testgit.Git(t, root, "ls-files", "-u") == "" {
		t.Error("the merge is no longer in conflict")
	}
	if got := readBank(t, root, "memory-bank/details/evil.json"); got == evilJSON {
		t.Error("evil.json stands")
	}
	if !strings.Contains(rep.Message("claude"), short(revParse(t, root, "feat"))) {
		t.Errorf("the agent's commit is not named: %s", rep.Message("claude"))
	}
	if got := readBank(t, root, "memory-bank/topics/db.md"); got != "# DB\npostgres\n" {
		t.Errorf("the cleanly merged topics/db.md (the person's) = %q", got)
	}
}

// Uncommitted work git carries onto the new HEAD and merges cleanly (`checkout -m`, an
// autostash applied back) is git's work: the bank ends as git alone leaves it.
func TestCarriedWorkIsGits(t *testing.T) {
	cases := []struct{ name, op string }{
		{"checkout -m", "git checkout -q -m other"},
		{"merge --autostash", "git merge -q --autostash --no-edit other"},
		{"rebase autoStash", "git -c rebase.autoStash=true rebase -q other"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, g := newBank(t)
			const base = "# Progress\n\na\nb\nc\nd\ne\nend\n"
			testgit.Write(t, root, "memory-bank/details/progress.md", base)
			testgit.Commit(t, root, "main: progress")
			testgit.Git(t, root, "switch", "-q", "-c", "other")
			testgit.Write(t, root, "memory-bank/details/progress.md", strings.Replace(base, "\n\n", "\nother's first step\n\n", 1))
			testgit.Commit(t, root, "other: bank")
			testgit.Git(t, root, "switch", "-q", "main")
			testgit.Write(t, root, "src/main.go", "package main // v2\n")
			testgit.Commit(t, root, "main: code")
			call(t, g, "before", "")
			testgit.Write(t, root, "memory-bank/details/progress.md", base+"my uncommitted line\n")
			call(t, g, "absorb", "")
			ctl := filepath.Join(t.TempDir(), "ctl")
			if out, err := exec.Command("cp", "-a", root, ctl).CombinedOutput(); err != nil {
				t.Fatalf("copying the repository: %v\n%s", err, out)
			}
			rep := call(t, g, "op", tc.op)
			sh(t, ctl, tc.op)
			if rep.Blocked() {
				t.Errorf("git's carried work was undone: %s", rep.Message("claude"))
			}
			sameTree(t, snapshot(t, ctl), snapshot(t, root))
			if got, want := gitView(t, root), gitView(t, ctl); got != want {
				t.Errorf("git's view differs from the control:\n%s\nwant:\n%s", got, want)
			}
			if got := readBank(t, root, "memory-bank/details/progress.md"); !strings.Contains(got, "my uncommitted line") || !strings.Contains(got, "other's first step") || strings.Contains(got, "<<<<<<<") {
				t.Errorf("progress.md = %q, want both the person's and other's lines", got)
			}
		})
	}
}
