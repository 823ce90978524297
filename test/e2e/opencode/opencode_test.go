package opencode

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/test/e2e/e2eproject"
)

// openCodeBinary finds the opencode that npm installed under $MBGUARD_HOSTS_DIR.
func openCodeBinary(t *testing.T) string {
	t.Helper()
	return testhost.HostBinary(t, "OpenCode (opencode-ai@1.18.33)",
		".bin/opencode", "opencode-ai/bin/opencode", "opencode-linux-x64/bin/opencode")
}

const memoryMD = `# Project memory
<!-- MACHINE_BLOCK_START -->
<!-- MEMORY_BANK_TEMPLATE:v7.1 -->
## Current Focus
- Goal: ship the zebra-quartz login flow
<!-- MACHINE_BLOCK_END -->
<!-- USER_BLOCK_START -->
my notes
<!-- USER_BLOCK_END -->
`

// world is one scripted OpenCode run's isolated machine: a project with a memory bank and the
// plugin installed by the real `mbguard install --agent opencode`, HOME and XDG folders of its
// own, and the fake model configured as OpenCode's provider.
type world struct {
	project, home, bin, opencode string
	env                          []string
}

func newWorld(t *testing.T, model *fakeModel) *world {
	t.Helper()
	return newWorldAt(t, model.URL)
}

// newWorldAt is newWorld with the model's OpenAI-compatible base URL (".../v1").
func newWorldAt(t *testing.T, baseURL string) *world {
	t.Helper()
	oc := openCodeBinary(t)
	t.Parallel()
	p := e2eproject.Bare(t) // a HOME of its own; the package's tests run in parallel
	w := &world{project: p.Root, opencode: oc, bin: p.Bin, home: p.Home}
	testgit.Write(t, w.project, "memory-bank/MEMORY.md", memoryMD)
	testgit.Write(t, w.project, "memory-bank/details/patterns.md", "# Patterns\nUse the zebra pattern.\n")
	testgit.Write(t, w.project, "src/app.ts", "export {}\n")
	testgit.Commit(t, w.project, "initial")

	cfg := map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"model":       "fake/scripted",
		"small_model": "fake/scripted",
		"autoupdate":  false,
		"share":       "disabled",
		"permission":  map[string]any{"edit": "allow", "bash": "allow", "webfetch": "deny", "external_directory": "allow"},
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": baseURL, "apiKey": "test"},
			"models":  map[string]any{"scripted": map[string]any{"name": "scripted", "tool_call": true, "limit": map[string]any{"context": 200000, "output": 4096}}},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	testgit.Write(t, w.project, "opencode.json", string(b))

	xdg := func(n string) string { return filepath.Join(w.home, n) }
	w.env = append(p.Env, // PATH with mbguard first, PWD, HOME, XDG_CONFIG_HOME
		"XDG_DATA_HOME="+xdg(".local/share"), "XDG_CACHE_HOME="+xdg(".cache"), "XDG_STATE_HOME="+xdg(".local/state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
	)
	// OpenCode npm-installs @opencode-ai/plugin into its config folders unless they already list
	// it; the plugin imports nothing from it, so an empty stand-in keeps the run offline.
	for _, dir := range []string{filepath.Join(xdg(".config"), "opencode"), filepath.Join(w.project, ".opencode")} {
		e2eproject.FakePluginPackage(t, dir, "@opencode-ai/plugin", "1.18.33")
	}

	w.mbguard(t, "install", "--agent", "opencode", "--no-skill")
	if _, err := os.Stat(filepath.Join(w.project, ".opencode", "plugin", "mbguard.js")); err != nil {
		t.Fatalf("install did not write the plugin: %v", err)
	}
	return w
}

func (w *world) mbguard(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(w.bin, "mbguard"), args...)
	cmd.Dir = w.project
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mbguard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// run drives `opencode run` headless with the prompt words, extra environment appended.
func (w *world) run(t *testing.T, extraEnv []string, words ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.opencode, append([]string{"run", "--print-logs", "--log-level", "WARN"}, words...)...)
	cmd.Dir = w.project
	cmd.Env = append(append([]string{}, w.env...), extraEnv...)
	cmd.Stdin = nil // /dev/null: opencode run reads stdin to its end otherwise
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("opencode run: %v\n%s", err, out)
	}
	return string(out)
}

func TestMain(m *testing.M) { e2eproject.Main(m) }

