package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
)

// bashCall runs one Bash call through the real hook protocol: PreToolUse, the command, then
// PostToolUse. It returns the post reply's stdout.
func bashCall(t *testing.T, h *hookRun, id, command string) string {
	t.Helper()
	input := map[string]any{"command": command, "description": "step"}
	pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": id})
	if pre.Exit != 0 {
		t.Fatalf("pre refused %q: %s", command, pre.Stderr)
	}
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = h.root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	post := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": id,
		"tool_response": map[string]any{"stdout": "", "stderr": "", "interrupted": false}})
	return string(post.Stdout)
}

// An agent's `git checkout` of a branch whose commits change the bank, through `hook claude`:
// the bank ends as the branch has it, `git status` is clean, nothing is undone.
func TestClaudeGitCheckoutKeepsTheBranchBank(t *testing.T) {
	root := bankRepo(t)
	testgit.Git(t, root, "switch", "-q", "-c", "feature")
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nuse the queue\nteam: retries\n")
	testgit.Write(t, root, "memory-bank/topics/db.md", "# DB\npostgres\n")
	testgit.Commit(t, root, "feature: bank")
	testgit.Git(t, root, "switch", "-q", "main")
	h := newHookRun(t, root, nil)
	h.prompt("switch to the feature branch")
	if out := bashCall(t, h, "toolu_g1", "git checkout -q feature"); strings.Contains(out, `"block"`) {
		t.Fatalf("git checkout was undone: %s", out)
	}
	if st := testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all", "--", "memory-bank"); st != "" {
		t.Errorf("bank differs from the branch:\n%s", st)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/topics/db.md")); string(b) != "# DB\npostgres\n" {
		t.Errorf("topics/db.md = %q", b)
	}
	if quarantineHolds(t, root, "retries") || quarantineHolds(t, root, "postgres") {
		t.Error("git's bytes went into the quarantine")
	}
}

// A person's edit after a call that never reported a result (refused, failed, or the turn
// stopped), through `hook claude`: the next call leaves it standing.
func TestClaudeClosedWindowKeepsPersonsEdit(t *testing.T) {
	for _, ev := range []string{"PermissionDenied", "Stop", "PostToolUseFailure", "UserPromptSubmit"} {
		t.Run(ev, func(t *testing.T) {
			root := bankRepo(t)
			h := newHookRun(t, root, nil)
			h.prompt("tidy up")
			input := map[string]any{"command": "rm -rf build", "description": "clean"}
			if pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_d"}); pre.Exit != 0 {
				t.Fatalf("pre refused: %s", pre.Stderr)
			}
			switch ev {
			case "PermissionDenied":
				h.call(ev, map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_d", "reason": "denied"})
			case "Stop":
				h.call(ev, map[string]any{"stop_hook_active": false, "last_assistant_message": "done"})
			case "PostToolUseFailure":
				h.call(ev, map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_d", "error": "exit 1", "is_interrupt": false})
			case "UserPromptSubmit":
				h.prompt("never mind")
			}
			human := "# Progress\nthe person's words\n"
			os.WriteFile(filepath.Join(root, "memory-bank/details/progress.md"), []byte(human), 0o644)
			if out := bashCall(t, h, "toolu_n", "true"); strings.Contains(out, `"block"`) {
				t.Errorf("the next call undid the person's edit: %s", out)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/details/progress.md")); string(b) != human {
				t.Errorf("progress.md = %q, want the person's", b)
			}
		})
	}
}

// A background job's late write into the bank, through `hook claude`: with no evidence that
// the job made it, the next call's context reports it (call and processes named), and it is
// kept — mbguard never reverts what may be a person's edit.
func TestClaudeBackgroundWriteIsReported(t *testing.T) {
	root := bankRepo(t)
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	done := filepath.Join(t.TempDir(), "done")
	os.WriteFile(filepath.Join(root, "tools", "bg.sh"), []byte("cd /tmp\nsleep 1\nd=$(echo memory-bXnk | tr X a); echo x > \""+root+"/$d/a.json\"\n: > "+done+"\n"), 0o755)
	h := newHookRun(t, root, nil)
	h.prompt("start the job")
	if out := bashCall(t, h, "toolu_bg", "(setsid bash tools/bg.sh) >/dev/null 2>&1 < /dev/null &"); strings.Contains(out, `"block"`) {
		t.Fatalf("the call itself was blocked: %s", out)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the job never wrote")
		}
	}
	input := map[string]any{"command": "true", "description": "next"}
	pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_next"})
	text := string(pre.Stdout) + pre.Stderr
	if !strings.Contains(text, "memory-bank/a.json") || !strings.Contains(text, "toolu_bg") {
		t.Errorf("the next call's context does not report the job's write: %s", text)
	}
	if b, err := os.ReadFile(filepath.Join(root, "memory-bank/a.json")); err != nil || string(b) != "x\n" {
		t.Errorf("a.json = %q, %v: reverted without evidence", b, err)
	}
}

