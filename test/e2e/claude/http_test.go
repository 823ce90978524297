package claude

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// TestClaudeCodeHTTPHooks: with watch.http_port set, install writes type "http" hooks and the
// real Claude Code POSTs its events to `mbguard watch`: the read gate and the bank guard hold
// as with command hooks, a Bash redirect into the bank is still refused (its events stay on
// the command hook), and with the watcher stopped the guarded calls are refused (onFailure
// "block"), not let through.
func TestClaudeCodeHTTPHooks(t *testing.T) {
	testhost.Short(t, "real Claude Code runs")
	p := newClaudeProject(t, 0)
	port := func() int {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}()
	testgit.Write(t, p.root, ".mbguard.yaml", "gating:\n  mode: block\nwatch:\n  http_port: "+strconv.Itoa(port)+"\n")
	testgit.Commit(t, p.root, "http hooks")
	mb := filepath.Join(p.bin, "mbguard")
	if out, err := p.command(context.Background(), mb, "install", "--agent", "claude", "--no-skill").CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	settings := p.file(".claude/settings.json")
	if !strings.Contains(settings, `"type": "http"`) || !strings.Contains(settings, "127.0.0.1:"+strconv.Itoa(port)+"/hook/claude") {
		t.Fatalf("install wrote no http hooks:\n%s", settings)
	}

	ctx, cancel := context.WithCancel(context.Background())
	watch := p.command(ctx, mb, "watch", "-v")
	stderr, _ := watch.StderrPipe()
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			_ = watch.Wait()
		}
	}
	defer stop()
	up := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var seen strings.Builder
		for sc.Scan() {
			seen.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "answering Claude Code's http hooks") {
				up <- ""
				for sc.Scan() { // drain
					t.Logf("watch: %s", sc.Text())
				}
				return
			}
		}
		up <- seen.String()
	}()
	select {
	case log := <-up:
		if log != "" {
			t.Fatalf("the watcher does not answer http hooks:\n%s", log)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the watcher did not start within 30 s")
	}

	newGoMod := "module example.com/app\n\nrequire example.com/queue v1.2.0\n"
	f := p.run([]step{
		{tool: "Write", input: map[string]any{"file_path": p.abs("go.mod"), "content": newGoMod}},
		{tool: "Write", input: map[string]any{"file_path": p.abs("memory-bank/x.json"), "content": "{}"}},
		{tool: "Bash", input: map[string]any{"command": "echo '- done' >> memory-bank/details/progress.md", "description": "note progress"}},
		{tool: "Read", input: map[string]any{"file_path": p.abs("memory-bank/details/patterns.md")}},
		{tool: "Write", input: map[string]any{"file_path": p.abs("go.mod"), "content": newGoMod}},
	}, "bump the queue dependency", nil, "--allowedTools", "Bash")
	if !strings.Contains(f.mainRequest(0), "e2e-memory-7f3a") {
		t.Errorf("MEMORY.md did not reach the model in the first request (SessionStart over http)")
	}
	if r := f.toolResults(1); !anyContains(r, "[mbguard read gate]") {
		t.Errorf("the read gate's refusal did not reach the model; tool results: %q", r)
	}
	if r := f.toolResults(2); !anyContains(r, "[mbguard bank]") {
		t.Errorf("no bank refusal for x.json; tool results: %q", r)
	}
	if _, err := os.Stat(p.abs("memory-bank/x.json")); !os.IsNotExist(err) {
		t.Errorf("memory-bank/x.json was written")
	}
	if got := p.file("memory-bank/details/progress.md"); strings.Contains(got, "- done") {
		t.Errorf("the Bash redirect reached progress.md: %q", got)
	}
	if got := p.file("go.mod"); got != newGoMod {
		t.Errorf("go.mod = %q: the write after reading patterns.md did not happen", got)
	}

	// The watcher is gone: Claude Code cannot reach the hook, and refuses the call.
	stop()
	testgit.Write(t, p.root, "go.mod", "module example.com/app\n")
	f = p.run([]step{
		{tool: "Read", input: map[string]any{"file_path": p.abs("memory-bank/details/patterns.md")}},
		{tool: "Write", input: map[string]any{"file_path": p.abs("go.mod"), "content": newGoMod}},
	}, "bump the queue dependency", nil)
	if got := p.file("go.mod"); got == newGoMod {
		t.Errorf("go.mod was written while no watcher answered the http hooks (fail-open); tool results %q", f.toolResults(2))
	}
}
