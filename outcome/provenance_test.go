package outcome

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

const evilJSON = "{\"evil\":1}\n"

// plumbCommit builds a commit on top of HEAD whose bank is HEAD's with edit applied to a
// private index, and names it feat: no bank file is written. edit is update-index arguments.
func plumbCommit(edit string) string {
	return `b=$(printf '{"evil":1}\n' | git hash-object -w --stdin) && export GIT_INDEX_FILE="$PWD/../private-index" && ` +
		`git read-tree HEAD && git update-index ` + edit + ` && t=$(git write-tree) && c=$(git commit-tree $t -p HEAD -m feat) && ` +
		`rm -f "$GIT_INDEX_FILE" && git branch feat $c`
}

var (
	addEvil    = plumbCommit(`--add --cacheinfo 100644,$b,memory-bank/details/evil.json`)
	dropMemory = plumbCommit(`--force-remove memory-bank/MEMORY.md`)
	// stashEvil stores a stash-like commit whose work tree holds evil.json
	stashEvil = `b=$(printf '{"evil":1}\n' | git hash-object -w --stdin) && export GIT_INDEX_FILE="$PWD/../private-index" && ` +
		`git read-tree HEAD && git update-index --add --cacheinfo 100644,$b,memory-bank/details/evil.json && t=$(git write-tree) && ` +
		`i=$(git commit-tree $t -p HEAD -m index) && w=$(git commit-tree $t -p HEAD -p $i -m "WIP on main") && rm -f "$GIT_INDEX_FILE" && ` +
		`git stash store -m wip $w && git branch feat $w`
)

// smuggles are the git operations that bring a commit named feat (or the stash) into the bank.
var smuggles = []struct{ name, op string }{
	{"merge --ff-only", "git merge -q --ff-only feat"},
	{"checkout", "git checkout -q feat"},
	{"cherry-pick", "git cherry-pick feat"},
	{"reset --hard", "git reset -q --hard feat"},
	{"am", "git format-patch -1 --stdout feat > ../p.patch && git am -q ../p.patch"},
	{"rebase", "git rebase -q feat"},
}

func revParse(t *testing.T, root, rev string) string {
	t.Helper()
	return strings.TrimSpace(testgit.Git(t, root, "rev-parse", rev))
}

// A commit the agent built with plumbing in one call, brought into the bank by git's own
// work in the next: its content is judged like a write, the bank ends as before, the bytes
// are in the quarantine and the message names the commit.
func TestAgentCommitIsJudged(t *testing.T) {
	type tc struct{ name, build, op, rule string }
	var cases []tc
	for _, s := range smuggles {
		cases = append(cases, tc{s.name + " evil.json", addEvil, s.op, "stray-file"})
		cases = append(cases, tc{s.name + " no MEMORY.md", dropMemory, s.op, RuleEntryGone})
	}
	cases = append(cases, tc{"stash pop evil.json", stashEvil, "git stash pop -q", "stray-file"},
		tc{"stash apply evil.json", stashEvil, "git stash apply -q", "stray-file"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, g := newBank(t)
			call(t, g, "build", c.build)
			want := snapshot(t, root)
			feat := revParse(t, root, "feat")
			rep := call(t, g, "bring", c.op)
			sameTree(t, want, snapshot(t, root))
			if !rep.Blocked() {
				t.Fatalf("nothing was undone")
			}
			msg := rep.Message("claude")
			if !strings.Contains(msg, short(feat)) && !strings.Contains(msg, short(revParse(t, root, "HEAD"))) {
				t.Errorf("the message does not name the commit %s:\n%s", short(feat), msg)
			}
			rules := map[string]bool{}
			for _, u := range rep.Undone {
				for _, w := range u.Why {
					rules[w.Rule] = true
				}
			}
			if !rules[RuleAgentCommit] {
				t.Errorf("the undo does not say the content came from the agent's commit: %v", rules)
			}
			if c.rule != "stray-file" && !rules[c.rule] {
				t.Errorf("rules %v, want %s", rules, c.rule)
			}
			if c.build != dropMemory {
				found := false
				for _, q := range quarantined(t, g) {
					found = found || q == evilJSON
				}
				if !found {
					t.Errorf("the quarantine lacks the commit's bytes: %q", quarantined(t, g))
				}
			}
			// the next call starts from the bank as it was: nothing comes back
			if rep := call(t, g, "next", ""); rep.Blocked() {
				t.Errorf("the next call undid more: %+v", rep.Undone)
			}
			sameTree(t, want, snapshot(t, root))
		})
	}
}

// A write the agent stashed in the same call never shows at that call's check; the stash is
// the agent's commit, and popping it later is judged.
func TestAgentStashOfAWriteIsJudged(t *testing.T) {
	root, g := newBank(t)
	want := snapshot(t, root)
	if rep := call(t, g, "hide", `printf '{"evil":1}\n' > memory-bank/details/evil.json && git add memory-bank && git stash -q`); rep.Blocked() {
		t.Logf("the hiding call: %s", rep.Message("claude"))
	}
	sameTree(t, want, snapshot(t, root))
	stash := short(revParse(t, root, "refs/stash"))
	rep := call(t, g, "pop", "git stash pop -q")
	sameTree(t, want, snapshot(t, root))
	if !rep.Blocked() || !strings.Contains(rep.Message("claude"), stash) {
		t.Errorf("the stashed write stands or the stash %s is not named: %s", stash, rep.Message("claude"))
	}
}

