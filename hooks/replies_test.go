package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
)

// replyWriteTool is each host's own name for a file-writing tool, so that a tool event parses
// as the call it is (Cursor sends Shell and Read to their own events).
var replyWriteTool = map[string]string{
	"claude": "Write", "codex": "apply_patch", "gemini": "write_file", "copilot": "create",
	"qwen": "write_file", "crush": "write", "droid": "Create", "cursor": "Write",
	"auggie": "save-file",
	"cline":  "editor",
}

// replyVariants are the answers mbguard renders, in every shape the hook core produces them.
var replyVariants = []struct {
	name string
	ans  hookAnswer
}{
	{"allow", hookAnswer{}},
	{"deny", hookAnswer{Deny: "[mbguard] blocked: memory-bank/ takes only .md files. Next: write memory-bank/details/notes.md instead."}},
	{"context", hookAnswer{Context: "mbguard: read memory-bank/details/patterns.md before you change code."}},
	{"undo", hookAnswer{Undone: "[mbguard outcome] undone: memory-bank/x.json was written by a shell command; its bytes are in the quarantine.",
		Decision: &gating.Decision{Verdict: gating.Block, Gate: gating.GateOutcome}}},
	{"warning on stderr", hookAnswer{Stderr: "mbguard: the configuration file .mbguard.yaml is invalid; run mbguard doctor.\n"}},
}

// replyPayload is a minimal payload of host for event: the event in the field the host names it
// by, a session, a working directory and a write tool call.
func replyPayload(host, event string) []byte {
	m := map[string]any{"cwd": "/repo", "tool_name": replyWriteTool[host],
		"tool_input":  map[string]any{"file_path": "/repo/memory-bank/x.json", "path": "/repo/memory-bank/x.json", "content": "{}"},
		"tool_use_id": "call-1", "tool_response": "ok", "prompt": "go on", "source": "startup"}
	switch host {
	case "copilot":
		m["sessionId"] = "s1"
		m["toolName"], m["toolArgs"] = "create", `{"path":"/repo/memory-bank/x.json","file_text":"{}"}`
	case "crush":
		m["session_id"], m["event"] = "s1", event
	case "cursor":
		m["conversation_id"], m["generation_id"], m["hook_event_name"] = "s1", "g1", event
		m["workspace_roots"], m["command"], m["file_path"] = []string{"/repo"}, "ls", "/repo/memory-bank/MEMORY.md"
	case "cline":
		m = map[string]any{"taskId": "s1", "workspaceRoots": []string{"/repo"}}
		for name, ev := range clineHookNames {
			if ev == event {
				m["hookName"] = name
			}
		}
		call := map[string]any{"id": "call_1", "name": "editor", "input": map[string]any{"path": "/repo/memory-bank/x.json", "new_text": "{}"}}
		m["tool_call"], m["tool_result"] = call, call
	default:
		m["session_id"], m["hook_event_name"] = "s1", event
	}
	b, _ := json.Marshal(m)
	return b
}

// TestEveryReplyIsOneTheHostAccepts renders every answer mbguard can give, for every event of
// every host install registers, checks it against that host's reply rules (replyrules.go), and
// keeps the exact bytes in testdata/replies/<host>.golden so a reviewer sees what each host
// gets (go test ./hooks -run TestEveryReplyIsOneTheHostAccepts -update rewrites them).
func TestEveryReplyIsOneTheHostAccepts(t *testing.T) {
	for _, spec := range Registry() {
		if !spec.HookHost() {
			continue
		}
		t.Run(spec.Name, func(t *testing.T) {
			if _, ok := replyWriteTool[spec.Name]; !ok {
				t.Fatalf("host %s has no write tool in replyWriteTool: add it, with its reply rules", spec.Name)
			}
			var golden bytes.Buffer
			for _, event := range spec.Events {
				c, err := spec.proto.parse(replyPayload(spec.Name, event), event)
				if err != nil {
					t.Fatalf("%s: the minimal payload does not parse: %v", event, err)
				}
				for _, v := range replyVariants {
					ans := v.ans
					r := spec.proto.render(&c, &ans)
					if err := AcceptsReply(spec.Name, event, r); err != nil {
						t.Errorf("%s %s: %s rejects the reply: %v\nexit %d stdout %q stderr %q", event, v.name, spec.Title, err, r.Exit, r.Stdout, r.Stderr)
					}
					fmt.Fprintf(&golden, "## %s %s\nexit %d\nstdout %s\nstderr %q\n\n", event, v.name, r.Exit, strings.TrimSpace(string(r.Stdout)), r.Stderr)
				}
			}
			p := filepath.Join("testdata", "replies", spec.Name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, golden.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("%v (run go test ./hooks -run TestEveryReplyIsOneTheHostAccepts -update)", err)
			}
			if !bytes.Equal(want, golden.Bytes()) {
				t.Errorf("%s's replies changed; if that is meant, run go test ./hooks -run TestEveryReplyIsOneTheHostAccepts -update and review the diff of %s", spec.Title, p)
			}
		})
	}
}

