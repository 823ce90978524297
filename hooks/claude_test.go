package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/declog"
	"github.com/mbguard/mbguard/internal/testgit"
)

const testMemory = `# Project memory
<!-- MACHINE_BLOCK_START -->
<!-- MEMORY_BANK_TEMPLATE:v7.1 -->
## Current Focus
- ship the payment retry queue
<!-- MACHINE_BLOCK_END -->
<!-- USER_BLOCK_START -->
my notes
<!-- USER_BLOCK_END -->
`

// bankRepo makes a real git repository with a v7.1 memory bank.
func bankRepo(t testing.TB) string {
	t.Helper()
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", testMemory)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nuse the queue\n")
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\n")
	testgit.Write(t, root, "src/app.go", "package app\n")
	testgit.Commit(t, root, "init")
	return root
}

type hookRun struct {
	t    *testing.T
	root string
	sess string
	env  map[string]string
	now  time.Time
}

func newHookRun(t *testing.T, root string, env map[string]string) *hookRun {
	return &hookRun{t: t, root: root, sess: "0b6c1c7e-8f6e-4a1e-9d6a-000000000001", env: env, now: time.UnixMilli(1_700_000_000_000)}
}

func (h *hookRun) payload(event string, extra map[string]any) []byte {
	m := map[string]any{"hook_event_name": event, "session_id": h.sess, "cwd": h.root,
		"transcript_path": filepath.Join(h.root, ".t.jsonl")}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

func (h *hookRun) raw(b []byte) ClaudeReply {
	h.now = h.now.Add(time.Second)
	c := &Claude{Dir: h.root, Getenv: func(k string) string { return h.env[k] }, Now: func() time.Time { return h.now }}
	return c.Handle(context.Background(), b)
}

func (h *hookRun) call(event string, extra map[string]any) ClaudeReply {
	return h.raw(h.payload(event, extra))
}

func (h *hookRun) prompt(text string) ClaudeReply {
	return h.call("UserPromptSubmit", map[string]any{"prompt": text})
}

func (h *hookRun) pre(tool string, input map[string]any) ClaudeReply {
	return h.call("PreToolUse", map[string]any{"tool_name": tool, "tool_input": input})
}

func (h *hookRun) readFile(rel string) ClaudeReply {
	abs := filepath.Join(h.root, rel)
	if r := h.pre("Read", map[string]any{"file_path": abs}); r.Exit != 0 {
		h.t.Fatalf("Read %s blocked: %s", rel, r.Stderr)
	}
	return h.call("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": abs},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": abs, "content": "x", "numLines": 1, "startLine": 1, "totalLines": 1}}})
}

func (h *hookRun) write(rel, content string) ClaudeReply {
	return h.pre("Write", map[string]any{"file_path": filepath.Join(h.root, rel), "content": content})
}

func additional(t *testing.T, r ClaudeReply) string {
	t.Helper()
	if len(r.Stdout) == 0 {
		return ""
	}
	var out struct {
		H struct {
			Event string `json:"hookEventName"`
			Ctx   string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil {
		t.Fatalf("stdout is not hook JSON: %v\n%s", err, r.Stdout)
	}
	if out.H.Event != r.Event {
		t.Fatalf("hookEventName %q, want %q", out.H.Event, r.Event)
	}
	return out.H.Ctx
}

func TestClaudeReadGate(t *testing.T) {
	block := map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}
	tests := []struct {
		name     string
		env      map[string]string
		read     bool
		wantExit int
		wantIn   string // in stderr (block) or additionalContext (warn)
	}{
		{"block mode blocks a high-risk write before reading", block, false, 2, "memory-bank/details/patterns.md"},
		{"block mode allows it after reading patterns.md", block, true, 0, ""},
		{"warn mode warns through additionalContext", nil, false, 0, "patterns.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHookRun(t, bankRepo(t), tc.env)
			h.prompt("add a dependency")
			if tc.read {
				h.readFile("memory-bank/details/patterns.md")
			}
			r := h.write("go.mod", "module x\n")
			if r.Exit != tc.wantExit {
				t.Fatalf("exit %d, want %d; stderr %q", r.Exit, tc.wantExit, r.Stderr)
			}
			got := r.Stderr
			if tc.wantExit == 0 {
				got = additional(t, r)
			}
			if tc.wantIn == "" && strings.Contains(got, "[mbguard read gate]") {
				t.Fatalf("want no read-gate message, got %q", got)
			}
			if !strings.Contains(got, tc.wantIn) {
				t.Fatalf("message %q does not name %q", got, tc.wantIn)
			}
		})
	}
}

func TestClaudeNewPromptForgetsReads(t *testing.T) {
	h := newHookRun(t, bankRepo(t), map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	h.prompt("one")
	h.readFile("memory-bank/details/patterns.md")
	if r := h.write("go.mod", "x"); r.Exit != 0 {
		t.Fatalf("first message: blocked after reading: %s", r.Stderr)
	}
	h.prompt("one") // the same text again is a new message
	if r := h.write("go.mod", "x"); r.Exit != 2 {
		t.Fatalf("second message: exit %d, want 2 (reads belong to one message)", r.Exit)
	}
}

func TestClaudeBankGuard(t *testing.T) {
	tests := []struct {
		name string
		tool string
		in   func(root string) map[string]any
	}{
		{"non-md file in the bank", "Write", func(root string) map[string]any {
			return map[string]any{"file_path": filepath.Join(root, "memory-bank/x.json"), "content": "{}"}
		}},
		{"bash redirect into the bank", "Bash", func(root string) map[string]any {
			return map[string]any{"command": "echo hi > memory-bank/notes.md"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := bankRepo(t)
			h := newHookRun(t, root, map[string]string{"MEMORY_BANK_GUARD_MODE": "off"})
			h.prompt("p")
			h.readFile("memory-bank/details/patterns.md")
			r := h.pre(tc.tool, tc.in(root))
			if r.Exit != 2 || !strings.Contains(r.Stderr, "[mbguard bank]") {
				t.Fatalf("exit %d stderr %q, want a bank block", r.Exit, r.Stderr)
			}
			entries, _, err := declog.Read(declog.Path(filepath.Join(root, ".git", "mbguard")), 0)
			if err != nil || len(entries) == 0 || entries[len(entries)-1].Verdict != "block" || entries[len(entries)-1].Session != h.sess {
				t.Fatalf("decision log %+v (%v), want the block logged", entries, err)
			}
		})
	}
}

func TestClaudeCompactionArmsOnceAndClears(t *testing.T) {
	root := bankRepo(t)
	h := newHookRun(t, root, nil)
	h.prompt("p")
	h.readFile("memory-bank/details/progress.md")
	if r := h.call("PreCompact", map[string]any{"trigger": "auto"}); r.Exit != 0 || r.Decision.Recovery != "armed" {
		t.Fatalf("PreCompact: exit %d decision %+v", r.Exit, r.Decision)
	}
	r := h.call("SessionStart", map[string]any{"source": "compact"})
	ctx := additional(t, r)
	if r.Decision.Recovery != "" || !strings.Contains(ctx, gating.AnchorSentinel) || !strings.Contains(ctx, "memory-bank/details/progress.md") {
		t.Fatalf("SessionStart compact: recovery %q context %q; want the anchor block without re-arming", r.Decision.Recovery, ctx)
	}
	entries, _, _ := declog.Read(declog.Path(filepath.Join(root, ".git", "mbguard")), 0)
	armed := 0
	for _, e := range entries {
		if e.Recovery == "armed" {
			armed++
		}
	}
	if armed != 1 {
		t.Fatalf("armed logged %d times, want once per compaction", armed)
	}
	if r := h.write("go.mod", "x"); r.Exit != 2 || !strings.Contains(r.Stderr, "memory-bank/MEMORY.md") {
		t.Fatalf("write while armed: exit %d stderr %q", r.Exit, r.Stderr)
	}
	for _, a := range []string{"memory-bank/details/progress.md", "memory-bank/MEMORY.md", "memory-bank/details/patterns.md"} {
		h.readFile(a)
	}
	if r := h.write("go.mod", "x"); r.Exit != 0 {
		t.Fatalf("write after reading the anchors: exit %d stderr %q", r.Exit, r.Stderr)
	}
}

func TestClaudeSessionStartInjectsContext(t *testing.T) {
	root := bankRepo(t)
	h := newHookRun(t, root, nil)
	r := h.call("SessionStart", map[string]any{"source": "startup"})
	ctx := additional(t, r)
	if !strings.HasPrefix(ctx, gating.ContextSentinel) || !strings.Contains(ctx, "ship the payment retry queue") {
		t.Fatalf("context %q", ctx)
	}
	st, err := os.ReadFile(filepath.Join(root, ".git/mbguard/sessions", h.sess+".json"))
	if err != nil || !strings.Contains(string(st), `"injected":true`) {
		t.Fatalf("state %s (%v): want injected", st, err)
	}
	h.call("SessionEnd", map[string]any{"reason": "exit"})
	if _, err := os.Stat(filepath.Join(root, ".git/mbguard/sessions", h.sess+".json")); !os.IsNotExist(err) {
		t.Fatalf("state file still there after SessionEnd: %v", err)
	}
}

func TestClaudeBadInput(t *testing.T) {
	root := bankRepo(t)
	writePayload := func(h *hookRun) []byte {
		b := h.payload("PreToolUse", map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(root, "go.mod"), "content": "x"}})
		return b[:len(b)-20]
	}
	tests := []struct {
		name     string
		env      map[string]string
		payload  func(h *hookRun) []byte
		wantExit int
		wantErr  string
	}{
		{"truncated write, warn mode: open", nil, writePayload, 0, "not valid JSON"},
		{"truncated write, block mode: closed", map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}, writePayload, 2, "could not check"},
		{"garbage", nil, func(*hookRun) []byte { return []byte("\x00\xffnot json") }, 0, "not valid JSON"},
		{"unknown event", nil, func(h *hookRun) []byte { return h.payload("Notification", nil) }, 0, ""},
		{"no event name", nil, func(h *hookRun) []byte { return []byte(`{"session_id":"s"}`) }, 0, "hook_event_name"},
		{"no session, block mode write", map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}, func(h *hookRun) []byte {
			return []byte(`{"hook_event_name":"PreToolUse","cwd":"` + root + `","tool_name":"Write","tool_input":{"file_path":"x"}}`)
		}, 2, "session_id"},
		// warn mode refuses only what may write the bank or mbguard's configuration (issue 20)
		{"no session, warn mode code write", map[string]string{"MEMORY_BANK_GUARD_MODE": "warn"}, func(h *hookRun) []byte {
			return []byte(`{"hook_event_name":"PreToolUse","cwd":"` + root + `","tool_name":"Write","tool_input":{"file_path":"src/app.go","content":"package app\n"}}`)
		}, 0, "session_id"},
		{"no session, warn mode bank write", map[string]string{"MEMORY_BANK_GUARD_MODE": "warn"}, func(h *hookRun) []byte {
			return []byte(`{"hook_event_name":"PreToolUse","cwd":"` + root + `","tool_name":"Write","tool_input":{"file_path":"memory-bank/x.json","content":"{}"}}`)
		}, 2, "session_id"},
		{"no session, warn mode config write", map[string]string{"MEMORY_BANK_GUARD_MODE": "warn"}, func(h *hookRun) []byte {
			return []byte(`{"hook_event_name":"PreToolUse","cwd":"` + root + `","tool_name":"Write","tool_input":{"file_path":".mbguard.yaml","content":"gating: {mode: off}\n"}}`)
		}, 2, "session_id"},
		{"tool_input not an object, block mode", map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}, func(h *hookRun) []byte {
			return h.payload("PreToolUse", map[string]any{"tool_name": "Write", "tool_input": "go.mod"})
		}, 2, "tool_input"},
		{"unknown tool", nil, func(h *hookRun) []byte {
			return h.payload("PreToolUse", map[string]any{"tool_name": "Frobnicate", "tool_input": map[string]any{"x": 1}})
		}, 0, ""},
		{"8 MiB write into the bank with bad markers", map[string]string{"MEMORY_BANK_GUARD_MODE": "off"}, func(h *hookRun) []byte {
			return h.payload("PreToolUse", map[string]any{"tool_name": "Write", "tool_input": map[string]any{
				"file_path": filepath.Join(root, "memory-bank/MEMORY.md"), "content": strings.Repeat("a", 8<<20)}})
		}, 2, "[mbguard bank]"},
		{"very long non-UTF-8 path", nil, func(h *hookRun) []byte {
			return h.payload("PreToolUse", map[string]any{"tool_name": "Write", "tool_input": map[string]any{
				"file_path": root + "/" + strings.Repeat("d\xff/", 5000) + "f.go", "content": "x"}})
		}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHookRun(t, root, tc.env)
			r := h.raw(tc.payload(h))
			if r.Exit != tc.wantExit {
				t.Fatalf("exit %d, want %d; stderr %q", r.Exit, tc.wantExit, r.Stderr)
			}
			if !strings.Contains(r.Stderr, tc.wantErr) {
				t.Fatalf("stderr %q, want %q", r.Stderr, tc.wantErr)
			}
			if strings.Count(strings.TrimSpace(r.Stderr), "\n") > 0 && tc.wantExit == 0 {
				t.Fatalf("stderr is not one line: %q", r.Stderr)
			}
		})
	}
}

