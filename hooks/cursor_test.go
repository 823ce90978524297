package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/watcher"
)

// Payloads built from Cursor's published hook schema (docs/hosts/cursor.md): the common
// fields on every event, the conversation as the session, a new generation per user message.
type cursorRun struct {
	*hostRun
	gen int
}

func newCursorRun(t *testing.T, root string, env map[string]string) *cursorRun {
	return &cursorRun{hostRun: newHostRun(t, "cursor", root, env), gen: 1}
}

func (h *cursorRun) send(event string, fields map[string]any) Reply {
	h.t.Helper()
	m := map[string]any{"conversation_id": h.sess, "generation_id": fmt.Sprintf("gen-%d", h.gen), "model": "claude-4.5-sonnet",
		"hook_event_name": event, "cursor_version": "2.1.0", "workspace_roots": []string{h.root}, "user_email": nil}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		h.t.Fatal(err)
	}
	r := h.raw(event, b) // install names the event on each entry's command line
	if !json.Valid(r.Stdout) {
		h.t.Fatalf("%s: stdout %q is not JSON; Cursor wants JSON on every reply", event, r.Stdout)
	}
	return r
}

func (h *cursorRun) prompt(text string) Reply {
	h.gen++
	return h.send("beforeSubmitPrompt", map[string]any{"prompt": text, "attachments": []any{}})
}

func (h *cursorRun) tool(event, name string, input map[string]any) Reply {
	return h.send(event, map[string]any{"tool_name": name, "tool_input": input, "tool_use_id": "toolu_" + name, "cwd": h.root})
}

func (h *cursorRun) shell(cmd string) Reply {
	return h.send("beforeShellExecution", map[string]any{"command": cmd, "cwd": h.root, "sandbox": false})
}

func (h *cursorRun) readFile(rel string) Reply {
	return h.send("beforeReadFile", map[string]any{"file_path": filepath.Join(h.root, rel), "content": "# Patterns\nuse the queue\n",
		"attachments": []any{}})
}

type cursorReply struct {
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message"`
	AgentMessage string `json:"agent_message"`
	Additional   string `json:"additional_context"`
	Continue     *bool  `json:"continue"`
}

func cursorOut(t *testing.T, r Reply) cursorReply {
	t.Helper()
	var out cursorReply
	if err := json.Unmarshal(r.Stdout, &out); err != nil {
		t.Fatalf("stdout %q: %v", r.Stdout, err)
	}
	if r.Exit != 0 {
		t.Fatalf("exit %d: Cursor gets exit 0 and the decision in JSON", r.Exit)
	}
	return out
}

// cursorDenied returns the reason of a refused "before" event ("" when allowed).
func cursorDenied(t *testing.T, r Reply) string {
	t.Helper()
	out := cursorOut(t, r)
	switch out.Permission {
	case "allow":
		return ""
	case "deny":
		if out.AgentMessage == "" {
			return "(denied without a reason)"
		}
		if out.UserMessage != out.AgentMessage {
			t.Fatalf("user_message %q and agent_message %q differ", out.UserMessage, out.AgentMessage)
		}
		return out.AgentMessage
	}
	t.Fatalf("permission %q in %s: want allow or deny", out.Permission, r.Stdout)
	return ""
}

