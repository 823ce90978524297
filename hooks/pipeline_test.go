package hooks

import (
	"context"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/watcher"
)

// A check that cannot finish still answers before the host's timeout: a tool that may write is
// refused (most hosts let a timed-out hook's call run), and so is a read of the bank (its secret
// check is what was late); another read goes ahead with a note. The Service here never answers
// until the test ends, so without the reply deadline Run would not return at all.
func TestLateCheckAnswersInTime(t *testing.T) {
	root := bankRepo(t)
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	connect := func(repo.Repo, *config.Config) (Doer, func(), error) {
		return func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
			<-stuck
			return watcher.Response{}, nil
		}, func() {}, nil
	}
	env := map[string]string{ReplyDeadlineEnv: "50ms"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		host, payload string
		deny          bool
	}{
		{"claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Write","tool_input":{"file_path":"ROOT/src/a.go","content":"x"},"tool_use_id":"t1"}`, true},
		{"claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"t2"}`, true},
		{"claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Read","tool_input":{"file_path":"ROOT/src/a.go"},"tool_use_id":"t3"}`, false},
		{"claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Read","tool_input":{"file_path":"ROOT/memory-bank/MEMORY.md"},"tool_use_id":"t5"}`, true},
		{"qwen", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"read_file","tool_input":{"absolute_path":"ROOT/memory-bank/details/tech.md"}}`, true},
		{"codex", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"t4"}`, true},
		{"qwen", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"write_file","tool_input":{"file_path":"ROOT/a.txt","content":"x"}}`, true},
	} {
		hk := &Hook{Host: tc.host, Dir: root, Getenv: getenv, Connect: connect}
		r := hk.Run(context.Background(), strings.NewReader(strings.ReplaceAll(tc.payload, "ROOT", root)))
		denied := r.Exit == 2 || strings.Contains(string(r.Stdout), `"deny"`) || strings.Contains(string(r.Stdout), `"block"`)
		if denied != tc.deny {
			t.Errorf("%s %s: denied=%v, want %v\nstdout: %s\nstderr: %s", tc.host, tc.payload[:60], denied, tc.deny, r.Stdout, r.Stderr)
		}
		if text := string(r.Stdout) + r.Stderr; !strings.Contains(text, "did not finish within 50ms") {
			t.Errorf("%s: the reply does not say the check did not finish: %s", tc.host, text)
		}
	}
}
