package hooks

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/proctab"
	"github.com/mbguard/mbguard/internal/testhost"
)

// An http hook request is the host's own: AnswerHTTP refuses, with 403 and nothing recorded,
// one whose sender runs under the host of a call in flight (here a child of this process,
// whose PreToolUse made it the host), and one whose sender could not be told. Its answers
// are Claude Code's JSON: a refusal is a deny, not an exit code.
func TestAnswerHTTPSender(t *testing.T) {
	if !proctab.Local().Supported() {
		testhost.Missing(t, "a process table (/proc)", "http hooks are Linux only")
	}
	sleep := testhost.Tool(t, "sleep", "apt-get install -y coreutils")
	root := bankRepo(t)
	h := &hookRun{root: root, sess: "http-session", t: t}
	hk := httpHook(t, root)
	ctx := context.Background()
	send := func(from int, why string, p []byte) (int, string) {
		status, body := hk.AnswerHTTP(ctx, HTTPRequest{Payload: p, From: from, Why: why})
		return status, string(body)
	}

	bankWrite := h.payload("PreToolUse", map[string]any{"tool_name": "Write", "tool_use_id": "w1",
		"tool_input": map[string]any{"file_path": root + "/memory-bank/x.txt", "content": "x"}})
	if status, body := send(os.Getpid(), "", bankWrite); status != 200 || !strings.Contains(body, `"permissionDecision":"deny"`) {
		t.Fatalf("a bank write from the host: %d %s, want a JSON deny", status, body)
	}
	// MBGUARD=0 in the host's environment arrives in a header: the escape hatch holds
	if status, body := hk.AnswerHTTP(ctx, HTTPRequest{Payload: bankWrite, From: os.Getpid(), Env: "0"}); status != 200 || strings.TrimSpace(string(body)) != "{}" {
		t.Errorf("a bank write with MBGUARD=0: %d %s, want it let through", status, body)
	}
	if status, body := send(0, "its socket is not in the process table", bankWrite); status != 403 || !strings.Contains(body, "could not be told (its socket is not in the process table)") {
		t.Errorf("an unknown sender: %d %s", status, body)
	}

	edit := h.payload("PreToolUse", map[string]any{"tool_name": "Write", "tool_use_id": "e1",
		"tool_input": map[string]any{"file_path": root + "/src/new.go", "content": "package src\n"}})
	if status, body := send(os.Getpid(), "", edit); status != 200 || strings.Contains(body, "deny") {
		t.Fatalf("a code write from the host: %d %s, want it let through (it stays in flight)", status, body)
	}
	child := exec.Command(sleep, "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	read := h.payload("PostToolUse", map[string]any{"tool_name": "Read", "tool_use_id": "r1",
		"tool_input": map[string]any{"file_path": root + "/memory-bank/MEMORY.md"}, "tool_response": map[string]any{}})
	status, body := send(child.Process.Pid, "", read)
	if status != 403 || !strings.Contains(body, "sent from inside an agent's tool call") {
		t.Errorf("a read sent by a process under the host with a call in flight: %d %s, want 403", status, body)
	}
	// a call about another repository is not this watcher's to answer
	other := bankRepo(t)
	oh := &hookRun{root: other, sess: "http-other", t: t}
	otherWrite := oh.payload("PreToolUse", map[string]any{"tool_name": "Write", "tool_use_id": "o1",
		"tool_input": map[string]any{"file_path": other + "/memory-bank/notes.md", "content": "# notes\n"}})
	if status, body := send(os.Getpid(), "", otherWrite); status != 409 || !strings.Contains(body, "a watch.http_port of its own") {
		t.Errorf("a bank write in another repository: %d %s, want 409 (Claude Code then refuses it) naming the next step", status, body)
	}
	bash := h.payload("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "b1", "tool_input": map[string]any{"command": "echo x > memory-bank/a.json"}})
	if status, body := send(os.Getpid(), "", bash); status != 200 || strings.TrimSpace(body) != "{}" {
		t.Errorf("a Bash event: %d %s, want {} (the command hook answers it)", status, body)
	}
}
