package hooks

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/outcome"
)

// bankState is everything under memory-bank/: kind, mode and bytes (a symlink's target).
func bankState(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(filepath.Join(root, "memory-bank"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			s, _ := os.Readlink(p)
			v += " -> " + s
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = v
		return nil
	})
	return out
}

func sameBank(t *testing.T, want, got map[string]string) {
	t.Helper()
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s afterwards = %q, want %q", p, got[p], w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s left over afterwards", p)
		}
	}
}

// outcomeAttacks are scripts an agent could run through a shell tool; each writes into the
// bank in a way the rules forbid, with bytes that must end up in the quarantine.
var outcomeAttacks = []struct {
	name, script, bytes string
}{
	{"non-md file", "printf 'x=1' > memory-bank/run.sh", "x=1"},
	{"broken marker", "sed -i 's/MACHINE_BLOCK_END/MACHINE_BLOK_END/' memory-bank/MEMORY.md", "MACHINE_BLOK_END"},
	{"user block", "sed -i 's/my notes/agent notes/' memory-bank/MEMORY.md", "agent notes"},
	{"delete entry", "rm memory-bank/MEMORY.md", ""},
	{"rename", "mv memory-bank/details/patterns.md memory-bank/details/old.md", "use the queue"},
	{"chmod", "chmod 600 memory-bank/details/progress.md", ""},
	{"hard link", "ln memory-bank/details/progress.md ./progress-link", ""},
	{"symlink", "ln -s ../../src/app.go memory-bank/details/app.md", "../../src/app.go"},
	{"secret", "printf 'key ghp_%s\\n' 8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo >> memory-bank/details/progress.md", "ghp_"},
	{"new dirs", "mkdir -p memory-bank/a/b && printf deep > memory-bank/a/b/c.md", "deep"},
	// the whole folder gone: the repository must still count as one with a bank
	{"remove the bank", "rm -rf memory-bank", ""},
	{"rename the bank", "mv memory-bank memory-bank.old", ""},
	{"bank replaced by a file", "mv memory-bank mb.old && printf flat > memory-bank", "flat"},
	{"bank and state removed", "rm -rf memory-bank .git/mbguard .git/refs/mbguard", ""},
}

