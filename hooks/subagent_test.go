package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// A subagent's tools may write without firing hooks: between SubagentStart and SubagentStop
// (through `hook claude`, in a real repository) a bank write that breaks the rules is the
// agent's and is undone at SubagentStop, even when the parent's turn stopped meanwhile (a
// background subagent); the model hears it with its next event; after SubagentStop a
// person's edit stands again.
func TestClaudeSubagentWindowIsTheAgents(t *testing.T) {
	for _, parentStops := range []bool{false, true} {
		name := "foreground"
		if parentStops {
			name = "background"
		}
		t.Run(name, func(t *testing.T) {
			root := bankRepo(t)
			h := newHookRun(t, root, nil)
			h.prompt("research in the background")
			want := bankState(t, root)
			if r := h.call("SubagentStart", map[string]any{"agent_id": "agent-7", "agent_type": "general-purpose"}); r.Exit != 0 || len(r.Stdout) != 0 {
				t.Fatalf("SubagentStart: exit %d stdout %s stderr %s", r.Exit, r.Stdout, r.Stderr)
			}
			if parentStops {
				h.call("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": "started it"})
			}
			// the subagent's shell writes without a hook
			os.WriteFile(filepath.Join(root, "memory-bank/run.sh"), []byte("x=1"), 0o644)
			stop := h.call("SubagentStop", map[string]any{"agent_id": "agent-7", "agent_type": "general-purpose",
				"stop_hook_active": false, "agent_transcript_path": filepath.Join(t.TempDir(), "a.jsonl")})
			if stop.Exit != 0 || strings.Contains(string(stop.Stdout), "block") {
				t.Fatalf("SubagentStop must not keep the subagent running: exit %d stdout %s", stop.Exit, stop.Stdout)
			}
			sameBank(t, want, bankState(t, root))
			if !quarantineHolds(t, root, "x=1") {
				t.Error("quarantine lacks the subagent's bytes")
			}
			if st := testgit.Git(t, root, "status", "--porcelain", "--", "memory-bank"); st != "" {
				t.Errorf("bank differs from HEAD: %s", st)
			}
			if out := h.prompt("what happened?"); !strings.Contains(string(out.Stdout), "memory-bank/run.sh") {
				t.Errorf("the next prompt's context does not name the undone write: %s", out.Stdout)
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

// The same write with no subagent window open is a person's: it stands (and is reported).
// This is the control that shows the window above is what made the difference.
func TestClaudeWriteOutsideSubagentWindowStands(t *testing.T) {
	root := bankRepo(t)
	h := newHookRun(t, root, nil)
	h.prompt("work")
	h.call("SubagentStart", map[string]any{"agent_id": "agent-8"})
	h.call("SubagentStop", map[string]any{"agent_id": "agent-8", "stop_hook_active": false})
	os.WriteFile(filepath.Join(root, "memory-bank/run.sh"), []byte("x=1"), 0o644)
	bashCall(t, h, "toolu_1", "true")
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/run.sh")); string(b) != "x=1" {
		t.Errorf("run.sh = %q: a write after SubagentStop was undone as the agent's", b)
	}
}

// A subagent's own Write that fires hooks keeps its call's window inside the subagent's: the
// allowed .md write stands at its post and at SubagentStop.
func TestClaudeSubagentHookedWriteStands(t *testing.T) {
	root := bankRepo(t)
	h := newHookRun(t, root, nil)
	h.prompt("work")
	h.readFile("memory-bank/details/patterns.md")
	h.call("SubagentStart", map[string]any{"agent_id": "agent-9", "agent_type": "general-purpose"})
	tech := filepath.Join(root, "memory-bank/details/tech.md")
	in := map[string]any{"file_path": tech, "content": "# Tech\nGo\n"}
	if r := h.call("PreToolUse", map[string]any{"tool_name": "Write", "tool_input": in, "tool_use_id": "w1", "agent_id": "agent-9"}); r.Exit != 0 {
		t.Fatalf("Write refused: %s", r.Stderr)
	}
	os.WriteFile(tech, []byte("# Tech\nGo\n"), 0o644)
	post := h.call("PostToolUse", map[string]any{"tool_name": "Write", "tool_input": in, "tool_use_id": "w1", "agent_id": "agent-9",
		"tool_response": map[string]any{"filePath": tech}})
	if strings.Contains(string(post.Stdout), `"block"`) {
		t.Fatalf("the subagent's allowed Write was undone: %s", post.Stdout)
	}
	h.call("SubagentStop", map[string]any{"agent_id": "agent-9", "stop_hook_active": false})
	if out := h.prompt("next"); strings.Contains(string(out.Stdout), "tech.md") {
		t.Errorf("the allowed write was reported as undone: %s", out.Stdout)
	}
	if b, _ := os.ReadFile(tech); string(b) != "# Tech\nGo\n" {
		t.Errorf("tech.md = %q, want the subagent's Write", b)
	}
}

// Codex CLI 0.169.0 sends SubagentStart and SubagentStop too (agent_id, agent_type): the same
// window, through `hook codex`.
func TestCodexSubagentWindowIsTheAgents(t *testing.T) {
	root := bankRepo(t)
	h := newHostRun(t, "codex", root, nil)
	h.call("UserPromptSubmit", map[string]any{"prompt": "delegate", "turn_id": "t1"})
	want := bankState(t, root)
	if r := h.call("SubagentStart", map[string]any{"agent_id": "thread-2", "agent_type": "default", "source": "startup"}); len(r.Stdout) != 0 {
		t.Fatalf("SubagentStart stdout %s", r.Stdout)
	}
	os.WriteFile(filepath.Join(root, "memory-bank/run.sh"), []byte("x=1"), 0o644)
	if r := h.call("SubagentStop", map[string]any{"agent_id": "thread-2", "agent_type": "default", "stop_hook_active": false}); len(r.Stdout) != 0 {
		t.Fatalf("SubagentStop must not continue the subagent: stdout %s", r.Stdout)
	}
	sameBank(t, want, bankState(t, root))
	if !quarantineHolds(t, root, "x=1") {
		t.Error("quarantine lacks the subagent's bytes")
	}
	if out := h.call("UserPromptSubmit", map[string]any{"prompt": "and?", "turn_id": "t2"}); !strings.Contains(string(out.Stdout), "memory-bank/run.sh") {
		t.Errorf("the next prompt's context does not name the undone write: %s", out.Stdout)
	}
}