// plumbEvil builds, without writing a bank file, a commit whose bank holds details/evil.json
// and names it feat.
const plumbEvil = `b=$(printf '{"evil":1}\n' | git hash-object -w --stdin) && export GIT_INDEX_FILE="$PWD/../private-index" && ` +
	`git read-tree HEAD && git update-index --add --cacheinfo 100644,$b,memory-bank/details/evil.json && ` +
	`t=$(git write-tree) && c=$(git commit-tree $t -p HEAD -m feat) && rm -f "$GIT_INDEX_FILE" && git branch feat $c`

// A commit the agent built with plumbing in one call and merged in the next, through `hook
// claude`: the merge's bank content is judged like a write, undone, and the reply names the
// commit. The same commit made by the person between calls stands.
func TestClaudeAgentCommitIsJudged(t *testing.T) {
	for _, who := range []string{"agent", "person"} {
		t.Run(who, func(t *testing.T) {
			root := bankRepo(t)
			h := newHookRun(t, root, nil)
			h.prompt("build the feature")
			if who == "agent" {
				if out := bashCall(t, h, "toolu_b", plumbEvil); strings.Contains(out, `"block"`) {
					t.Fatalf("the plumbing call itself was blocked: %s", out)
				}
			} else {
				cmd := exec.Command("bash", "-c", plumbEvil)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
			}
			feat := testgit.Git(t, root, "rev-parse", "--short=7", "feat")
			// the branch is named at run time: the pre check cannot see it, the post check judges
			out := bashCall(t, h, "toolu_m", "git merge -q --ff-only $(echo feat)")
			_, err := os.Stat(filepath.Join(root, "memory-bank/details/evil.json"))
			if who == "person" {
				if strings.Contains(out, `"block"`) || err != nil {
					t.Fatalf("the person's commit was undone: %s", out)
				}
				return
			}
			if err == nil {
				t.Error("evil.json stands in the bank")
			}
			if !strings.Contains(out, `"block"`) || !strings.Contains(out, feat) {
				t.Errorf("the reply does not block and name commit %s: %s", feat, out)
			}
			if !quarantineHolds(t, root, `{"evil":1}`) {
				t.Error("the quarantine lacks the commit's bytes")
			}
		})
	}
}

// The pre check refuses a git command that names the agent's own commit when its bank content
// breaks the rules, through `hook claude`; the same command for a person's commit, and a read
// of the agent's commit, run.
func TestClaudeRefusesBringingAgentCommit(t *testing.T) {
	root := bankRepo(t)
	h := newHookRun(t, root, nil)
	h.prompt("build the feature")
	if out := bashCall(t, h, "toolu_b", plumbEvil); strings.Contains(out, `"block"`) {
		t.Fatalf("the plumbing call itself was blocked: %s", out)
	}
	feat := testgit.Git(t, root, "rev-parse", "--short=7", "feat")
	for i, command := range []string{"git merge --ff-only feat", "cd . && git checkout feat", "git -C . cherry-pick feat", "git reset --soft feat", "git switch --detach feat", "git rebase feat"} {
		input := map[string]any{"command": command, "description": "step"}
		pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_r" + string(rune('a'+i))})
		text := string(pre.Stdout) + pre.Stderr
		if !strings.Contains(text, "deny") && pre.Exit == 0 || !strings.Contains(text, feat) {
			t.Errorf("%q was not refused naming %s: exit %d %s", command, feat, pre.Exit, text)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank/details/evil.json")); err == nil {
		t.Error("evil.json reached the bank")
	}
	if out := bashCall(t, h, "toolu_log", "git log -1 feat && git show --stat feat"); strings.Contains(out, `"block"`) {
		t.Errorf("reading the agent's commit was blocked: %s", out)
	}
}
