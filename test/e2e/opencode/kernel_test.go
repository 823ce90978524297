package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testhost"
)

// TestOpenCodeKernelLine: with kernel.mode on, the plugin runs the model's bash call under the
// jail. A bank path computed at run time fails with EROFS in the kernel (not undone after the
// fact), also after trying to remount or unmount the bank (as root too), and the model reads
// why; the write tool still writes a .md file in the bank.
func TestOpenCodeKernelLine(t *testing.T) {
	testhost.Tool(t, "bwrap", "apt-get install -y bubblewrap")
	progress := "# Progress\n- retries wired\n"
	model := startFakeModel(t, []step{
		{Tool: "bash", Args: map[string]any{"command": `d=$(printf memory-)bank; mount -o remount,bind,rw "$d"; umount "$d"; echo x > "$d/late.json"; echo status=$?`, "description": "write a cache"}},
		{Tool: "write", Args: map[string]any{"filePath": "memory-bank/details/progress.md", "content": progress}},
	})
	w := newWorld(t, model)
	out := w.run(t, []string{"MBGUARD_KERNEL_MODE=on"}, "note", "the", "progress")

	reqs := model.agentRequests()
	if len(reqs) < 3 {
		t.Fatalf("the model got %d agent requests, want 3\n%s", len(reqs), out)
	}
	res := reqs[2].toolResults()
	if len(res) < 2 || !strings.Contains(res[0], "Read-only file system") || !strings.Contains(res[0], "status=1") {
		t.Errorf("the bash result the model read lacks the kernel's refusal: %q", res)
	}
	if strings.Contains(strings.Join(res, "\n"), "[mbguard] undid") {
		t.Errorf("the write reached the bank and was undone after; want it refused by the kernel: %q", res)
	}
	if _, err := os.Stat(filepath.Join(w.project, "memory-bank/late.json")); err == nil {
		t.Error("memory-bank/late.json was written by the jailed shell")
	}
	if b, _ := os.ReadFile(filepath.Join(w.project, "memory-bank/details/progress.md")); string(b) != progress {
		t.Errorf("progress.md = %q: the write tool could not write the bank", b)
	}
}
