package outcome

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// gitBank is newBank with a branch "feature" whose commit changes the bank: one file
// changed, one added in a new folder, one deleted. main is checked out.
func gitBank(t *testing.T) (string, *Guard) {
	t.Helper()
	root, g := newBank(t)
	testgit.Git(t, root, "switch", "-q", "-c", "feature")
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nuse tables\nteam: queues\n")
	testgit.Write(t, root, "memory-bank/topics/db.md", "# DB\npostgres\n")
	os.Remove(filepath.Join(root, "memory-bank/details/progress.md"))
	testgit.Commit(t, root, "feature: bank work")
	testgit.Git(t, root, "switch", "-q", "main")
	return root, g
}

// bankClean fails unless the bank is exactly HEAD's (nothing modified, nothing untracked),
// nothing was undone and nothing is in the quarantine.
func bankClean(t *testing.T, root string, g *Guard, rep Report) {
	t.Helper()
	if st := testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all", "--", "memory-bank"); st != "" {
		t.Errorf("the bank differs from HEAD after the check:\n%s", st)
	}
	if rep.Blocked() {
		t.Errorf("git's work was undone: %+v", rep.Undone)
	}
	if q := quarantined(t, g); len(q) > 0 {
		t.Errorf("quarantine holds %q", q)
	}
}

func readBank(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// Git's own work is not the agent's: every operation that moves HEAD or rewrites the index
// leaves the bank as git put it, equal to the new HEAD.
func TestGitWorkIsAccepted(t *testing.T) {
	cases := []struct {
		name   string
		script string
		prep   func(t *testing.T, root string)
	}{
		{"checkout", "git checkout -q feature", nil},
		{"switch", "git switch -q feature", nil},
		{"detached checkout", "git checkout -q --detach feature", nil},
		{"merge fast-forward", "git merge -q feature", nil},
		{"merge commit", "git merge -q --no-ff --no-edit feature", func(t *testing.T, root string) {
			testgit.Write(t, root, "src/main.go", "package main // v2\n")
			testgit.Commit(t, root, "main: code")
		}},
		{"rebase", "git rebase -q feature", func(t *testing.T, root string) {
			testgit.Write(t, root, "src/main.go", "package main // v2\n")
			testgit.Commit(t, root, "main: code")
		}},
		{"cherry-pick", "git cherry-pick feature", nil},
		{"revert", "git revert --no-edit HEAD", func(t *testing.T, root string) {
			testgit.Git(t, root, "merge", "-q", "feature")
		}},
		{"reset to a commit", "git reset -q --hard feature", nil},
		{"am", "git format-patch -1 --stdout feature > ../p.patch && git am -q ../p.patch", nil},
		{"stash pop", "git stash pop -q", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\nstashed\n")
			testgit.Git(t, root, "stash", "-q")
		}},
		{"stash apply", "git stash apply -q && git stash drop -q", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\nstashed\n")
			testgit.Git(t, root, "stash", "-q")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, g := gitBank(t)
			if tc.prep != nil {
				tc.prep(t, root)
			}
			call(t, g, "before", "") // the known-good state is main's bank
			rep := call(t, g, "git", tc.script)
			if strings.HasPrefix(tc.name, "stash") {
				// the stash holds work the tree did not: the bank is what git put back
				if got := readBank(t, root, "memory-bank/details/progress.md"); got != "# Progress\nstashed\n" {
					t.Errorf("progress.md = %q, want the stashed bytes", got)
				}
				if rep.Blocked() || len(quarantined(t, g)) > 0 {
					t.Errorf("stash %q undone: %+v", tc.script, rep.Undone)
				}
				return
			}
			bankClean(t, root, g, rep)
			if tc.name == "revert" {
				return
			}
			if got := readBank(t, root, "memory-bank/topics/db.md"); got != "# DB\npostgres\n" {
				t.Errorf("topics/db.md = %q, want feature's", got)
			}
			// the next call starts from the new state: nothing is undone later either
			if rep := call(t, g, "next", ""); rep.Blocked() {
				t.Errorf("the next call undid git's work: %+v", rep.Undone)
			}
			bankClean(t, root, g, Report{})
		})
	}
}