func runScript(t *testing.T, root, script string) {
	t.Helper()
	cmd := exec.Command("bash", "tools/step.sh")
	cmd.Dir = root
	if err := os.WriteFile(filepath.Join(root, "tools", "step.sh"), []byte(script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

func quarantineHolds(t *testing.T, root, want string) bool {
	t.Helper()
	r, _ := repo.Find(root)
	qs, _ := outcome.ListQuarantine(r)
	for _, q := range qs {
		for _, e := range q.Entries {
			b, _ := outcome.ReadQuarantined(r, q, e)
			if strings.Contains(string(b), want) {
				return true
			}
		}
	}
	return false
}

func TestClaudeOutcomeUndoesScriptAttacks(t *testing.T) {
	for _, a := range outcomeAttacks {
		t.Run(a.name, func(t *testing.T) {
			root := bankRepo(t)
			os.MkdirAll(filepath.Join(root, "tools"), 0o755)
			h := newHookRun(t, root, nil)
			h.prompt("tidy up")
			want := bankState(t, root)
			input := map[string]any{"command": "bash tools/step.sh", "description": "step"}
			pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_1"})
			if pre.Exit != 0 {
				t.Fatalf("pre refused the script call (the test needs it to run): %s", pre.Stderr)
			}
			runScript(t, root, a.script)
			post := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_1",
				"tool_response": map[string]any{"stdout": "", "stderr": "", "interrupted": false}})
			sameBank(t, want, bankState(t, root))
			if post.Exit != 0 {
				t.Errorf("PostToolUse exit %d, want 0 with decision block", post.Exit)
			}
			var out struct {
				Decision string `json:"decision"`
				Reason   string `json:"reason"`
			}
			if err := json.Unmarshal(post.Stdout, &out); err != nil || out.Decision != "block" {
				t.Fatalf("PostToolUse stdout = %s, want decision block", post.Stdout)
			}
			if !strings.Contains(out.Reason, "mbguard quarantine show") && a.bytes != "" || !strings.Contains(out.Reason, "Write or Edit") {
				t.Errorf("reason does not name the quarantine and the tool to use:\n%s", out.Reason)
			}
			if strings.Contains(out.Reason, "8x3KfTq2") {
				t.Error("reason leaks the secret")
			}
			if a.bytes != "" && !quarantineHolds(t, root, a.bytes) {
				t.Errorf("quarantine lacks %q", a.bytes)
			}
			if st := testgit.Git(t, root, "status", "--porcelain", "--", "memory-bank"); st != "" {
				t.Errorf("bank differs from HEAD: %s", st)
			}
		})
	}
}

func TestClaudeOutcomeKeepsGoodWork(t *testing.T) {
	root := bankRepo(t)
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	h := newHookRun(t, root, nil)
	h.prompt("work")
	h.readFile("memory-bank/details/patterns.md")
	// an allowed Write of a valid .md is kept
	tech := filepath.Join(root, "memory-bank/details/tech.md")
	in := map[string]any{"file_path": tech, "content": "# Tech\nGo\n"}
	if r := h.call("PreToolUse", map[string]any{"tool_name": "Write", "tool_input": in, "tool_use_id": "w1"}); r.Exit != 0 {
		t.Fatalf("Write refused: %s", r.Stderr)
	}
	os.WriteFile(tech, []byte("# Tech\nGo\n"), 0o644)
	post := h.call("PostToolUse", map[string]any{"tool_name": "Write", "tool_input": in, "tool_use_id": "w1", "tool_response": map[string]any{"filePath": tech}})
	if strings.Contains(string(post.Stdout), `"block"`) {
		t.Fatalf("allowed Write undone: %s", post.Stdout)
	}
	// a person edits between calls
	os.WriteFile(filepath.Join(root, "memory-bank/details/progress.md"), []byte("# Progress\nhuman\n"), 0o644)
	// a harmless command writes outside the bank
	cmd := map[string]any{"command": "bash tools/step.sh"}
	h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": cmd, "tool_use_id": "b1"})
	runScript(t, root, "printf 'package app // v2\\n' > src/app.go")
	post = h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": cmd, "tool_use_id": "b1", "tool_response": map[string]any{}})
	if strings.Contains(string(post.Stdout), `"block"`) {
		t.Fatalf("harmless call blocked: %s", post.Stdout)
	}
	for p, want := range map[string]string{"memory-bank/details/tech.md": "# Tech\nGo\n", "memory-bank/details/progress.md": "# Progress\nhuman\n", "src/app.go": "package app // v2\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, p)); string(b) != want {
			t.Errorf("%s = %q, want %q", p, b, want)
		}
	}
}