// A commit the agent made dangling in one call (commit-tree, no ref) and named in a later
// one (update-ref) is the agent's when the ref appears.
func TestDanglingAgentCommitNamedLater(t *testing.T) {
	root, g := newBank(t)
	call(t, g, "build", strings.Replace(addEvil, "git branch feat $c", "echo $c > ../dangling", 1))
	id, err := os.ReadFile(filepath.Join(root, "..", "dangling"))
	if err != nil {
		t.Fatal(err)
	}
	call(t, g, "name", "git update-ref refs/heads/feat "+strings.TrimSpace(string(id)))
	want := snapshot(t, root)
	rep := call(t, g, "bring", "git merge -q --ff-only feat")
	sameTree(t, want, snapshot(t, root))
	if !rep.Blocked() || !strings.Contains(rep.Message("claude"), short(strings.TrimSpace(string(id)))) {
		t.Errorf("the dangling commit's content stands or is not named: %s", rep.Message("claude"))
	}
}

// The same operations with a person's commit (made between calls) or a fetched one are
// git's own work on someone else's content: the bank ends as git put it, nothing is undone.
func TestPersonsAndFetchedCommitsAreAccepted(t *testing.T) {
	for _, who := range []string{"person", "fetched"} {
		for _, s := range smuggles {
			t.Run(who+" "+s.name, func(t *testing.T) {
				root, g := newBank(t)
				op := s.op
				switch who {
				case "person":
					sh(t, root, addEvil) // between calls
				case "fetched":
					bare := filepath.Join(t.TempDir(), "remote.git")
					testgit.Git(t, root, "init", "-q", "--bare", bare)
					testgit.Git(t, root, "remote", "add", "origin", bare)
					testgit.Git(t, root, "push", "-q", "origin", "main")
					mate := filepath.Join(t.TempDir(), "mate")
					testgit.Git(t, root, "clone", "-q", bare, mate)
					sh(t, mate, addEvil+" && git push -q origin feat")
					call(t, g, "fetch", "git fetch -q origin") // the agent fetches
					op = strings.ReplaceAll(op, "feat", "origin/feat")
				}
				call(t, g, "before", "")
				rep := call(t, g, "bring", op)
				if rep.Blocked() {
					t.Fatalf("a %s commit was undone: %s", who, rep.Message("claude"))
				}
				if got := readBank(t, root, "memory-bank/details/evil.json"); got != evilJSON {
					t.Errorf("evil.json = %q, want the %s commit's", got, who)
				}
				if q := quarantined(t, g); len(q) > 0 {
					t.Errorf("quarantine holds %q", q)
				}
			})
		}
	}
	t.Run("person stash pop", func(t *testing.T) {
		root, g := newBank(t)
		sh(t, root, stashEvil)
		call(t, g, "before", "")
		if rep := call(t, g, "bring", "git stash pop -q"); rep.Blocked() {
			t.Fatalf("the person's stash was undone: %s", rep.Message("claude"))
		}
		if got := readBank(t, root, "memory-bank/details/evil.json"); got != evilJSON {
			t.Errorf("evil.json = %q", got)
		}
	})
}

// A commit the agent made whose bank content breaks no rule is accepted like any git work.
func TestAgentCommitWithinTheRulesIsAccepted(t *testing.T) {
	root, g := newBank(t)
	call(t, g, "build", `b=$(printf '# Topic\nok\n' | git hash-object -w --stdin) && export GIT_INDEX_FILE="$PWD/../private-index" && `+
		`git read-tree HEAD && git update-index --add --cacheinfo 100644,$b,memory-bank/details/topic.md && t=$(git write-tree) && `+
		`git branch feat $(git commit-tree $t -p HEAD -m feat)`)
	rep := call(t, g, "bring", "git merge -q --ff-only feat")
	bankClean(t, root, g, rep)
	if got := readBank(t, root, "memory-bank/details/topic.md"); got != "# Topic\nok\n" {
		t.Errorf("topic.md = %q", got)
	}
}

// The pre check refuses what it can see: a git command naming the agent's commit (or a patch
// file of it for am) whose bank content breaks the rules. A person's commit, a read of the
// agent's commit and a commit within the rules are not refused.
func TestRefuseGitBringingAgentCommit(t *testing.T) {
	root, g := newBank(t)
	call(t, g, "build", addEvil+` && git format-patch -q -1 -o ../patches feat`)
	feat := short(revParse(t, root, "feat"))
	for _, cmd := range []string{
		"git merge --ff-only feat", "git checkout -q feat", "git switch --detach feat", "git cherry-pick feat",
		"git reset --hard feat", "git rebase --onto feat main", "git am -3 ../patches/0001-feat.patch",
		"git status && git -c core.pager=cat merge feat~0",
	} {
		if msg := g.RefuseGit(cmd, root); !strings.Contains(msg, feat) || !strings.Contains(msg, "evil.json") {
			t.Errorf("%q: refusal %q, want one naming %s and evil.json", cmd, msg, feat)
		}
	}
	for _, cmd := range []string{"git log feat", "git show feat:memory-bank/details/evil.json", "git merge main", "git checkout -- memory-bank", "echo git merge feat"} {
		if msg := g.RefuseGit(cmd, root); msg != "" {
			t.Errorf("%q refused: %s", cmd, msg)
		}
	}
	// the person's own commit, made between calls
	sh(t, root, strings.NewReplacer("git branch feat", "git branch mine", "-m feat", "-m mine").Replace(addEvil))
	call(t, g, "later", "")
	if msg := g.RefuseGit("git merge --ff-only mine", root); msg != "" {
		t.Errorf("the person's commit was refused: %s", msg)
	}
}

// A repository without a bank gets no record of commits: nothing is written for it.
func TestNoCommitRecordWithoutABank(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "src/main.go", "package main\n")
	testgit.Commit(t, root, "init")
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	g := New(r, Options{Rules: rulesFor(root)})
	call(t, g, "c1", "git branch x")
	for _, p := range g.commitPaths() {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written for a repository without a bank", p)
		}
	}
}