func TestCursorGates(t *testing.T) {
	tests := []struct {
		name string
		send func(h *cursorRun) Reply
		want string // in the refusal; "" = allowed
	}{
		{"Write of a non-md bank file", func(h *cursorRun) Reply {
			return h.tool("preToolUse", "Write", map[string]any{"file_path": filepath.Join(h.root, "memory-bank/x.json"), "contents": "{}"})
		}, "[mbguard bank]"},
		{"Write with a relative path", func(h *cursorRun) Reply {
			return h.tool("preToolUse", "Write", map[string]any{"path": "memory-bank/x.json", "contents": "{}"})
		}, "[mbguard bank]"},
		{"Delete of MEMORY.md", func(h *cursorRun) Reply {
			return h.tool("preToolUse", "Delete", map[string]any{"path": filepath.Join(h.root, "memory-bank/MEMORY.md")})
		}, "[mbguard bank]"},
		{"StrReplace in a bank .md", func(h *cursorRun) Reply {
			return h.tool("preToolUse", "StrReplace", map[string]any{"path": filepath.Join(h.root, "memory-bank/details/patterns.md"),
				"old_string": "use the queue", "new_string": "use the retry queue"})
		}, ""},
		{"shell redirect into the bank", func(h *cursorRun) Reply { return h.shell("echo hi > memory-bank/notes.json") }, "[mbguard bank]"},
		{"shell write to the hook file", func(h *cursorRun) Reply { return h.shell("echo '{}' > .cursor/hooks.json") }, "[mbguard config]"},
		{"shell read of the bank", func(h *cursorRun) Reply { return h.shell("cat memory-bank/MEMORY.md") }, ""},
		{"Write to the hook file", func(h *cursorRun) Reply {
			return h.tool("preToolUse", "Write", map[string]any{"file_path": filepath.Join(h.root, ".cursor/hooks.json"), "contents": "{}"})
		}, "[mbguard config]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := bankRepo(t)
			h := newCursorRun(t, root, map[string]string{"MEMORY_BANK_GUARD_MODE": "off"})
			h.prompt("p")
			got := cursorDenied(t, tc.send(h))
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Fatalf("refusal %q, want %q", got, tc.want)
			}
			if _, err := os.Stat(filepath.Join(root, "memory-bank/x.json")); err == nil {
				t.Fatal("the hook wrote the file itself")
			}
		})
	}
}

