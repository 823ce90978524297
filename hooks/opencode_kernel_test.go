package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/jail"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// TestOpenCodePluginKernelRewrite: with kernel.mode on, the real plugin and serve child
// rewrite a shell call to run under `mbguard jail`; the rewritten command, run as OpenCode
// runs it, cannot write the bank with a run-time path, keeps its output and status, and
// writes elsewhere. With kernel.mode off the command is left alone.
func TestOpenCodePluginKernelRewrite(t *testing.T) {
	nodeBinary(t)
	bin := filepath.Join(buildMbguard(t), "mbguard")
	if _, err := jail.Probe(bin); err != nil {
		testhost.Missing(t, "a jail primitive (user namespaces or bwrap)", "apt-get install -y bubblewrap ("+err.Error()+")")
	}
	dir := testgit.New(t)
	testgit.Write(t, dir, "memory-bank/MEMORY.md", "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
	cmd := `d=$(printf memory-)bank; echo x > "$d/late.json"; echo out; echo ok > notes.txt; exit 4`
	for _, mode := range []string{"off", "on"} {
		t.Run(mode, func(t *testing.T) {
			res := runHarness(t, dir, []string{"MBGUARD_BIN=" + bin, "MBGUARD_KERNEL_MODE=" + mode}, []harnessStep{
				{Hook: "chat.message", Input: map[string]any{"sessionID": "s"}, Output: map[string]any{"message": map[string]any{"id": "m1"}, "parts": []any{}}},
				before("s", "c1", "bash", map[string]any{"command": cmd}),
			})
			if res[1].Threw {
				t.Fatalf("shell call blocked: %s", res[1].Message)
			}
			args, _ := res[1].Output["args"].(map[string]any)
			got, _ := args["command"].(string)
			if mode == "off" {
				if got != cmd {
					t.Errorf("kernel.mode off rewrote the command to %q", got)
				}
				return
			}
			if got == cmd || !strings.HasSuffix(got, " "+jail.Quote(cmd)) {
				t.Fatalf("command = %q, want it under the jail", got)
			}
			sh := exec.Command("/bin/sh", "-c", got)
			sh.Dir = dir
			out, err := sh.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
				t.Errorf("exit = %v, want 4\n%s", err, out)
			}
			if !strings.Contains(string(out), "Read-only file system") || !strings.Contains(string(out), "out\n") {
				t.Errorf("output = %q, want EROFS and the command's own output", out)
			}
			if _, err := os.Stat(filepath.Join(dir, "memory-bank", "late.json")); !os.IsNotExist(err) {
				t.Errorf("the jailed shell wrote the bank: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "ok\n" {
				t.Errorf("notes.txt = %q, want the write outside the bank", b)
			}
		})
	}
}
