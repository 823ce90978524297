package claude

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/test/e2e/e2eproject"
)

// The real Claude Code end-to-end test: the CLI from npm (@anthropic-ai/claude-code, installed
// by .ci/run into test/hosts) talks to a scripted fake Anthropic Messages API on 127.0.0.1,
// with mbguard's hooks installed by `mbguard install --agent claude` into a temporary project.
// It asserts on files on disk and on the requests the fake received.

// claudeVersions are the Claude Code versions test/hosts pins: the newest under its own name,
// the previous one under an npm alias (its platform binary then nests under the alias).
var claudeVersions = []struct{ version, rel string }{
	{"2.1.332", "@anthropic-ai/claude-code-linux-x64/claude"},
	{"2.1.328", "claude-code-2-1-328/node_modules/@anthropic-ai/claude-code-linux-x64/claude"},
}

func TestMain(m *testing.M) { e2eproject.Main(m) }

// claudeBinary finds the real Claude Code CLI of version v; without it the test fails in CI
// and skips locally.
func claudeBinary(t *testing.T, v int) string {
	t.Helper()
	return testhost.HostBinary(t, "real Claude Code (@anthropic-ai/claude-code@"+claudeVersions[v].version+")", claudeVersions[v].rel)
}

// step is one scripted model turn: a tool call, or plain text that ends the turn.
type step struct {
	tool        string
	input       map[string]any
	text        string
	inputTokens int // usage reported with this turn
	// before, when set, runs as the fake serves this turn: what a person does meanwhile
	before func()
}

// fakeAPI is a scripted Anthropic Messages API.
type fakeAPI struct {
	t         *testing.T
	mu        sync.Mutex
	steps     []step
	next      int
	main      []map[string]any // bodies of the agent-loop requests, in order
	all       int
	paths     []string
	summaries int
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.all++
	f.paths = append(f.paths, r.Method+" "+r.URL.Path)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.NotFound(w, r)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	raw, _ := json.Marshal(body)
	tools, _ := body["tools"].([]any)
	var s step
	switch {
	case strings.Contains(string(raw), "create a detailed summary of the conversation"):
		f.summaries++
		s = step{text: "<summary>The user asked to bump the queue dependency in go.mod; progress.md was read.</summary>", inputTokens: 1000}
	case len(tools) == 0:
		s = step{text: "ok", inputTokens: 10}
	default:
		f.main = append(f.main, body)
		s = step{text: "Done.", inputTokens: 2000}
		if f.next < len(f.steps) {
			s = f.steps[f.next]
			f.next++
			if s.before != nil {
				s.before()
			}
		}
	}
	f.reply(w, body, s)
}

func (f *fakeAPI) reply(w http.ResponseWriter, body map[string]any, s step) {
	model, _ := body["model"].(string)
	if s.inputTokens == 0 {
		s.inputTokens = 2000
	}
	id := fmt.Sprintf("msg_%d", f.all)
	stop := "end_turn"
	var block, delta map[string]any
	if s.tool != "" {
		stop = "tool_use"
		in, _ := json.Marshal(s.input)
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", f.all), "name": s.tool, "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(in)}
	} else {
		block = map[string]any{"type": "text", "text": ""}
		delta = map[string]any{"type": "text_delta", "text": s.text}
	}
	if stream, _ := body["stream"].(bool); !stream {
		content := map[string]any{"type": "text", "text": s.text}
		if s.tool != "" {
			content = map[string]any{"type": "tool_use", "id": block["id"], "name": s.tool, "input": s.input}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{content}, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": s.inputTokens, "output_tokens": 20}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(event string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if fl != nil {
			fl.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant",
		"model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": s.inputTokens, "output_tokens": 1}}})
	send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block})
	send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// toolResults returns the text of every tool_result in the i-th agent-loop request.