// beforeReadFile is the read evidence: a read counts once it is allowed, for this generation
// (user message) only.
func TestCursorReadGate(t *testing.T) {
	h := newCursorRun(t, bankRepo(t), map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	if out := cursorOut(t, h.prompt("add a dependency")); out.Continue == nil || !*out.Continue {
		t.Fatalf("beforeSubmitPrompt reply %+v: want continue true", out)
	}
	write := func() string {
		return cursorDenied(t, h.tool("preToolUse", "Write", map[string]any{"file_path": filepath.Join(h.root, "go.mod"), "contents": "module x\n"}))
	}
	if got := write(); !strings.Contains(got, "memory-bank/details/patterns.md") {
		t.Fatalf("before reading: refusal %q, want one naming patterns.md", got)
	}
	r := h.readFile("memory-bank/details/patterns.md")
	if string(r.Stdout) != "{\"permission\":\"allow\"}\n" {
		t.Fatalf("beforeReadFile reply %q: want the permission alone", r.Stdout)
	}
	if got := write(); got != "" {
		t.Fatalf("after reading: refused %q", got)
	}
	h.prompt("next message")
	if got := write(); got == "" {
		t.Fatal("a new generation kept the previous message's reads")
	}
}

// preToolUse and postToolUse for Shell and Read are left to the events that carry the command
// and the path on every Cursor with hooks: gating them twice would open two windows per call.
func TestCursorShellAndReadToolEventsDeferToTheirOwn(t *testing.T) {
	h := newCursorRun(t, bankRepo(t), map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	h.prompt("p")
	for _, ev := range []string{"preToolUse", "postToolUse"} {
		r := h.tool(ev, "Shell", map[string]any{"command": "echo x > memory-bank/a.json"})
		if r.Decision != nil || r.Note == "" {
			t.Fatalf("%s Shell: decision %+v note %q; want it left to beforeShellExecution", ev, r.Decision, r.Note)
		}
		r = h.tool(ev, "Read", map[string]any{"file_path": filepath.Join(h.root, "memory-bank/details/patterns.md")})
		if r.Decision != nil || r.Note == "" {
			t.Fatalf("%s Read: decision %+v note %q; want it left to beforeReadFile", ev, r.Decision, r.Note)
		}
	}
	// the Read above did not count: only beforeReadFile does
	if got := cursorDenied(t, h.tool("preToolUse", "Write", map[string]any{"file_path": filepath.Join(h.root, "go.mod"), "contents": "x"})); got == "" {
		t.Fatal("a preToolUse Read opened the read gate")
	}
}

func TestCursorSessionStartContext(t *testing.T) {
	h := newCursorRun(t, bankRepo(t), nil)
	out := cursorOut(t, h.send("sessionStart", map[string]any{"session_id": h.sess, "is_background_agent": false, "composer_mode": "agent"}))
	if !strings.HasPrefix(out.Additional, gating.ContextSentinel) || !strings.Contains(out.Additional, "ship the payment retry queue") {
		t.Fatalf("additional_context %q: want the memory-bank block with MEMORY.md", out.Additional)
	}
}

// preCompact's reply reaches the user only: recovery arms there and the anchor block reaches
// the model with the next postToolUse.
func TestCursorCompaction(t *testing.T) {
	h := newCursorRun(t, bankRepo(t), nil)
	h.prompt("p")
	h.readFile("memory-bank/details/progress.md")
	r := h.send("preCompact", map[string]any{"trigger": "auto", "context_usage_percent": 91, "context_tokens": 182000,
		"context_window_size": 200000, "message_count": 40, "messages_to_compact": 30, "is_first_compaction": true})
	if r.Decision == nil || r.Decision.Recovery != "armed" || string(r.Stdout) != "{}\n" {
		t.Fatalf("preCompact: decision %+v stdout %q; want armed and an empty reply", r.Decision, r.Stdout)
	}
	write := map[string]any{"file_path": filepath.Join(h.root, "go.mod"), "contents": "module x\n"}
	if got := cursorDenied(t, h.tool("preToolUse", "Write", write)); !strings.Contains(got, "memory-bank/MEMORY.md") {
		t.Fatalf("write while recovery is armed: refusal %q, want the unread anchors", got)
	}
	out := cursorOut(t, h.send("postToolUse", map[string]any{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "x"},
		"tool_output": "no matches", "tool_use_id": "toolu_g", "cwd": h.root, "duration": 12}))
	if !strings.Contains(out.Additional, gating.AnchorSentinel) {
		t.Fatalf("postToolUse additional_context %q: want the anchor block", out.Additional)
	}
	for _, a := range []string{"memory-bank/details/progress.md", "memory-bank/MEMORY.md", "memory-bank/details/patterns.md"} {
		h.readFile(a)
	}
	if got := cursorDenied(t, h.tool("preToolUse", "Write", write)); got != "" {
		t.Fatalf("write after reading the anchors refused: %s", got)
	}
}

// afterShellExecution takes no reply: an undo found there reaches the model with the next
// postToolUse, and a stop closes the turn's calls without printing anything.
func TestCursorShellUndoToldLater(t *testing.T) {
	const msg = "[mbguard outcome] undone: memory-bank/x.json was written by a shell command"
	root := bankRepo(t)
	hk := &Hook{Host: "cursor", Dir: root, Connect: func(repo.Repo, *config.Config) (Doer, func(), error) {
		return func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
			if req.Event != nil && req.Event.Kind == gating.EvToolAfter && req.Event.Tool == "Bash" {
				return watcher.Response{Decision: &gating.Decision{Verdict: gating.Block, Gate: gating.GateOutcome, Message: msg}}, nil
			}
			return watcher.Response{Decision: &gating.Decision{Verdict: gating.Allow}}, nil
		}, func() {}, nil
	}}
	send := func(m map[string]any) Reply {
		m["conversation_id"], m["generation_id"], m["workspace_roots"] = "conv-1", "gen-1", []string{root}
		b, _ := json.Marshal(m)
		return hk.Handle(context.Background(), b)
	}
	r := send(map[string]any{"hook_event_name": "afterShellExecution", "command": "sh x.sh", "output": "ok", "duration": 40, "cwd": root})
	if r.Exit != 0 || string(r.Stdout) != "{}\n" {
		t.Fatalf("afterShellExecution: exit %d stdout %q; want {}", r.Exit, r.Stdout)
	}
	r = send(map[string]any{"hook_event_name": "postToolUse", "tool_name": "Grep", "tool_input": map[string]any{"pattern": "x"},
		"tool_output": "", "tool_use_id": "t", "cwd": root})
	if out := cursorOut(t, r); !strings.HasPrefix(out.Additional, msg) {
		t.Fatalf("postToolUse additional_context %q: want the undo", out.Additional)
	}
}