// TestReplyRulesCatchWhatHostsReject keeps the rules honest: each reply a host is known to
// reject (HOSTS.md §8: Codex 0.171.0's list; Cursor's empty stdout) is caught.
func TestReplyRulesCatchWhatHostsReject(t *testing.T) {
	js := func(s string) Reply { return Reply{Stdout: []byte(s)} }
	cases := []struct {
		host, event string
		r           Reply
	}{
		{"codex", "PreToolUse", js(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`)},
		{"codex", "PreToolUse", js(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"x"}}`)},
		{"codex", "PreToolUse", js(`{"decision":"approve"}`)},
		{"codex", "PreToolUse", js(`{"continue":false}`)},
		{"codex", "PreToolUse", js(`{"suppressOutput":true}`)},
		{"codex", "Stop", js(`{"stopReason":"x"}`)},
		{"codex", "PreToolUse", js(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":""}}`)},
		{"codex", "PreToolUse", Reply{Exit: 2}},
		{"codex", "PreToolUse", js(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{}}}`)},
		{"codex", "PostToolUse", js(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":"x"}}`)},
		{"codex", "Stop", js(`{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"x"}}`)},
		{"claude", "PreToolUse", Reply{Exit: 2}},
		{"claude", "Stop", js(`{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"x"}}`)},
		{"claude", "PostToolUse", js(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x"}}`)},
		{"claude", "PreToolUse", Reply{Exit: 1, Stderr: "x"}},
		{"qwen", "PostToolUse", js(`{"decision":"block","reason":"x"}`)},
		{"gemini", "BeforeTool", Reply{}},
		{"copilot", "preToolUse", Reply{}},
		{"copilot", "preToolUse", js(`{"permissionDecision":"allow"}`)},
		{"crush", "PreToolUse", js(`{"decision":"deny"}`)},
		{"cursor", "preToolUse", Reply{}},
		{"cursor", "preToolUse", js(`{}`)},
		{"cursor", "beforeShellExecution", js(`{"permission":"deny"}`)},
		{"cursor", "beforeReadFile", js(`{"permission":"allow","agent_message":"x"}`)},
		{"cursor", "stop", js(`not json`)},
		{"cline", "PreToolUse", Reply{Exit: 2, Stderr: "blocked"}},
		{"cline", "PreToolUse", js(`{"cancel":true,"errorMessage":"blocked"}`)},
		{"cline", "PreToolUse", js(`{"overrideInput":{}}`)},
		{"cline", "PostToolUse", js(`{"overrideInput":{},"contextModification":"x"}`)},
		{"cline", "PreToolUse", js(`{"decision":"block"}`)},
	}
	for _, tc := range cases {
		if err := AcceptsReply(tc.host, tc.event, tc.r); err == nil {
			t.Errorf("%s %s: exit %d stdout %s was accepted; the host rejects it", tc.host, tc.event, tc.r.Exit, tc.r.Stdout)
		}
	}
	for _, spec := range Registry() {
		if spec.HookHost() {
			if _, ok := replyRules[spec.Name]; !ok {
				t.Errorf("host %s has no reply rules", spec.Name)
			}
		}
		if spec.Fails.Crash == "" || spec.Fails.Timeout == "" || spec.Fails.BadReply == "" || spec.Fails.How == "" {
			t.Errorf("host %s does not say how it fails (HostSpec.Fails)", spec.Name)
		}
	}
}
