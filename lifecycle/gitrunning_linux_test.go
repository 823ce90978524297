package lifecycle

import (
	"os/exec"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
)

// gitRunning reads the real process table (internal/proctab): a git process that waits on
// its input is seen. Other tests' git commands may run too, so only the positive is asserted.
func TestGitRunningSeesARealGit(t *testing.T) {
	root := testgit.New(t)
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = root
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		running, known := gitRunning()
		if !known {
			t.Fatal("the process table is not readable on Linux")
		}
		if running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a running git cat-file --batch was not seen")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
