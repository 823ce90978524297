package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testhost"
)

// TestClaudeCodeSandboxKernelE2E: real Claude Code with its sandbox on, as
// `mbguard install --agent claude --sandbox` leaves it. A shell command that computes the
// bank path at run time fails in the kernel, also after trying to remount or unmount the bank
// (as root too), and the model is told; the Write tool still writes a .md file in the bank.
func TestClaudeCodeSandboxKernelE2E(t *testing.T) {
	testhost.Short(t, "real Claude Code runs")
	testhost.Tool(t, "bwrap", "apt-get install -y bubblewrap socat")
	testhost.Tool(t, "socat", "apt-get install -y bubblewrap socat")
	p := newClaudeProject(t, 0)
	out, err := p.command(context.Background(), filepath.Join(p.bin, "mbguard"), "install", "--agent", "claude", "--no-skill", "--sandbox").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "sandbox on, denyWrite ./memory-bank") {
		t.Fatalf("install --sandbox: %v\n%s", err, out)
	}
	progress := "# Progress\n- queue skeleton done\n- retries wired\n"
	f := p.run([]step{
		{tool: "Bash", input: map[string]any{"command": `d=$(printf memory-)bank; mount -o remount,bind,rw "$d"; umount "$d"; echo x > "$d/late.json"; echo status=$?`, "description": "write a cache"}},
		{tool: "Write", input: map[string]any{"file_path": p.abs("memory-bank/details/progress.md"), "content": progress}},
	}, "note the progress", nil, "--allowedTools", "Bash")
	if _, err := os.Stat(p.abs("memory-bank/late.json")); !os.IsNotExist(err) {
		t.Errorf("the sandboxed shell wrote memory-bank/late.json")
	}
	if r := f.toolResults(1); !anyContains(r, "Read-only file system") {
		t.Errorf("the model was not told the write failed in the kernel; tool results %q", r)
	}
	if got := p.file("memory-bank/details/progress.md"); got != progress {
		t.Errorf("progress.md = %q: the Write tool could not write the bank", got)
	}
}
