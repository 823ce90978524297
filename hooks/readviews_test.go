package hooks

import (
	"os/exec"
	"strings"
	"testing"
)

// runShell runs cmd in root with bash, as the host would after its pre-tool hook allowed it, and
// returns what it printed.
func runShell(t *testing.T, root, cmd string) string {
	t.Helper()
	c := exec.Command("bash", "-c", cmd)
	c.Dir = root
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	return string(out)
}

// harmlessReads are read pipelines over a bank file that write nothing: they run on every host.
var harmlessReads = []string{
	"basenc --base64url memory-bank/MEMORY.md",
	"tar cf - memory-bank/MEMORY.md | tar xf - -O",
	"gzip -c memory-bank/MEMORY.md | gunzip",
}

// The harmless read pipelines are allowed and really run on Claude Code and Qwen Code; the bank
// is as before, and a shell write into the bank afterwards is still refused.
func TestHarmlessReadPipelinesRun(t *testing.T) {
	t.Run("claude", func(t *testing.T) {
		root := bankRepo(t)
		h := newHookRun(t, root, nil)
		h.prompt("show me the memory")
		want := bankState(t, root)
		for _, cmd := range harmlessReads {
			in := map[string]any{"command": cmd}
			if r := h.pre("Bash", in); r.Exit != 0 {
				t.Fatalf("%s: refused: %s", cmd, r.Stderr)
			}
			out := runShell(t, root, cmd)
			r := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": in,
				"tool_response": map[string]any{"stdout": out, "stderr": "", "interrupted": false}})
			if strings.Contains(string(r.Stdout), `"decision":"block"`) {
				t.Fatalf("%s: post-tool reply %s", cmd, r.Stdout)
			}
		}
		sameBank(t, want, bankState(t, root))
		if r := h.pre("Bash", map[string]any{"command": "echo x > memory-bank/a.js"}); r.Exit != 2 {
			t.Fatalf("a shell write into the bank after the reads: exit %d, want the refusal", r.Exit)
		}
	})
	t.Run("qwen", func(t *testing.T) {
		root := bankRepo(t)
		h := newHostRun(t, "qwen", root, nil)
		h.prompt("show me the memory")
		want := bankState(t, root)
		for _, cmd := range harmlessReads {
			ev, in := shapes["qwen"].shell(h, cmd)
			if got := denied(t, "qwen", h.call(ev, in)); got != "" {
				t.Fatalf("%s: refused: %s", cmd, got)
			}
			runShell(t, root, cmd)
		}
		sameBank(t, want, bankState(t, root))
		ev, in := shapes["qwen"].shell(h, "echo x > memory-bank/a.js")
		if got := denied(t, "qwen", h.call(ev, in)); got == "" {
			t.Fatal("a shell write into the bank after the reads was allowed")
		}
	})
}