func (f *fakeAPI) toolResults(i int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.main) {
		return nil
	}
	var out []string
	msgs, _ := f.main[i]["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		parts, _ := mm["content"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if pm["type"] != "tool_result" {
				continue
			}
			switch c := pm["content"].(type) {
			case string:
				out = append(out, c)
			case []any:
				for _, x := range c {
					xm, _ := x.(map[string]any)
					if s, ok := xm["text"].(string); ok {
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

func (f *fakeAPI) mainRequest(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.main) {
		return ""
	}
	b, _ := json.Marshal(f.main[i])
	return string(b)
}

// claudeProject is a temporary project with a memory bank and mbguard's hooks installed, on a
// HOME of its own (its tests run in parallel).
type claudeProject struct {
	t      *testing.T
	root   string
	claude string
	bin    string
	home   string
	env    []string // e2eproject.Bare's: isolated HOME and git, mbguard first on PATH
}

const e2eMemory = `# Project memory
<!-- MACHINE_BLOCK_START -->
<!-- MEMORY_BANK_TEMPLATE:v7.1 -->
## Current Focus
- ship the payment retry queue (marker: e2e-memory-7f3a)
<!-- MACHINE_BLOCK_END -->
<!-- USER_BLOCK_START -->
my notes
<!-- USER_BLOCK_END -->
`

// newClaudeProject makes the project for Claude Code version v (an index of claudeVersions).
func newClaudeProject(t *testing.T, v int) *claudeProject {
	claude := claudeBinary(t, v)
	t.Parallel()
	bare := e2eproject.Bare(t)
	root, bin := bare.Root, bare.Bin
	testgit.Write(t, root, "memory-bank/MEMORY.md", e2eMemory)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nRetries go through the queue.\n")
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\n- queue skeleton done\n")
	testgit.Write(t, root, "go.mod", "module example.com/app\n")
	testgit.Commit(t, root, "init")
	p := &claudeProject{t: t, root: root, claude: claude, bin: bin, home: bare.Home, env: bare.Env}
	out, err := p.command(context.Background(), filepath.Join(bin, "mbguard"), "install", "--agent", "claude", "--no-skill").CombinedOutput()
	if err != nil {
		t.Fatalf("mbguard install --agent claude: %v\n%s", err, out)
	}
	settings, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.json"))
	if !strings.Contains(string(settings), `"mbguard-hook hook claude"`) {
		t.Fatalf("settings.json does not call mbguard from PATH:\n%s", settings)
	}
	return p
}

func (p *claudeProject) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = p.root
	cmd.Env = append([]string(nil), p.env...)
	return cmd
}

// run starts the fake API with steps and runs `claude -p prompt` against it.
func (p *claudeProject) run(steps []step, prompt string, env []string, args ...string) *fakeAPI {
	t := p.t
	f := &fakeAPI{t: t, steps: steps}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	argv := append([]string{"-p", prompt, "--output-format", "json", "--permission-mode", "acceptEdits"}, args...)
	cmd := p.command(ctx, p.claude, argv...)
	cmd.Env = append(cmd.Env,
		"ANTHROPIC_API_KEY=sk-ant-e2e-test",
		"ANTHROPIC_BASE_URL=http://"+ln.Addr().String(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude -p: %v\n%s\nrequests: %v", err, out, f.paths)
	}
	t.Logf("claude: %d requests (%d agent-loop), output %.300s", f.all, len(f.main), out)
	return f
}

func (p *claudeProject) abs(rel string) string { return filepath.Join(p.root, rel) }

func (p *claudeProject) file(rel string) string {
	b, _ := os.ReadFile(p.abs(rel))
	return string(b)
}

func anyContains(xs []string, sub string) bool {
	for _, x := range xs {
		if strings.Contains(x, sub) {
			return true
		}
	}
	return false
}

func TestClaudeCodeE2E(t *testing.T) {
	testhost.Short(t, "real Claude Code runs")
	for v := range claudeVersions {
		t.Run(claudeVersions[v].version, func(t *testing.T) { claudeCodeE2E(t, v) })
	}
}

func claudeCodeE2E(t *testing.T, v int) {
	newGoMod := "module example.com/app\n\nrequire example.com/queue v1.2.0\n"

	t.Run("high-risk write blocked before reading, allowed after reading patterns.md", func(t *testing.T) {
		p := newClaudeProject(t, v)
		f := p.run([]step{
			{tool: "Write", input: map[string]any{"file_path": p.abs("go.mod"), "content": newGoMod}},
			{tool: "Read", input: map[string]any{"file_path": p.abs("memory-bank/details/patterns.md")}},
			{tool: "Write", input: map[string]any{"file_path": p.abs("go.mod"), "content": newGoMod}},
		}, "bump the queue dependency", []string{"MEMORY_BANK_GUARD_MODE=block"})
		if !strings.Contains(f.mainRequest(0), "e2e-memory-7f3a") {
			t.Errorf("MEMORY.md did not reach the model in the first request")
		}
		if r := f.toolResults(1); !anyContains(r, "[mbguard read gate]") || !anyContains(r, "memory-bank/details/patterns.md") {
			t.Errorf("the block message did not reach the model; tool results: %q", r)
		}
		if got := p.file("go.mod"); got != newGoMod {
			t.Errorf("go.mod = %q: the write after reading patterns.md did not happen", got)
		}
		if len(f.main) < 4 {
			t.Errorf("%d agent-loop requests, want 4", len(f.main))
		}
	})

	t.Run("bank guard: non-md file and bash redirect blocked", func(t *testing.T) {
		p := newClaudeProject(t, v)
		f := p.run([]step{
			{tool: "Write", input: map[string]any{"file_path": p.abs("memory-bank/x.json"), "content": "{}"}},
			{tool: "Bash", input: map[string]any{"command": "echo '- done' >> memory-bank/details/progress.md", "description": "note progress"}},
		}, "note the progress", nil)
		if _, err := os.Stat(p.abs("memory-bank/x.json")); !os.IsNotExist(err) {
			t.Errorf("memory-bank/x.json was written")
		}
		if got := p.file("memory-bank/details/progress.md"); strings.Contains(got, "- done") {
			t.Errorf("the bash redirect reached progress.md: %q", got)
		}
		if r := f.toolResults(1); !anyContains(r, "[mbguard bank]") {
			t.Errorf("no bank block for x.json in %q", r)
		}
		if r := f.toolResults(2); len(r) < 2 || !strings.Contains(r[len(r)-1], "[mbguard bank]") {
			t.Errorf("no bank block for the redirect in %q", r)
		}
	})

	t.Run("a script that writes into the bank is undone and the model told", func(t *testing.T) {
		p := newClaudeProject(t, v)
		testgit.Write(t, p.root, "tools/tidy.sh", "printf 'x' > memory-bank/cache.bin\nsed -i 's/my notes/agent notes/' memory-bank/MEMORY.md\n")
		f := p.run([]step{
			{tool: "Bash", input: map[string]any{"command": "cat tools/tidy.sh | sh", "description": "tidy up"}},
		}, "tidy the project", nil, "--allowedTools", "Bash")
		if _, err := os.Stat(p.abs("memory-bank/cache.bin")); !os.IsNotExist(err) {
			t.Errorf("memory-bank/cache.bin survived the tool call")
		}
		if got := p.file("memory-bank/MEMORY.md"); got != e2eMemory {
			t.Errorf("MEMORY.md was not restored: %q", got)
		}
		found := false
		for i := range f.main {
			found = found || strings.Contains(f.mainRequest(i), "[mbguard] undid")
		}
		if !found {
			t.Errorf("the undo never reached the model; tool results %q", f.toolResults(1))
		}
		if log := p.file(".git/mbguard/decisions.jsonl"); !strings.Contains(log, `"gate":"outcome"`) {
			t.Errorf("no outcome entry in the decision log:\n%s", log)
		}
	})

	t.Run("a secret in a bank file read by Read, cat or Grep never reaches the model", func(t *testing.T) {
		p := newClaudeProject(t, v)
		secret := "ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo"
		testgit.Write(t, p.root, "memory-bank/details/tech.md", "# Tech\ntoken: "+secret+"\n")
		f := p.run([]step{
			{tool: "Read", input: map[string]any{"file_path": p.abs("memory-bank/details/tech.md")}},
			{tool: "Bash", input: map[string]any{"command": "cat memory-bank/details/tech.md", "description": "show tech notes"}},
			{tool: "Grep", input: map[string]any{"pattern": "ghp_", "output_mode": "content"}},
		}, "what token do we use", nil, "--allowedTools", "Bash")
		if len(f.main) < 4 {
			t.Fatalf("%d agent-loop requests, want 4 (the Read, cat and Grep results)", len(f.main))
		}
		for i := range f.main {
			if strings.Contains(f.mainRequest(i), secret) {
				t.Fatalf("agent-loop request %d carries the secret", i)
			}
		}
		if r := f.toolResults(1); !anyContains(r, "token: REDACTED") {
			t.Errorf("the Read result is not the redacted file; tool results %q", r)
		}
		if r := f.toolResults(2); !anyContains(r, "token: REDACTED") {
			t.Errorf("the cat result is not the redacted file; tool results %q", r)
		}
		if r := f.toolResults(3); !anyContains(r, "token: REDACTED") {
			t.Errorf("the Grep (no path) result is not redacted; tool results %q", r)
		}
		if !strings.Contains(f.mainRequest(2), "memory-bank/details/tech.md line 2 holds a secret (gitleaks rule github-pat)") {
			t.Errorf("the model was not told where the secret is")
		}
	})

	t.Run("after a real auto-compaction a high-risk write is blocked naming the anchors", func(t *testing.T) {
		p := newClaudeProject(t, v)
		f := p.run([]step{
			{tool: "Read", input: map[string]any{"file_path": p.abs("memory-bank/details/progress.md")}, inputTokens: 5000},
			{tool: "Read", input: map[string]any{"file_path": p.abs("memory-bank/details/patterns.md")}, inputTokens: 90000},
			{tool: "Write", input: map[string]any{"file_path": p.abs("go.mod"), "content": newGoMod}, inputTokens: 3000},
		}, "bump the queue dependency", nil, "--autocompact", "100000")
		if f.summaries == 0 {
			t.Fatalf("no compaction happened (input_tokens reported 5000 → 90000); requests %v", f.paths)
		}
		if got := p.file("go.mod"); got == newGoMod {
			t.Errorf("go.mod was written while recovery was armed")
		}
		anchors := false
		for i := range f.main {
			anchors = anchors || strings.Contains(f.mainRequest(i), "memory-bank-anchors")
		}
		if !anchors {
			t.Errorf("the anchor block (SessionStart source compact) never reached the model")
		}
		var last []string
		for i := range f.main {
			if r := f.toolResults(i); len(r) > 0 {
				last = r
			}
		}
		if !anyContains(last, "[mbguard recovery gate]") || !anyContains(last, "memory-bank/details/progress.md") || !anyContains(last, "memory-bank/MEMORY.md") {
			t.Errorf("the recovery block naming the anchors did not reach the model; last tool results %q", last)
		}
		log := p.file(".git/mbguard/decisions.jsonl")
		if strings.Count(log, `"recovery":"armed"`) != 1 {
			t.Errorf("recovery armed %d times in the decision log, want once:\n%s", strings.Count(log, `"recovery":"armed"`), log)
		}
		sc := bufio.NewScanner(strings.NewReader(log))
		for sc.Scan() {
			t.Log(sc.Text())
		}
	})
}
