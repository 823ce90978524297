package claude

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// TestClaudeCodeSandboxCosts measures what turning Claude Code's sandbox on changes for a
// user of `mbguard install --agent claude` besides the bank (docs/hosts/kernel.md): the same
// allowed Bash calls run once without and once with `install --sandbox`. With it, a write
// outside the project and a request to a local server fail, and the agent's own `git
// checkout` of a branch whose bank differs fails on the read-only bank; a write in the
// project, a read of the bank and a plain tool run alike. (Without --allowedTools the
// permission prompts are the same both ways: Claude Code 2.1.332 leaves
// sandbox.autoAllowBashIfSandboxed false, and install does not set it.) These costs are why the sandbox
// stays behind --sandbox.
func TestClaudeCodeSandboxCosts(t *testing.T) {
	testhost.Short(t, "real Claude Code runs")
	testhost.Tool(t, "bwrap", "apt-get install -y bubblewrap socat")
	testhost.Tool(t, "socat", "apt-get install -y bubblewrap socat")
	var mu sync.Mutex
	results := map[bool][]string{}
	t.Run("runs", func(t *testing.T) { // returns once both parallel runs are done
		for _, sandbox := range []bool{false, true} {
			t.Run(fmt.Sprintf("sandbox=%v", sandbox), func(t *testing.T) {
				p := newClaudeProject(t, 0)
				if sandbox {
					if out, err := p.command(context.Background(), filepath.Join(p.bin, "mbguard"), "install", "--agent", "claude", "--no-skill", "--sandbox").CombinedOutput(); err != nil {
						t.Fatalf("install --sandbox: %v\n%s", err, out)
					}
				}
				testgit.Git(t, p.root, "switch", "-q", "-c", "other")
				testgit.Write(t, p.root, "memory-bank/details/patterns.md", "# Patterns\nother\n")
				testgit.Git(t, p.root, "commit", "-q", "-m", "other", "--", "memory-bank/details/patterns.md")
				testgit.Git(t, p.root, "switch", "-q", "main")
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "pong") })}
				go srv.Serve(ln)
				defer srv.Close()
				f := p.run([]step{
					{tool: "Bash", input: map[string]any{"command": "echo hi > notes.txt && echo wrote-project", "description": "a"}},
					{tool: "Bash", input: map[string]any{"command": "echo hi > " + p.home + "/outside.txt && echo wrote-outside", "description": "b"}},
					{tool: "Bash", input: map[string]any{"command": "curl -s http://" + ln.Addr().String() + "/ping", "description": "c"}},
					{tool: "Bash", input: map[string]any{"command": "git checkout -q other && echo switched", "description": "d"}},
					{tool: "Bash", input: map[string]any{"command": "ls memory-bank", "description": "e"}},
				}, "measure", nil, "--allowedTools", "Bash")
				r := f.toolResults(len(f.main) - 1)
				if len(r) < 5 {
					t.Fatalf("%d tool results, want 5: %q", len(r), r)
				}
				mu.Lock()
				results[sandbox] = r
				mu.Unlock()
			})
		}
	})
	off, on := results[false], results[true]
	if off == nil || on == nil {
		t.Fatal("a run did not finish")
	}
	for i, want := range []string{"wrote-project", "wrote-outside", "pong", "switched", "MEMORY.md"} {
		if !strings.Contains(off[i], want) {
			t.Errorf("without the sandbox, call %d = %q, want %q", i, off[i], want)
		}
	}
	for i, want := range map[int]string{0: "wrote-project", 4: "MEMORY.md"} {
		if !strings.Contains(on[i], want) {
			t.Errorf("with the sandbox, call %d = %q, want %q", i, on[i], want)
		}
	}
	for i, what := range map[int]string{1: "wrote-outside", 2: "pong"} {
		if strings.Contains(on[i], what) {
			t.Errorf("with the sandbox, call %d = %q: it no longer costs the user this", i, on[i])
		}
	}
	// git exits 0 all the same: HEAD moves, and the bank keeps the old branch's bytes
	if !strings.Contains(on[3], "Read-only file system") {
		t.Errorf("the sandboxed git checkout = %q, want it to fail on the read-only bank", on[3])
	}
}