// A pull from a remote brings a teammate's bank work: it stands.
func TestGitPullIsAccepted(t *testing.T) {
	root, g := newBank(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	testgit.Git(t, root, "init", "-q", "--bare", bare)
	testgit.Git(t, root, "remote", "add", "origin", bare)
	testgit.Git(t, root, "push", "-q", "-u", "origin", "main")
	mate := filepath.Join(t.TempDir(), "mate")
	testgit.Git(t, root, "clone", "-q", bare, mate)
	testgit.Write(t, mate, "memory-bank/details/patterns.md", "# Patterns\nfrom a teammate\n")
	testgit.Write(t, mate, "memory-bank/topics/api.md", "# API\nrest\n")
	testgit.Commit(t, mate, "mate: bank")
	testgit.Git(t, mate, "push", "-q")
	call(t, g, "before", "")
	rep := call(t, g, "pull", "git pull -q --no-rebase")
	bankClean(t, root, g, rep)
	if got := readBank(t, root, "memory-bank/details/patterns.md"); got != "# Patterns\nfrom a teammate\n" {
		t.Errorf("patterns.md = %q, want the teammate's", got)
	}
}

// A merge that stops on a conflict in the bank leaves the markers to the person: reported,
// never reverted.
func TestGitMergeConflictIsReported(t *testing.T) {
	root, g := gitBank(t)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nuse tables\nmain: stacks\n")
	testgit.Commit(t, root, "main: bank")
	call(t, g, "before", "")
	c := Call{ID: "merge", Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		t.Fatal(err)
	}
	if shErr("git merge -q --no-edit feature", root) == nil {
		t.Fatal("the merge did not stop on the conflict")
	}
	rep, err := g.After(c)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Blocked() {
		t.Fatalf("the conflicted merge was undone: %+v", rep.Undone)
	}
	if got := readBank(t, root, "memory-bank/details/patterns.md"); !strings.Contains(got, "<<<<<<<") {
		t.Errorf("the conflict markers are gone: %q", got)
	}
	found := false
	for _, p := range rep.Noticed {
		found = found || p.Rule == RuleConflict && p.Path == "memory-bank/details/patterns.md"
	}
	if !found {
		t.Errorf("the conflict is not reported: %+v", rep.Noticed)
	}
	if got := readBank(t, root, "memory-bank/topics/db.md"); got != "# DB\npostgres\n" {
		t.Errorf("the cleanly merged topics/db.md = %q", got)
	}
}

// shErr runs script and returns its error (nil when it succeeded).
func shErr(script, dir string) error {
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	return cmd.Run()
}

// Git commands that throw away uncommitted bank work: what the person had is put back,
// byte for byte, and the reply names git as the cause.
func TestGitDestroyedWorkIsRestored(t *testing.T) {
	const mine = "# Patterns\nuse tables\nmy uncommitted note\n"
	const notes = "# Notes\nuntracked, mine\n"
	cases := []struct{ name, script string }{
		{"reset --hard", "git reset -q --hard"},
		{"checkout -f", "git checkout -q -f feature"},
		{"switch --discard-changes", "git switch -q --discard-changes feature"},
		{"stash", "git stash -q -u"},
		{"clean -f", "git clean -q -f memory-bank"},
		{"checkout a path", "git checkout -- memory-bank"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, g := gitBank(t)
			call(t, g, "before", "")
			// the person's work, between calls
			testgit.Write(t, root, "memory-bank/details/patterns.md", mine)
			testgit.Write(t, root, "memory-bank/details/notes.md", notes)
			call(t, g, "absorb", "")
			rep := call(t, g, "git", tc.script)
			if got := readBank(t, root, "memory-bank/details/patterns.md"); got != mine && tc.name != "clean -f" {
				t.Errorf("patterns.md = %q, want the person's %q", got, mine)
			}
			if got := readBank(t, root, "memory-bank/details/notes.md"); got != notes {
				t.Errorf("notes.md = %q, want the person's %q", got, notes)
			}
			msg := rep.Message("claude")
			// git clean moves neither HEAD nor the index: its deletion is undone like any other
			if !rep.Blocked() || tc.name != "clean -f" && !strings.Contains(msg, "git ") {
				t.Errorf("the reply does not name git as the cause:\n%s", msg)
			}
		})
	}
}

// An agent that writes the bank and commits in the same call does not pass its write off as
// git's: `git commit` writes no file.
func TestGitCommitDoesNotLaunderAWrite(t *testing.T) {
	root, g := newBank(t)
	call(t, g, "before", "")
	rep := call(t, g, "commit", "printf 'x=1' > memory-bank/run.sh && git add -A && git commit -q -m sneak")
	if _, err := os.Lstat(filepath.Join(root, "memory-bank/run.sh")); err == nil || !rep.Blocked() {
		t.Errorf("the committed write stands: %+v", rep)
	}
	rep = call(t, g, "commit2", "printf '# P\\nagent\\n' > memory-bank/details/progress.md && git commit -q -am sneak2 && git checkout -q HEAD~1 && git checkout -q -")
	if got := readBank(t, root, "memory-bank/details/progress.md"); got != "# Progress\n" {
		t.Errorf("progress.md = %q after commit + checkout, want the known-good bytes", got)
	}
}

// A call that runs a git command which rewrites the index (`git add`) and writes new bytes
// over uncommitted work is undone as the agent's own write, not blamed on git.
func TestGitDoesNotTakeTheBlameForAWrite(t *testing.T) {
	root, g := gitBank(t)
	call(t, g, "before", "")
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nmine\n")
	call(t, g, "absorb", "")
	rep := call(t, g, "w", "printf 'agent' > memory-bank/details/patterns.md && git add memory-bank")
	if got := readBank(t, root, "memory-bank/details/patterns.md"); got != "# Patterns\nmine\n" {
		t.Errorf("patterns.md = %q, want the person's", got)
	}
	for _, u := range rep.Undone {
		for _, w := range u.Why {
			if w.Rule == RuleGitDiscarded {
				t.Errorf("the agent's write is blamed on git: %+v", u)
			}
		}
	}
}
