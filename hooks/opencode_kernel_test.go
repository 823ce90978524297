//go:build unix

package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	// a run-time path now, and a delayed write by a job that outlives the call, detached
	cmd := `d=$(printf memory-)bank; echo x > "$d/late.json"; echo out; echo ok > notes.txt; export d; ` +
		`setsid sh -c '(sleep 1; echo x > "$d/delayed.json" 2>/dev/null; echo $? > job.done) &' >/dev/null 2>&1; exit 4`
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
			deadline := time.Now().Add(20 * time.Second)
			for {
				if b, _ := os.ReadFile(filepath.Join(dir, "job.done")); len(b) > 0 || time.Now().After(deadline) {
					if strings.TrimSpace(string(b)) == "" || strings.TrimSpace(string(b)) == "0" {
						t.Errorf("the detached job's write: status %q, want a failure", b)
					}
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if _, err := os.Stat(filepath.Join(dir, "memory-bank", "delayed.json")); !os.IsNotExist(err) {
				t.Errorf("a detached job of the jailed shell wrote the bank after the call: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "ok\n" {
				t.Errorf("notes.txt = %q, want the write outside the bank", b)
			}
		})
	}
}