func TestClaudeCorruptStateIsCareful(t *testing.T) {
	root := bankRepo(t)
	h := newHookRun(t, root, nil)
	h.prompt("p")
	h.readFile("memory-bank/details/patterns.md")
	p := filepath.Join(root, ".git/mbguard/sessions", h.sess+".json")
	if err := os.WriteFile(p, []byte(`{"session":"`+h.sess+`","satisfied":tr`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.write("go.mod", "x")
	if r.Exit != 2 || !strings.Contains(r.Stderr, "corrupt") || !strings.Contains(r.Stderr, "recovery") {
		t.Fatalf("exit %d stderr %q: want a block naming the corrupt state and armed recovery", r.Exit, r.Stderr)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), `"recovery"`) {
		t.Fatalf("state not replaced by a careful fresh one: %s", b)
	}
}

func TestClaudeUnwritableStateDir(t *testing.T) {
	root := bankRepo(t)
	// a file where the state directory should be: no state can be saved, even as root
	testgit.Write(t, root, ".git/mbguard", "not a directory")
	h := newHookRun(t, root, map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	r := h.write("go.mod", "x")
	if r.Exit != 2 || !strings.Contains(r.Stderr, "writable") {
		t.Fatalf("exit %d stderr %q: want the write blocked and the state problem named", r.Exit, r.Stderr)
	}
	h2 := newHookRun(t, root, nil)
	r = h2.write("src/app.go", "package app\n")
	if r.Exit != 0 || !strings.Contains(r.Stderr, "writable") {
		t.Fatalf("warn mode: exit %d stderr %q: want allowed with a warning", r.Exit, r.Stderr)
	}
}