// TestOpenCodeGatesAndGuards: one session in block mode. MEMORY.md is injected once; a write to
// src/auth/ is refused naming patterns.md, goes through once it was read; then each way into the
// bank is refused or undone: a non-.md write, a shell redirect, and a script whose command line
// shows nothing of the bank (the outcome check in tool.execute.after restores the bank before
// the plugin returns, and the model reads why in the tool's output). One session, because each
// OpenCode start costs seconds of CPU.
func TestOpenCodeGatesAndGuards(t *testing.T) {
	model := startFakeModel(t, []step{
		{Tool: "write", Args: map[string]any{"filePath": "src/auth/login.ts", "content": "export const login = 1\n"}},
		{Tool: "read", Args: map[string]any{"filePath": "memory-bank/details/patterns.md"}},
		{Tool: "write", Args: map[string]any{"filePath": "src/auth/login.ts", "content": "export const login = 2\n"}},
		{Tool: "write", Args: map[string]any{"filePath": "memory-bank/x.json", "content": "{}\n"}},
		{Tool: "bash", Args: map[string]any{"command": "echo hacked > memory-bank/notes.md", "description": "write a note"}},
		{Tool: "bash", Args: map[string]any{"command": "cat tools/tidy.sh | sh", "description": "tidy up"}},
	})
	w := newWorld(t, model)
	testgit.Write(t, w.project, "tools/tidy.sh", "printf 'x' > memory-bank/cache.bin\nsed -i 's/my notes/agent notes/' memory-bank/MEMORY.md\n")
	// kernel.mode off: the script's writes must reach the bank to show the undo after the call
	// (with the default kernel line they fail in the kernel; kernel_test.go)
	out := w.run(t, []string{"MEMORY_BANK_GUARD_MODE=block", "MBGUARD_KERNEL_MODE=off"}, "add", "a", "login", "module")

	reqs := model.agentRequests()
	if len(reqs) < 7 {
		t.Fatalf("the model got %d agent requests, want 7 (six tool calls, done)\n%s", len(reqs), out)
	}
	if sys := reqs[0].system(); !strings.Contains(sys, "<memory-bank>") || !strings.Contains(sys, "zebra-quartz login flow") {
		t.Errorf("system prompt lacks the injected MEMORY.md:\n%s", sys)
	}
	if n := strings.Count(reqs[0].system(), "<memory-bank>"); n != 1 {
		t.Errorf("context injected %d times, want once", n)
	}
	res := reqs[6].toolResults()
	if len(res) < 6 {
		t.Fatalf("the last request carries %d tool results, want 6: %q", len(res), res)
	}
	if !strings.Contains(res[0], "[mbguard read gate] blocked") || !strings.Contains(res[0], "memory-bank/details/patterns.md") {
		t.Errorf("the model did not get the block message as the first write's result: %q", res[0])
	}
	if !strings.Contains(res[1], "Use the zebra pattern.") {
		t.Errorf("read result = %q, want patterns.md's content", res[1])
	}
	if strings.Contains(res[2], "blocked") {
		t.Errorf("the write after reading patterns.md was blocked: %q", res[2])
	}
	got, err := os.ReadFile(filepath.Join(w.project, "src/auth/login.ts"))
	if err != nil || string(got) != "export const login = 2\n" {
		t.Errorf("src/auth/login.ts = %q, %v; want the second, allowed write only", got, err)
	}
	for i, want := range map[int]string{3: "memory-bank/x.json is not an .md file", 4: "[mbguard bank] blocked"} {
		if !strings.Contains(res[i], want) {
			t.Errorf("tool result %d = %q, want it to contain %q", i, res[i], want)
		}
	}
	for _, p := range []string{"memory-bank/x.json", "memory-bank/notes.md"} {
		if _, err := os.Stat(filepath.Join(w.project, p)); err == nil {
			t.Errorf("%s was written despite the block", p)
		}
	}
	if !strings.Contains(res[5], "[mbguard] undid") || !strings.Contains(res[5], "memory-bank/cache.bin") {
		t.Errorf("the script's result the model read lacks the undo: %q", res[5])
	}
	if _, err := os.Stat(filepath.Join(w.project, "memory-bank/cache.bin")); err == nil {
		t.Error("memory-bank/cache.bin survived the tool call")
	}
	if b, _ := os.ReadFile(filepath.Join(w.project, "memory-bank/MEMORY.md")); string(b) != memoryMD {
		t.Errorf("MEMORY.md was not restored:\n%s", b)
	}
	if q := w.mbguard(t, "quarantine", "list"); !strings.Contains(q, "memory-bank/cache.bin") {
		t.Errorf("quarantine list = %q", q)
	}
}

// TestOpenCodeRecoveryAfterCompaction forces an auto-compaction (a small context limit and a
// large reported prompt): the anchor block reaches the compaction request and a high-risk
// write afterwards is stopped by the recovery gate until the anchors are read.
func TestOpenCodeRecoveryAfterCompaction(t *testing.T) {
	model := startFakeModel(t, []step{
		{Tool: "read", Args: map[string]any{"filePath": "src/app.ts"}, PromptTokens: 150000},
		{Tool: "write", Args: map[string]any{"filePath": "src/auth/login.ts", "content": "export const login = 1\n"}},
	})
	model.ByCall = true
	w := newWorld(t, model)
	b, _ := os.ReadFile(filepath.Join(w.project, "opencode.json"))
	small := strings.Replace(string(b), `"context": 200000`, `"context": 20000`, 1)
	os.WriteFile(filepath.Join(w.project, "opencode.json"), []byte(small), 0o644)
	out := w.run(t, nil, "add", "a", "login", "module")

	var compaction, after *chatRequest
	all := model.all()
	for i, r := range all {
		if isCompaction(r) && compaction == nil {
			compaction = &all[i]
		}
		for _, res := range r.toolResults() {
			if strings.Contains(res, "login.ts") || strings.Contains(res, "recovery") {
				after = &all[i]
			}
		}
	}
	if compaction == nil {
		t.Fatalf("no compaction request carried the anchor block (%d requests)\n%s", len(all), out)
	}
	if after == nil {
		t.Fatalf("the model never got the post-compaction write's result\n%s", out)
	}
	res := after.toolResults()
	if last := res[len(res)-1]; !strings.Contains(last, "[mbguard recovery gate] blocked") {
		t.Errorf("the write after compaction got %q, want the recovery gate's block", last)
	}
	if _, err := os.Stat(filepath.Join(w.project, "src/auth/login.ts")); err == nil {
		t.Error("src/auth/login.ts was written while recovery was armed")
	}
}