// TestClaudeOutcomeAfterFailedCall: Claude Code sends PostToolUseFailure, not PostToolUse,
// when a tool fails (here a Bash command that writes into the bank and then exits 1). The
// payload's shape is the documented one (error and is_interrupt instead of tool_response).
// The write is undone at this call's own post, and the model hears it through
// additionalContext, the one output that event documents.
func TestClaudeOutcomeAfterFailedCall(t *testing.T) {
	for _, ev := range []string{"PostToolUseFailure", "PostToolUse"} {
		t.Run(ev, func(t *testing.T) {
			root := bankRepo(t)
			os.MkdirAll(filepath.Join(root, "tools"), 0o755)
			h := newHookRun(t, root, nil)
			h.prompt("tidy up")
			want := bankState(t, root)
			input := map[string]any{"command": "bash tools/step.sh", "description": "step"}
			if pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_f"}); pre.Exit != 0 {
				t.Fatalf("pre refused the script call: %s", pre.Stderr)
			}
			runScript(t, root, "printf 'x=1' > memory-bank/run.sh; exit 0")
			payload := map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_f"}
			if ev == "PostToolUseFailure" {
				payload["error"] = "Command exited with non-zero status code 1"
				payload["is_interrupt"] = false
			} else {
				payload["tool_response"] = map[string]any{"stdout": ""}
			}
			post := h.call(ev, payload)
			sameBank(t, want, bankState(t, root))
			if !quarantineHolds(t, root, "x=1") {
				t.Error("quarantine lacks the script's bytes")
			}
			if post.Exit != 0 {
				t.Fatalf("%s exit %d: %s", ev, post.Exit, post.Stderr)
			}
			var out struct {
				Decision string `json:"decision"`
				Reason   string `json:"reason"`
				Specific struct {
					Event   string `json:"hookEventName"`
					Context string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(post.Stdout, &out); err != nil {
				t.Fatalf("stdout %s: %v", post.Stdout, err)
			}
			text := out.Reason
			if ev == "PostToolUseFailure" {
				if out.Decision != "" || out.Specific.Event != ev {
					t.Errorf("stdout = %s, want hookSpecificOutput for %s", post.Stdout, ev)
				}
				text = out.Specific.Context
			} else if out.Decision != "block" {
				t.Errorf("stdout = %s, want decision block", post.Stdout)
			}
			if !strings.Contains(text, "memory-bank/run.sh") || !strings.Contains(text, "mbguard quarantine show") {
				t.Errorf("the model is not told what was undone:\n%s", text)
			}
		})
	}
}

// Copilot CLI sends postToolUseFailure for a failed call (HOSTS.md): a script that wrote into
// the bank before failing is undone at that event, and the model is told.
func TestCopilotOutcomeAfterFailedCall(t *testing.T) {
	root := bankRepo(t)
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	h := newHostRun(t, "copilot", root, nil)
	h.prompt("tidy up")
	want := bankState(t, root)
	args := map[string]any{"command": "bash tools/step.sh", "description": "step"}
	h.call("preToolUse", map[string]any{"toolName": "bash", "toolArgs": args})
	runScript(t, root, "printf 'x=1' > memory-bank/run.sh")
	r := h.call("postToolUseFailure", map[string]any{"toolName": "bash", "toolArgs": args, "error": "exit code 1"})
	sameBank(t, want, bankState(t, root))
	if !quarantineHolds(t, root, "x=1") {
		t.Error("quarantine lacks the script's bytes")
	}
	if !strings.Contains(string(r.Stdout), "memory-bank/run.sh") {
		t.Errorf("reply %s does not tell the model what was undone", r.Stdout)
	}
}

// A Read that failed (PostToolUseFailure) read nothing: it opens no read gate.
func TestClaudePostToolUseFailureGivesNoReadCredit(t *testing.T) {
	root := bankRepo(t)
	h := newHookRun(t, root, map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	h.prompt("p")
	path := filepath.Join(root, "memory-bank/details/patterns.md")
	in := map[string]any{"file_path": path}
	h.call("PreToolUse", map[string]any{"tool_name": "Read", "tool_input": in, "tool_use_id": "r1"})
	h.call("PostToolUseFailure", map[string]any{"tool_name": "Read", "tool_input": in, "tool_use_id": "r1", "error": "EACCES", "is_interrupt": false})
	write := map[string]any{"file_path": filepath.Join(root, "go.mod"), "content": "module x\n"}
	if r := h.pre("Write", write); r.Exit != 2 {
		t.Fatalf("after a failed Read the write was allowed (exit %d): the read gate opened", r.Exit)
	}
	h.readFile("memory-bank/details/patterns.md")
	if r := h.pre("Write", write); r.Exit != 0 {
		t.Fatalf("after a successful Read: refused %s", r.Stderr)
	}
}
