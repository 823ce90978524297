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