func TestCursorBadInput(t *testing.T) {
	root := bankRepo(t)
	block := map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}
	tests := []struct {
		name    string
		payload string
		deny    bool
	}{
		{"truncated preToolUse naming the bank", `{"hook_event_name":"preToolUse","conversation_id":"c","cwd":"` + root + `","tool_name":"Write","tool_input":{"file_path":"memory-bank/x.json","contents":"{`, true},
		{"no hook_event_name", `{"conversation_id":"c","cwd":"` + root + `","tool_name":"Write","tool_input":{"file_path":"go.mod"}}`, true},
		{"tool_input not an object", `{"hook_event_name":"preToolUse","conversation_id":"c","cwd":"` + root + `","tool_name":"Write","tool_input":"go.mod"}`, true},
		{"shell without its command", `{"hook_event_name":"beforeShellExecution","conversation_id":"c","cwd":"` + root + `"}`, true},
		{"no conversation", `{"hook_event_name":"preToolUse","cwd":"` + root + `","tool_name":"Write","tool_input":{"file_path":"memory-bank/x.json"}}`, true},
		{"truncated read", `{"hook_event_name":"beforeReadFile","conversation_id":"c","file_path":"` + root + `/src/app.go","content":"pack`, false},
		{"an event mbguard does not use", `{"hook_event_name":"afterAgentThought","conversation_id":"c","text":"hm","duration_ms":5}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newCursorRun(t, root, block)
			r := h.raw("", []byte(tc.payload))
			if !json.Valid(r.Stdout) || r.Exit != 0 {
				t.Fatalf("exit %d stdout %q: want exit 0 and JSON", r.Exit, r.Stdout)
			}
			var out cursorReply
			json.Unmarshal(r.Stdout, &out)
			if (out.Permission == "deny") != tc.deny {
				t.Fatalf("reply %s (stderr %q): want denied=%v", r.Stdout, r.Stderr, tc.deny)
			}
			if tc.deny && !strings.Contains(out.AgentMessage, "mbguard") {
				t.Fatalf("refusal %q does not say who refused", out.AgentMessage)
			}
		})
	}
}

func TestCursorEscapeHatch(t *testing.T) {
	h := newCursorRun(t, bankRepo(t), map[string]string{"MBGUARD": "0"})
	r := h.tool("preToolUse", "Write", map[string]any{"file_path": filepath.Join(h.root, "memory-bank/x.json"), "contents": "{}"})
	if r.Decision != nil || r.Note == "" || cursorOut(t, r).Permission == "deny" {
		t.Fatalf("MBGUARD=0: decision %+v stdout %s note %q", r.Decision, r.Stdout, r.Note)
	}
}

func TestInstallCursor(t *testing.T) {
	o := InstallOptions{Root: t.TempDir(), Binary: "/opt/bin/mbguard"}
	p := filepath.Join(o.Root, ".cursor", "hooks.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"version":1,"hooks":{"afterFileEdit":[{"command":"./hooks/format.sh"}],"beforeShellExecution":[{"command":"./hooks/audit.sh"}]}}`), 0o644)
	for i := 0; i < 2; i++ { // a second run replaces mbguard's entries, never adds to them
		if _, err := InstallCursor(o); err != nil {
			t.Fatal(err)
		}
	}
	var got struct {
		Version int                     `json:"version"`
		Hooks   map[string][]cursorHook `json:"hooks"`
	}
	b, _ := os.ReadFile(p)
	if err := json.Unmarshal(b, &got); err != nil || got.Version != 1 {
		t.Fatalf("hooks.json %s: %v", b, err)
	}
	for _, ev := range CursorEvents {
		n := 0
		for _, h := range got.Hooks[ev] {
			if h.Command == "/opt/bin/mbguard hook cursor "+ev && h.Timeout == 30 {
				n++
				// a gate that fails open lets the action run when mbguard crashes or times out
				if gate := ev == "preToolUse" || ev == "beforeShellExecution" || ev == "beforeReadFile"; h.FailClosed != gate {
					t.Errorf("%s: failClosed %v, want %v", ev, h.FailClosed, gate)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d mbguard entries, want 1", ev, n)
		}
	}
	if len(got.Hooks["afterFileEdit"]) != 2 || got.Hooks["afterFileEdit"][0].Command != "./hooks/format.sh" || len(got.Hooks["beforeShellExecution"]) != 2 || got.Hooks["beforeShellExecution"][0].Command != "./hooks/audit.sh" {
		t.Fatalf("the user's hooks were not kept first and whole:\n%s", b)
	}
	o.Uninstall = true
	if _, err := InstallCursor(o); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(p)
	if strings.Contains(string(b), "hook cursor") || !strings.Contains(string(b), "./hooks/audit.sh") || !strings.Contains(string(b), "./hooks/format.sh") {
		t.Fatalf("uninstall left\n%s", b)
	}

	// --global writes ~/.cursor/hooks.json; uninstalling the only hooks removes the file
	g := InstallOptions{Home: t.TempDir(), Global: true, Binary: "mbguard"}
	if _, err := InstallCursor(g); err != nil {
		t.Fatal(err)
	}
	gp := filepath.Join(g.Home, ".cursor", "hooks.json")
	if b, err := os.ReadFile(gp); err != nil || !strings.Contains(string(b), `"command": "mbguard hook cursor preToolUse"`) {
		t.Fatalf("global hooks.json: %s %v", b, err)
	}
	g.Uninstall = true
	if _, err := InstallCursor(g); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gp); !os.IsNotExist(err) {
		t.Fatalf("a hooks.json holding only mbguard's hooks is still there after uninstall: %v", err)
	}
	if step := TrustStep("cursor", false); !strings.Contains(step, "trust") {
		t.Fatalf("trust step %q: want the workspace trust step", step)
	}
	if _, err := InstallCursor(InstallOptions{Global: true}); err == nil {
		t.Fatal("--global without HOME: want an error")
	}
}

