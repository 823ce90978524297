package outcome

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mbguard/mbguard/internal/repo"
)

const helperEnv = "MBGUARD_OUTCOME_KILL_HELPER"

// TestKillHelperProcess is not a test on its own: TestKill9BetweenPreAndPost runs the test
// binary with helperEnv set, and this function then plays a hook process that ran the pre
// check, let an agent's command write into the bank, and dies by SIGKILL before the post.
func TestKillHelperProcess(t *testing.T) {
	root := os.Getenv(helperEnv)
	if root == "" {
		return
	}
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	g := New(r, Options{Rules: rulesFor(root)})
	if _, err := g.Before(Call{ID: "doomed", Session: "s", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "memory-bank/details/patterns.md"), []byte("overwritten by a killed call"), 0o644)
	os.WriteFile(filepath.Join(root, "memory-bank/loot.bin"), []byte("binary loot"), 0o644)
	os.Stdout.WriteString("ready\n")
	select {} // wait for SIGKILL
}

func TestKill9BetweenPreAndPost(t *testing.T) {
	for _, tc := range []struct {
		name string
		next func(g *Guard) Report
	}{
		// the next call's post check covers the lost one: its bytes are nobody's allowed write
		{"next post covers it", func(g *Guard) Report {
			g.Before(Call{ID: "next", Session: "s", Tool: "Bash"})
			rep, _ := g.After(Call{ID: "next", Session: "s", Tool: "Bash"})
			return rep
		}},
		// a new user message closes the lost call's window: it is settled then
		{"new message settles it", func(g *Guard) Report {
			rep, _ := g.End("s", "", true)
			return rep
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, g := newBank(t)
			want := snapshot(t, root)
			cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelperProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperEnv+"="+root)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if strings.TrimSpace(line) != "ready" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("helper said %q", line)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || st.Signal() != syscall.SIGKILL {
				t.Fatalf("helper was not killed by SIGKILL: %v", cmd.ProcessState)
			}
			rep := tc.next(g)
			if !rep.Blocked() {
				t.Fatalf("the killed call's changes were not undone: %+v", rep)
			}
			sameTree(t, want, snapshot(t, root))
			kept := strings.Join(quarantined(t, g), "|")
			for _, b := range []string{"overwritten by a killed call", "binary loot"} {
				if !strings.Contains(kept, b) {
					t.Errorf("quarantine lacks %q", b)
				}
			}
			if in := g.loadInflight(); len(in.Calls) > 1 {
				t.Errorf("calls left in flight: %+v", in.Calls)
			}
		})
	}
}