func TestInstallCursorRefusesBrokenFile(t *testing.T) {
	o := InstallOptions{Root: t.TempDir(), Binary: "mbguard"}
	p := filepath.Join(o.Root, ".cursor", "hooks.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"version":1,"hooks":{`), 0o644)
	_, err := InstallCursor(o)
	if err == nil || !strings.Contains(err.Error(), "fix it by hand") {
		t.Fatalf("err %v: want a refusal naming the next step", err)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"version":1,"hooks":{` {
		t.Fatalf("the broken file was changed: %s", b)
	}
}

// Every event install registers, as the schema sends it, gets the reply shape Cursor reads for
// that event; a new event in CursorEvents without a case here fails.
func TestCursorEveryEvent(t *testing.T) {
	root := bankRepo(t)
	h := newCursorRun(t, root, nil)
	write := map[string]any{"file_path": filepath.Join(root, "src/app.go"), "contents": "package app // x\n"}
	cases := map[string]struct {
		fields map[string]any
		want   []string // keys of the reply object, sorted
	}{
		"sessionStart":         {map[string]any{"session_id": h.sess, "is_background_agent": false, "composer_mode": "agent"}, []string{"additional_context"}},
		"beforeSubmitPrompt":   {map[string]any{"prompt": "tidy", "attachments": []any{}}, []string{"continue"}},
		"preToolUse":           {map[string]any{"tool_name": "Write", "tool_input": write, "tool_use_id": "t1", "cwd": root}, []string{"agent_message", "permission"}}, // a Doc-First warning rides with allow
		"postToolUse":          {map[string]any{"tool_name": "Write", "tool_input": write, "tool_use_id": "t1", "tool_output": "ok", "duration": 3, "cwd": root}, nil},
		"postToolUseFailure":   {map[string]any{"tool_name": "Write", "tool_input": write, "tool_use_id": "t2", "error_message": "EACCES", "failure_type": "error", "is_interrupt": false, "cwd": root}, nil},
		"beforeShellExecution": {map[string]any{"command": "ls", "cwd": root, "sandbox": false}, []string{"permission"}},
		"afterShellExecution":  {map[string]any{"command": "ls", "output": "src\n", "duration": 5, "cwd": root}, nil},
		"beforeReadFile":       {map[string]any{"file_path": filepath.Join(root, "src/app.go"), "content": "package app\n", "attachments": []any{}}, []string{"permission"}},
		"afterFileEdit":        {map[string]any{"file_path": filepath.Join(root, "src/app.go"), "edits": []any{map[string]any{"old_string": "", "new_string": "package app // x\n"}}}, nil},
		"preCompact":           {map[string]any{"trigger": "manual", "context_usage_percent": 50, "message_count": 9, "messages_to_compact": 5, "is_first_compaction": true}, nil},
		"stop":                 {map[string]any{"status": "completed", "loop_count": 0}, nil},
		"sessionEnd":           {map[string]any{"session_id": h.sess, "reason": "user_close", "final_status": "completed", "duration_ms": 900}, nil},
	}
	for _, ev := range CursorEvents {
		tc, ok := cases[ev]
		if !ok {
			t.Fatalf("%s is installed but has no case here", ev)
		}
		r := h.send(ev, tc.fields)
		var out map[string]any
		if err := json.Unmarshal(r.Stdout, &out); err != nil || r.Exit != 0 {
			t.Fatalf("%s: exit %d stdout %q", ev, r.Exit, r.Stdout)
		}
		var keys []string
		for k := range out {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, tc.want) {
			t.Errorf("%s: reply %s, want the keys %v (stderr %q, note %q)", ev, r.Stdout, tc.want, r.Stderr, r.Note)
		}
		if r.Note != "" && ev != "sessionEnd" {
			t.Errorf("%s: note %q: an event install registers must be one mbguard uses", ev, r.Note)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".git/mbguard/sessions", h.sess+".json")); !os.IsNotExist(err) {
		t.Errorf("sessionEnd left the session state: %v", err)
	}
}

// beforeReadFile can only allow or deny, and nothing after a read or a shell command can replace
// what the model got: a bank file holding a secret is refused to the read and to a shell read, a
// search that would show it too; the model learns why (file, line, rule — never the secret) with
// the refusal of the shell command, or with the next event for the read. Reads of clean files,
// and listings, still run.
func TestCursorSecretInBankIsRefused(t *testing.T) {
	secret := "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	root := bankRepo(t)
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\ntoken "+secret+"\n")
	h := newCursorRun(t, root, nil)
	h.prompt("p")
	r := h.readFile("memory-bank/details/progress.md")
	if strings.Contains(string(r.Stdout), secret) || cursorOut(t, r).Permission != "deny" {
		t.Fatalf("beforeReadFile of a bank file with a secret: reply %s, want deny", r.Stdout)
	}
	out := cursorOut(t, h.send("postToolUse", map[string]any{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "x"},
		"tool_output": "", "tool_use_id": "g", "cwd": root}))
	if !strings.Contains(out.Additional, "memory-bank/details/progress.md") || !strings.Contains(out.Additional, "line 2") || strings.Contains(out.Additional, secret) {
		t.Fatalf("additional_context after the refused read %q: want the file and line, never the secret", out.Additional)
	}
	for _, cmd := range []string{"cat memory-bank/details/progress.md", "grep -rn ghp_ .", "base64 memory-bank/details/progress.md"} {
		r := h.shell(cmd)
		why := cursorDenied(t, r)
		if why == "" || strings.Contains(string(r.Stdout), secret) {
			t.Errorf("beforeShellExecution %q: reply %s, want deny without the secret", cmd, r.Stdout)
		}
	}
	for _, cmd := range []string{"ls memory-bank/details", "cat memory-bank/details/patterns.md", "grep -rn queue --exclude-dir=memory-bank ."} {
		if why := cursorDenied(t, h.shell(cmd)); why != "" {
			t.Errorf("beforeShellExecution %q refused: %s", cmd, why)
		}
	}
	if r := h.readFile("memory-bank/details/patterns.md"); cursorOut(t, r).Permission != "allow" {
		t.Fatalf("beforeReadFile of a clean bank file: reply %s, want allow", r.Stdout)
	}
}

// afterFileEdit closes the windows open before it: what an edit left in the bank that no write
// tool was allowed to write is undone then, even when its postToolUse never comes, and told with
// the next event that reaches the model.
func TestCursorAfterFileEditChecksTheEdit(t *testing.T) {
	root := bankRepo(t)
	h := newCursorRun(t, root, nil)
	h.prompt("p")
	h.readFile("memory-bank/details/patterns.md")
	note := filepath.Join(root, "memory-bank/details/learnings.md")
	if why := cursorDenied(t, h.tool("preToolUse", "Write", map[string]any{"file_path": note, "contents": "# Learnings\n"})); why != "" {
		t.Fatalf("preToolUse Write of a bank note refused: %s", why)
	}
	// the edit lands, and beside it a file no write tool was allowed to write
	testgit.Write(t, root, "memory-bank/details/learnings.md", "# Learnings\n")
	testgit.Write(t, root, "memory-bank/details/evil.json", "{}\n")
	r := h.send("afterFileEdit", map[string]any{"file_path": note, "edits": []any{map[string]any{"old_string": "", "new_string": "# Learnings\n"}}})
	if string(r.Stdout) != "{}\n" {
		t.Fatalf("afterFileEdit: stdout %q, want {}", r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank/details/evil.json")); !os.IsNotExist(err) {
		t.Fatalf("evil.json is still in the bank after afterFileEdit: %v", err)
	}
	if b, err := os.ReadFile(note); err != nil || string(b) != "# Learnings\n" {
		t.Fatalf("the allowed edit was not kept: %q %v", b, err)
	}
	out := cursorOut(t, h.send("postToolUse", map[string]any{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "x"},
		"tool_output": "", "tool_use_id": "g", "cwd": root}))
	if !strings.Contains(out.Additional, "evil.json") {
		t.Fatalf("the next additional_context %q does not tell the undo", out.Additional)
	}
}

// A payload that cannot be read still gets a reply in the shape of the event install named on
// the command line: a permission for a gate (refused when the fail-safe rule says so), {} else.
func TestCursorUnreadablePayloadGetsItsEventsShape(t *testing.T) {
	root := bankRepo(t)
	block := map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}
	cases := []struct {
		event, payload string
		env            map[string]string
		want           string
	}{
		{"preToolUse", "not json", block, "deny"},
		{"beforeShellExecution", `{"command":"echo x > memory-bank/a.js"`, nil, "deny"},
		{"beforeShellExecution", "\x00\x01", block, "deny"},
		{"beforeReadFile", "not json", block, "allow"},
		{"sessionStart", "not json", nil, ""},
		{"afterFileEdit", "not json", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.event+" "+tc.payload, func(t *testing.T) {
			h := newCursorRun(t, root, tc.env)
			r := h.raw(tc.event, []byte(tc.payload))
			var out cursorReply
			if err := json.Unmarshal(r.Stdout, &out); err != nil || r.Exit != 0 {
				t.Fatalf("exit %d stdout %q: want exit 0 and JSON", r.Exit, r.Stdout)
			}
			if out.Permission != tc.want {
				t.Fatalf("reply %s (stderr %q): want permission %q", r.Stdout, r.Stderr, tc.want)
			}
		})
	}
}
