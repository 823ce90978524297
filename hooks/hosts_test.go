package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/watcher"
)

// hostRun drives one host's adapter through a session with payloads shaped like the ones each
// host really sends (captured headless against the real CLIs; see HOSTS.md).
type hostRun struct {
	t    *testing.T
	host string
	root string
	cwd  string
	sess string
	env  map[string]string
	now  time.Time
	// events records every gating event the adapter sent, when record is set.
	record bool
	events []gating.Event
	// pid numbers Qwen's prompt_id: a prompt with text is a new user message
	pid int
}

func newHostRun(t *testing.T, host, root string, env map[string]string) *hostRun {
	return &hostRun{t: t, host: host, root: root, cwd: root, sess: "sess-" + host + "-1", env: env, now: time.UnixMilli(1_700_000_000_000)}
}

// raw sends one payload; event is the command line's event argument (Copilot).
func (h *hostRun) raw(event string, payload []byte) Reply {
	h.t.Helper()
	h.now = h.now.Add(time.Second)
	hk := &Hook{Host: h.host, Event: event, Dir: h.root, Getenv: func(k string) string { return h.env[k] }, Now: func() time.Time { return h.now }}
	if h.record {
		hk.Connect = func(r repo.Repo, cfg *config.Config) (Doer, func(), error) {
			svc := watcher.NewService(r, cfg, watcher.ServiceOptions{Now: hk.Now})
			return func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
				if req.Event != nil {
					h.events = append(h.events, *req.Event)
				}
				return svc.Handle(ctx, req), nil
			}, func() { svc.Close() }, nil
		}
	}
	r := hk.Handle(context.Background(), payload)
	if h.host != "claude" && h.host != "qwen" && h.host != "droid" && h.host != "auggie" && r.Exit != 0 {
		h.t.Fatalf("%s: exit %d; this host must always get exit 0 (stderr %q)", h.host, r.Exit, r.Stderr)
	}
	if (h.host == "gemini" || h.host == "copilot") && !json.Valid(r.Stdout) {
		h.t.Fatalf("%s: stdout %q is not JSON; this host needs JSON on every reply", h.host, r.Stdout)
	}
	return r
}

// call sends a payload built from fields in the host's dialect, adding its session and cwd.
func (h *hostRun) call(event string, fields map[string]any) Reply {
	h.t.Helper()
	m := map[string]any{"cwd": h.cwd}
	switch h.host {
	case "copilot":
		m["sessionId"] = h.sess
		m["timestamp"] = h.now.UnixMilli()
	case "crush": // HOSTS.md §7: "event", no hook_event_name, no call id
		m["session_id"] = h.sess
		m["event"] = event
	case "cursor": // docs/hosts/cursor.md: the conversation is the session, a generation per user message
		if event == "beforeSubmitPrompt" {
			h.pid++
		}
		m["conversation_id"] = h.sess
		m["generation_id"] = fmt.Sprintf("gen-%d", h.pid)
		m["hook_event_name"] = event
		m["workspace_roots"] = []string{h.root}
	case "auggie": // docs/hosts/auggie.md: no cwd, no session_id
		delete(m, "cwd")
		m["conversation_id"] = h.sess
		m["hook_event_name"] = event
		m["workspace_roots"] = []string{h.cwd}
	default:
		m["session_id"] = h.sess
		m["hook_event_name"] = event
		m["transcript_path"] = filepath.Join(h.root, ".t.jsonl")
	}
	if h.host == "qwen" {
		if p, _ := fields["prompt"].(string); event == "UserPromptSubmit" && p != "" {
			h.pid++
		}
		m["prompt_id"] = fmt.Sprintf("%s########%d", h.sess, h.pid)
		m["permission_mode"] = "yolo"
	}
	for k, v := range fields {
		m[k] = v
	}
	if h.host == "cline" {
		m = clinePayloadOf(event, h.sess, h.cwd, m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		h.t.Fatal(err)
	}
	arg := ""
	if h.host == "copilot" || h.host == "cline" {
		arg = event // Cline's hook file passes its event on the command line
	}
	return h.raw(arg, b)
}

// denied returns the refusal reason of a pre-tool reply ("" when it was not refused).
func denied(t *testing.T, host string, r Reply) string {
	t.Helper()
	if host == "claude" || host == "qwen" || host == "droid" || host == "auggie" {
		if r.Exit == 2 {
			return r.Stderr
		}
		return ""
	}
	var out struct {
		Decision           string `json:"decision"`
		Reason             string `json:"reason"`
		PermissionDecision string `json:"permissionDecision"`
		PermissionReason   string `json:"permissionDecisionReason"`
		Permission         string `json:"permission"` // Cursor
		AgentMessage       string `json:"agent_message"`
		H                  struct {
			PermissionDecision string `json:"permissionDecision"`
			PermissionReason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if len(r.Stdout) == 0 {
		return ""
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.Stdout)
	}
	switch host {
	case "codex":
		if out.H.PermissionDecision == "deny" {
			return out.H.PermissionReason
		}
	case "gemini", "crush":
		if out.Decision == "deny" {
			return out.Reason
		}
	case "copilot":
		if out.PermissionDecision == "deny" {
			return out.PermissionReason
		}
	case "cursor":
		if out.Permission == "deny" {
			return out.AgentMessage
		}
	case "cline":
		var c struct {
			Override *map[string]any `json:"overrideInput"`
			Context  string          `json:"contextModification"`
		}
		if json.Unmarshal(r.Stdout, &c) == nil && c.Override != nil {
			return c.Context
		}
	}
	return ""
}

// clinePayloadOf turns fields in the Claude-shaped test dialect (tool_name, tool_input,
// tool_response) into Cline 3.0.65's payload for event, as captured headless
// (docs/hosts/cline.md).
func clinePayloadOf(event, sess, cwd string, f map[string]any) map[string]any {
	m := map[string]any{"clineVersion": "", "taskId": sess, "workspaceRoots": []string{cwd}, "userId": "unknown",
		"agent_id": "agent_1", "parent_agent_id": nil}
	for name, ev := range clineHookNames {
		if ev == event {
			m["hookName"] = name
		}
	}
	name, _ := f["tool_name"].(string)
	in, _ := f["tool_input"].(map[string]any)
	params := map[string]string{}
	for k, v := range in {
		if s, ok := v.(string); ok {
			params[k] = s
		} else {
			b, _ := json.Marshal(v)
			params[k] = string(b)
		}
	}
	switch event {
	case "PreToolUse":
		m["tool_call"] = map[string]any{"id": "call_1", "name": name, "input": in}
		m["preToolUse"] = map[string]any{"toolName": name, "parameters": params}
	case "PostToolUse":
		out := f["tool_response"]
		m["tool_result"] = map[string]any{"id": "call_1", "name": name, "input": in, "output": out}
		b, _ := json.Marshal(out)
		m["postToolUse"] = map[string]any{"toolName": name, "parameters": params, "result": string(b), "success": true}
	case "UserPromptSubmit":
		m["userPromptSubmit"] = map[string]any{"prompt": f["prompt"], "attachments": []any{}}
	}
	return m
}

// contextOf returns the text a reply gives the model as context.
func contextOf(t *testing.T, host string, r Reply) string {
	t.Helper()
	if len(r.Stdout) == 0 {
		return ""
	}
	var out struct {
		Additional string `json:"additionalContext"`
		H          struct {
			Event      string `json:"hookEventName"`
			Additional string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.Stdout)
	}
	if host == "copilot" {
		return out.Additional
	}
	if host == "cline" {
		var c struct {
			Context string `json:"contextModification"`
		}
		_ = json.Unmarshal(r.Stdout, &c)
		return c.Context
	}
	if out.H.Additional != "" && out.H.Event != r.Event {
		t.Fatalf("hookEventName %q, want %q", out.H.Event, r.Event)
	}
	return out.H.Additional
}

// Captured payload shapes, one builder per host and action, with paths as each host sends them.
type hostShapes struct {
	prompt, preTool, postTool, start, end string
	write                                 func(h *hostRun, rel, content string) (string, map[string]any)
	shell                                 func(h *hostRun, cmd string) (string, map[string]any)
	read                                  func(h *hostRun, rel string) (pre string, preFields map[string]any, post map[string]any)
}

var shapes = map[string]hostShapes{
	// Cline 3.0.65, captured headless (docs/hosts/cline.md): workspace-relative paths as the
	// model wrote them; clinePayloadOf builds the payload
	"cline": {prompt: "UserPromptSubmit", preTool: "PreToolUse", postTool: "PostToolUse", start: "TaskStart", end: "TaskComplete",
		write: func(h *hostRun, rel, content string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "editor", "tool_input": map[string]any{"path": rel, "new_text": content}}
		},
		shell: func(h *hostRun, cmd string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "run_commands", "tool_input": map[string]any{"commands": []any{cmd}}}
		},
		read: func(h *hostRun, rel string) (string, map[string]any, map[string]any) {
			in := map[string]any{"tool_name": "read_files", "tool_input": map[string]any{"files": []any{map[string]any{"path": rel}}}}
			post := map[string]any{"tool_name": "read_files", "tool_input": in["tool_input"],
				"tool_response": []any{map[string]any{"query": rel, "result": " 1 | # Patterns\n 2 | use the queue\n", "success": true}}}
			return "PreToolUse", in, post
		},
	},
	// Crush: PreToolUse only; relative paths accepted (HOSTS.md §7)
	"crush": {prompt: "PreToolUse", preTool: "PreToolUse", postTool: "PreToolUse", start: "PreToolUse", end: "PreToolUse",
		write: func(h *hostRun, rel, content string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "write", "tool_input": map[string]any{"file_path": rel, "content": content}}
		},
		shell: func(h *hostRun, cmd string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "bash", "tool_input": map[string]any{"command": cmd, "description": "run it"}}
		},
		read: func(h *hostRun, rel string) (string, map[string]any, map[string]any) {
			in := map[string]any{"tool_name": "view", "tool_input": map[string]any{"file_path": rel}}
			return "PreToolUse", in, in
		},
	},
	// Factory Droid 0.225.2, captured headless (docs/hosts/droid.md): absolute paths, no tool_use_id
	"droid": {prompt: "UserPromptSubmit", preTool: "PreToolUse", postTool: "PostToolUse", start: "SessionStart", end: "SessionEnd",
		write: func(h *hostRun, rel, content string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "Create", "permission_mode": "auto-high", "tool_input": map[string]any{"file_path": h.abs(rel), "content": content}}
		},
		shell: func(h *hostRun, cmd string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "Execute", "permission_mode": "auto-high",
				"tool_input": map[string]any{"command": cmd, "summary": "run it", "riskLevel": "low", "riskLevelReason": "read"}}
		},
		read: func(h *hostRun, rel string) (string, map[string]any, map[string]any) {
			in := map[string]any{"tool_name": "Read", "permission_mode": "auto-high", "tool_input": map[string]any{"file_path": h.abs(rel)}}
			post := map[string]any{"tool_name": "Read", "permission_mode": "auto-high", "tool_input": map[string]any{"file_path": h.abs(rel)}, "tool_response": "# Patterns\nuse the queue\n"}
			return "PreToolUse", in, post
		},
	},
	// Augment Auggie 0.36.0, captured under auggie --print (docs/hosts/auggie.md): paths relative
	// to the workspace root; tool_output "[undefined]" before the call
	"auggie": {prompt: "PromptSubmit", preTool: "PreToolUse", postTool: "PostToolUse", start: "SessionStart", end: "SessionEnd",
		write: func(h *hostRun, rel, content string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "save-file", "tool_input": map[string]any{"path": rel, "file_content": content},
				"tool_output": "[undefined]", "tool_error": nil, "is_mcp_tool": false}
		},
		shell: func(h *hostRun, cmd string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "launch-process", "tool_input": map[string]any{"command": cmd, "wait": true, "max_wait_seconds": 60, "cwd": "."},
				"tool_output": "[undefined]", "tool_error": nil, "is_mcp_tool": false}
		},
		read: func(h *hostRun, rel string) (string, map[string]any, map[string]any) {
			in := map[string]any{"tool_name": "view", "tool_input": map[string]any{"path": rel, "type": "file"}, "tool_output": "[undefined]", "tool_error": nil, "is_mcp_tool": false}
			post := map[string]any{"tool_name": "view", "tool_input": map[string]any{"path": rel, "type": "file"}, "tool_output": "# Patterns\nuse the queue\n", "tool_error": nil, "is_mcp_tool": false}
			return "PreToolUse", in, post
		},
	},
	// Cursor: payloads built from its published schema (docs/hosts/cursor.md); shell and reads
	// have their own events
	"cursor": {prompt: "beforeSubmitPrompt", preTool: "preToolUse", postTool: "postToolUse", start: "sessionStart", end: "sessionEnd",
		write: func(h *hostRun, rel, content string) (string, map[string]any) {
			return "preToolUse", map[string]any{"tool_name": "Write", "tool_use_id": "toolu_w", "tool_input": map[string]any{"file_path": rel, "contents": content}}
		},
		shell: func(h *hostRun, cmd string) (string, map[string]any) {
			return "beforeShellExecution", map[string]any{"command": cmd, "sandbox": false}
		},
		read: func(h *hostRun, rel string) (string, map[string]any, map[string]any) {
			in := map[string]any{"file_path": h.abs(rel), "content": "# Patterns\nuse the queue\n", "attachments": []any{}}
			post := map[string]any{"tool_name": "Read", "tool_use_id": "toolu_r", "tool_input": map[string]any{"file_path": h.abs(rel)}, "tool_output": "# Patterns"}
			return "beforeReadFile", in, post
		},
	},
	// Qwen Code 0.24.4: file tools take absolute paths only (HOSTS.md §6)
	"qwen": {prompt: "UserPromptSubmit", preTool: "PreToolUse", postTool: "PostToolUse", start: "SessionStart", end: "SessionEnd",
		write: func(h *hostRun, rel, content string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "write_file", "tool_use_id": "call_w", "tool_call_id": "tc_w",
				"tool_input": map[string]any{"file_path": h.abs(rel), "content": content}}
		},
		shell: func(h *hostRun, cmd string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "run_shell_command", "tool_use_id": "call_s",
				"tool_input": map[string]any{"command": cmd, "description": "run it", "is_background": false}}
		},
		read: func(h *hostRun, rel string) (string, map[string]any, map[string]any) {
			in := map[string]any{"tool_name": "read_file", "tool_use_id": "call_r", "tool_input": map[string]any{"file_path": filepath.Join(h.root, rel)}}
			post := map[string]any{"tool_name": "read_file", "tool_use_id": "call_r", "tool_input": map[string]any{"file_path": filepath.Join(h.root, rel)},
				"tool_response": map[string]any{"llmContent": "# Patterns\nuse the queue\n", "returnDisplay": ""}}
			return "PreToolUse", in, post
		},
	},
	"codex": {prompt: "UserPromptSubmit", preTool: "PreToolUse", postTool: "PostToolUse", start: "SessionStart", end: "SessionEnd",
		write: func(h *hostRun, rel, content string) (string, map[string]any) {
			patch := "*** Begin Patch\n*** Add File: " + rel + "\n+" + strings.ReplaceAll(strings.TrimSuffix(content, "\n"), "\n", "\n+") + "\n*** End Patch\n"
			return "PreToolUse", map[string]any{"tool_name": "apply_patch", "tool_use_id": "call_2", "tool_input": map[string]any{"command": patch}}
		},
		shell: func(h *hostRun, cmd string) (string, map[string]any) {
			return "PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "call_3", "tool_input": map[string]any{"command": cmd}}
		},
		read: func(h *hostRun, rel string) (string, map[string]any, map[string]any) {
			in := map[string]any{"tool_name": "Bash", "tool_use_id": "call_4", "tool_input": map[string]any{"command": "cat " + rel}}
			post := map[string]any{"tool_name": "Bash", "tool_use_id": "call_4", "tool_input": map[string]any{"command": "cat " + rel}, "tool_response": "# Patterns\nuse the queue\n"}
			return "PreToolUse", in, post
		},
	},
	"gemini": {prompt: "BeforeAgent", preTool: "BeforeTool", postTool: "AfterTool", start: "SessionStart", end: "SessionEnd",
		write: func(h *hostRun, rel, content string) (string, map[string]any) {
			return "BeforeTool", map[string]any{"tool_name": "write_file", "tool_input": map[string]any{"file_path": rel, "content": content}}
		},
		shell: func(h *hostRun, cmd string) (string, map[string]any) {
			return "BeforeTool", map[string]any{"tool_name": "run_shell_command", "tool_input": map[string]any{"command": cmd, "description": "run it"}}
		},
		read: func(h *hostRun, rel string) (string, map[string]any, map[string]any) {
			in := map[string]any{"tool_name": "read_file", "tool_input": map[string]any{"file_path": rel}}
			post := map[string]any{"tool_name": "read_file", "tool_input": map[string]any{"file_path": rel},
				"tool_response": map[string]any{"llmContent": "# Patterns\nuse the queue\n", "returnDisplay": ""}}
			return "BeforeTool", in, post
		},
	},
	"copilot": {prompt: "userPromptSubmitted", preTool: "preToolUse", postTool: "postToolUse", start: "sessionStart", end: "sessionEnd",
		write: func(h *hostRun, rel, content string) (string, map[string]any) {
			return "preToolUse", map[string]any{"toolName": "create", "toolArgs": map[string]any{"path": filepath.Join(h.root, rel), "file_text": content}}
		},
		shell: func(h *hostRun, cmd string) (string, map[string]any) {
			return "preToolUse", map[string]any{"toolName": "bash", "toolArgs": map[string]any{"command": cmd, "description": "run it", "mode": "sync", "initial_wait": 10}}
		},
		read: func(h *hostRun, rel string) (string, map[string]any, map[string]any) {
			in := map[string]any{"toolName": "view", "toolArgs": map[string]any{"path": filepath.Join(h.root, rel)}}
			post := map[string]any{"toolName": "view", "toolArgs": map[string]any{"path": filepath.Join(h.root, rel)},
				"toolResult": map[string]any{"resultType": "success", "textResultForLlm": "1. # Patterns"}}
			return "preToolUse", in, post
		},
	},
}

var newHosts = []string{"codex", "gemini", "copilot", "qwen"}

// abs is rel as Qwen's file tools take it: absolute, relative to the session's cwd.
func (h *hostRun) abs(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	if h.cwd != "" {
		return filepath.Join(h.cwd, rel)
	}
	return filepath.Join(h.root, rel)
}

func (h *hostRun) write(rel, content string) Reply {
	h.t.Helper()
	ev, f := shapes[h.host].write(h, rel, content)
	return h.call(ev, f)
}

func (h *hostRun) readFile(rel string) {
	h.t.Helper()
	ev, in, post := shapes[h.host].read(h, rel)
	if reason := denied(h.t, h.host, h.call(ev, in)); reason != "" {
		h.t.Fatalf("read of %s refused: %s", rel, reason)
	}
	h.call(shapes[h.host].postTool, post)
}

func (h *hostRun) prompt(text string) Reply {
	h.t.Helper()
	return h.call(shapes[h.host].prompt, map[string]any{"prompt": text})
}

func TestHostsBankGuard(t *testing.T) {
	for _, host := range newHosts {
		t.Run(host, func(t *testing.T) {
			tests := []struct {
				name string
				send func(h *hostRun) Reply
				want string // in the refusal; "" = allowed
			}{
				{"non-md write into the bank", func(h *hostRun) Reply { return h.write("memory-bank/x.json", "{\"a\": 1}\n") }, "[mbguard bank]"},
				{"shell redirect into the bank", func(h *hostRun) Reply {
					ev, f := shapes[host].shell(h, "echo hi > memory-bank/notes.md")
					return h.call(ev, f)
				}, "[mbguard bank]"},
				{"shell read of the bank", func(h *hostRun) Reply {
					ev, f := shapes[host].shell(h, "cat memory-bank/MEMORY.md")
					return h.call(ev, f)
				}, ""},
				{"md write into the bank", func(h *hostRun) Reply { return h.write("memory-bank/details/notes.md", "# Notes\n") }, ""},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					root := bankRepo(t)
					h := newHostRun(t, host, root, map[string]string{"MEMORY_BANK_GUARD_MODE": "off"})
					h.prompt("p")
					got := denied(t, host, tc.send(h))
					if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
						t.Fatalf("refusal %q, want %q", got, tc.want)
					}
					if _, err := os.Stat(filepath.Join(root, "memory-bank/x.json")); err == nil {
						t.Fatal("the hook wrote the file itself")
					}
				})
			}
		})
	}
}

func TestHostsReadGate(t *testing.T) {
	block := map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}
	for _, host := range newHosts {
		t.Run(host, func(t *testing.T) {
			h := newHostRun(t, host, bankRepo(t), block)
			h.prompt("add a dependency")
			if got := denied(t, host, h.write("go.mod", "module x\n")); !strings.Contains(got, "memory-bank/details/patterns.md") {
				t.Fatalf("before reading: refusal %q, want one naming patterns.md", got)
			}
			h.readFile("memory-bank/details/patterns.md")
			if got := denied(t, host, h.write("go.mod", "module x\n")); got != "" {
				t.Fatalf("after reading: refused %q", got)
			}
			h.prompt("next message")
			if got := denied(t, host, h.write("go.mod", "module x\n")); got == "" {
				t.Fatal("a new message kept the previous message's reads")
			}
		})
	}
}

// A failed read reads nothing: it must not open the read gate.
func TestHostsFailedReadDoesNotCount(t *testing.T) {
	failed := map[string]map[string]any{
		"gemini": {"tool_name": "read_file", "tool_input": map[string]any{"file_path": "memory-bank/details/patterns.md"},
			"tool_response": map[string]any{"llmContent": "", "error": map[string]any{"message": "ENOENT"}}},
		"copilot": {"toolName": "view", "toolArgs": map[string]any{"path": "memory-bank/details/patterns.md"},
			"toolResult": map[string]any{"resultType": "failure", "textResultForLlm": "no such file"}},
	}
	for host, post := range failed {
		t.Run(host, func(t *testing.T) {
			h := newHostRun(t, host, bankRepo(t), map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
			h.prompt("p")
			h.call(shapes[host].postTool, post)
			if got := denied(t, host, h.write("go.mod", "module x\n")); got == "" {
				t.Fatal("a failed read opened the read gate")
			}
		})
	}
}

func TestHostsSessionStartContext(t *testing.T) {
	for _, host := range newHosts {
		t.Run(host, func(t *testing.T) {
			h := newHostRun(t, host, bankRepo(t), nil)
			fields := map[string]any{"source": "startup"}
			if host == "copilot" {
				fields = map[string]any{"source": "new", "initialPrompt": "hi"}
			}
			ctx := contextOf(t, host, h.call(shapes[host].start, fields))
			if !strings.HasPrefix(ctx, gating.ContextSentinel) || !strings.Contains(ctx, "ship the payment retry queue") {
				t.Fatalf("context %q: want the memory-bank block with MEMORY.md", ctx)
			}
		})
	}
}

func TestHostsSecretInMemoryIsRedacted(t *testing.T) {
	secret := "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	for _, host := range newHosts {
		t.Run(host, func(t *testing.T) {
			root := bankRepo(t)
			testgit.Write(t, root, "memory-bank/MEMORY.md", strings.Replace(testMemory, "my notes", "token "+secret, 1))
			h := newHostRun(t, host, root, nil)
			r := h.call(shapes[host].start, map[string]any{"source": "startup"})
			if strings.Contains(string(r.Stdout), secret) {
				t.Fatalf("the secret reached the model: %s", r.Stdout)
			}
		})
	}
}

func TestHostsSessionEndForgets(t *testing.T) {
	for _, host := range newHosts {
		t.Run(host, func(t *testing.T) {
			root := bankRepo(t)
			h := newHostRun(t, host, root, nil)
			h.prompt("p")
			state := filepath.Join(root, ".git/mbguard/sessions", h.sess+".json")
			if _, err := os.Stat(state); err != nil {
				t.Fatalf("no session state after a prompt: %v", err)
			}
			h.call(shapes[host].end, map[string]any{"reason": "exit"})
			if _, err := os.Stat(state); !os.IsNotExist(err) {
				t.Fatalf("session state still there after the session ended: %v", err)
			}
		})
	}
}

// Codex reports one compaction three times; recovery arms once and the anchor block comes back
// with SessionStart(compact), the context Codex puts into the compacted conversation.
func TestCodexCompaction(t *testing.T) {
	root := bankRepo(t)
	h := newHostRun(t, "codex", root, nil)
	h.prompt("p")
	h.readFile("memory-bank/details/progress.md")
	if r := h.call("PreCompact", map[string]any{"trigger": "auto", "turn_id": "t1"}); r.Decision == nil || r.Decision.Recovery != "armed" || len(r.Stdout) != 0 {
		t.Fatalf("PreCompact: decision %+v stdout %q; want armed, nothing printed", r.Decision, r.Stdout)
	}
	if r := h.call("PostCompact", map[string]any{"trigger": "auto", "turn_id": "t1"}); r.Decision == nil || r.Decision.Recovery != "" {
		t.Fatalf("PostCompact re-armed: %+v", r.Decision)
	}
	ctx := contextOf(t, "codex", h.call("SessionStart", map[string]any{"source": "compact"}))
	if !strings.Contains(ctx, gating.AnchorSentinel) || !strings.Contains(ctx, "memory-bank/details/progress.md") {
		t.Fatalf("SessionStart(compact) context %q: want the anchor block", ctx)
	}
	if got := denied(t, "codex", h.write("go.mod", "module x\n")); !strings.Contains(got, "memory-bank/MEMORY.md") {
		t.Fatalf("write while recovery is armed: refusal %q, want the unread anchors", got)
	}
	for _, a := range []string{"memory-bank/details/progress.md", "memory-bank/MEMORY.md", "memory-bank/details/patterns.md"} {
		h.readFile(a)
	}
	if got := denied(t, "codex", h.write("go.mod", "module x\n")); got != "" {
		t.Fatalf("write after reading the anchors refused: %s", got)
	}
}

// Copilot's preCompact output reaches no model and sessionStart does not fire again: recovery
// arms at preCompact and the anchor block rides on the next prompt, once.
func TestCopilotCompaction(t *testing.T) {
	h := newHostRun(t, "copilot", bankRepo(t), nil)
	h.prompt("p")
	r := h.call("preCompact", map[string]any{"transcriptPath": "/x/events.jsonl", "trigger": "auto", "customInstructions": ""})
	if r.Decision == nil || r.Decision.Recovery != "armed" || contextOf(t, "copilot", r) != "" {
		t.Fatalf("preCompact: decision %+v stdout %s", r.Decision, r.Stdout)
	}
	if got := denied(t, "copilot", h.write("go.mod", "module x\n")); !strings.Contains(got, "memory-bank/MEMORY.md") {
		t.Fatalf("write while armed: refusal %q", got)
	}
	if ctx := contextOf(t, "copilot", h.prompt("go on")); !strings.Contains(ctx, gating.AnchorSentinel) {
		t.Fatalf("next prompt context %q: want the anchor block", ctx)
	}
	if ctx := contextOf(t, "copilot", h.prompt("and again")); strings.Contains(ctx, gating.AnchorSentinel) {
		t.Fatalf("the anchor block came twice: %q", ctx)
	}
}

// Gemini CLI has no sound compaction signal: PreCompress fires before every model call and
// must not arm anything; a resumed session gets the anchor block and armed recovery.
func TestGeminiCompaction(t *testing.T) {
	h := newHostRun(t, "gemini", bankRepo(t), nil)
	h.prompt("p")
	if r := h.call("PreCompress", map[string]any{"trigger": "auto"}); r.Decision != nil || string(r.Stdout) != "{}\n" || r.Note == "" {
		t.Fatalf("PreCompress: decision %+v stdout %q note %q; want ignored", r.Decision, r.Stdout, r.Note)
	}
	if got := denied(t, "gemini", h.write("go.mod", "module x\n")); got != "" {
		t.Fatalf("PreCompress armed recovery: %s", got)
	}
	r := h.call("SessionStart", map[string]any{"source": "resume"})
	ctx := contextOf(t, "gemini", r)
	if !strings.Contains(ctx, gating.ContextSentinel) || !strings.Contains(ctx, gating.AnchorSentinel) {
		t.Fatalf("resume context %q: want the memory-bank block and the anchor block", ctx)
	}
	if got := denied(t, "gemini", h.write("go.mod", "module x\n")); !strings.Contains(got, "memory-bank/MEMORY.md") {
		t.Fatalf("write after resume: refusal %q, want recovery armed", got)
	}
}

// BeforeTool cannot add context for Gemini's model: a warning waits for that tool's AfterTool.
func TestGeminiWarningReachesModelAfterTool(t *testing.T) {
	h := newHostRun(t, "gemini", bankRepo(t), nil) // warn mode
	h.prompt("p")
	r := h.write("go.mod", "module x\n")
	if r.Decision == nil || r.Decision.Verdict != gating.Warn || string(r.Stdout) != "{}\n" {
		t.Fatalf("BeforeTool: decision %+v stdout %q; want a warn and an empty reply", r.Decision, r.Stdout)
	}
	after := h.call("AfterTool", map[string]any{"tool_name": "write_file", "tool_input": map[string]any{"file_path": "go.mod", "content": "module x\n"},
		"tool_response": map[string]any{"llmContent": "Successfully created and wrote to new file"}})
	if ctx := contextOf(t, "gemini", after); !strings.Contains(ctx, "memory-bank/details/patterns.md") {
		t.Fatalf("AfterTool context %q: want the read-gate warning", ctx)
	}
}

func TestCopilotDialectsAndShapes(t *testing.T) {
	tests := []struct {
		name    string
		event   string // command-line argument
		payload func(root string) string
		deny    string // in the refusal; "" = allowed
	}{
		{"camelCase create, absolute path", "preToolUse", func(root string) string {
			return `{"sessionId":"s","timestamp":1,"cwd":"` + root + `","toolName":"create","toolArgs":{"path":"` + root + `/memory-bank/x.json","file_text":"{\"a\": 1}\n"}}`
		}, "[mbguard bank]"},
		{"camelCase edit", "preToolUse", func(root string) string {
			return `{"sessionId":"s","timestamp":1,"cwd":"` + root + `","toolName":"edit","toolArgs":{"path":"` + root + `/memory-bank/MEMORY.md","old_str":"<!-- USER_BLOCK_START -->","new_str":""}}`
		}, "[mbguard bank]"},
		{"apply_patch with toolArgs a string", "preToolUse", func(root string) string {
			return `{"sessionId":"s","timestamp":1,"cwd":"` + root + `","toolName":"apply_patch","toolArgs":"*** Begin Patch\n*** Add File: memory-bank/x.json\n+{}\n*** End Patch\n"}`
		}, "[mbguard bank]"},
		{"PascalCase Write with Copilot's argument names", "", func(root string) string {
			return `{"hook_event_name":"PreToolUse","session_id":"s","timestamp":"2026-11-26T03:00:00Z","cwd":"` + root + `","tool_name":"Write","tool_input":{"path":"` + root + `/memory-bank/x.json","file_text":"{}"}}`
		}, "[mbguard bank]"},
		{"PascalCase Bash", "", func(root string) string {
			return `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"` + root + `","tool_name":"Bash","tool_input":{"command":"rm memory-bank/MEMORY.md"}}`
		}, "[mbguard bank]"},
		{"event told by its fields (no argument)", "", func(root string) string {
			return `{"sessionId":"s","timestamp":1,"cwd":"` + root + `","toolName":"create","toolArgs":{"path":"memory-bank/x.json","file_text":"{}"}}`
		}, "[mbguard bank]"},
		{"write_bash types into a running shell", "preToolUse", func(root string) string {
			return `{"sessionId":"s","timestamp":1,"cwd":"` + root + `","toolName":"write_bash","toolArgs":{"shellId":"1","input":"echo x > memory-bank/a.md\n"}}`
		}, "[mbguard bank]"},
		{"view", "preToolUse", func(root string) string {
			return `{"sessionId":"s","timestamp":1,"cwd":"` + root + `","toolName":"view","toolArgs":{"path":"` + root + `/memory-bank/MEMORY.md"}}`
		}, ""},
		{"permissionRequest is let through", "permissionRequest", func(root string) string {
			return `{"sessionId":"s","timestamp":1,"cwd":"` + root + `","hookName":"permissionRequest","toolName":"edit","toolInput":{"file_path":"` + root + `/memory-bank/x.json","diff":"+{}"},"permissionSuggestions":[]}`
		}, ""},
		{"agentStop", "agentStop", func(root string) string {
			return `{"sessionId":"s","timestamp":1,"cwd":"` + root + `","transcriptPath":"/x","stopReason":"end_turn","stop_hook_active":false}`
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := bankRepo(t)
			h := newHostRun(t, "copilot", root, map[string]string{"MEMORY_BANK_GUARD_MODE": "off"})
			r := h.raw(tc.event, []byte(tc.payload(root)))
			got := denied(t, "copilot", r)
			if tc.deny == "" && got != "" || !strings.Contains(got, tc.deny) {
				t.Fatalf("refusal %q, want %q", got, tc.deny)
			}
			if strings.HasPrefix(tc.name, "PascalCase") && tc.deny != "" && !strings.Contains(string(r.Stdout), `"hookSpecificOutput"`) {
				t.Fatalf("PascalCase refusal lacks the hookSpecificOutput form: %s", r.Stdout)
			}
		})
	}
}

// Tool calls reach the engine in its vocabulary, with the host's call id where it sends one.
func TestHostsMapToolsForTheEngine(t *testing.T) {
	tests := []struct {
		host, event, payload string
		tool                 string
		args                 map[string]any
		call                 string
	}{
		{"codex", "", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"apply_patch","tool_use_id":"call_2","tool_input":{"command":"*** Begin Patch\n*** Add File: a.md\n+x\n*** End Patch\n"}}`,
			"apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: a.md\n+x\n*** End Patch\n"}, "call_2"},
		{"codex", "", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Bash","tool_use_id":"call_3","tool_input":{"command":"ls"}}`,
			"Bash", map[string]any{"command": "ls"}, "call_3"},
		{"gemini", "", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"ROOT","tool_name":"replace","tool_input":{"file_path":"a.md","instruction":"i","old_string":"a","new_string":"b","allow_multiple":true}}`,
			"Edit", map[string]any{"file_path": "a.md", "old_string": "a", "new_string": "b", "replace_all": true}, ""},
		{"gemini", "", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"ROOT","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"src"}}`,
			"Bash", map[string]any{"command": "ls", "workdir": "src"}, ""},
		{"gemini", "", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"ROOT","tool_name":"list_directory","tool_input":{"dir_path":"memory-bank"}}`,
			"LS", map[string]any{"dir_path": "memory-bank"}, ""},
		{"copilot", "preToolUse", `{"sessionId":"s","cwd":"ROOT","toolName":"edit","toolArgs":{"path":"a.md","old_str":"a","new_str":"b"}}`,
			"Edit", map[string]any{"file_path": "a.md", "old_string": "a", "new_string": "b"}, ""},
		{"copilot", "preToolUse", `{"sessionId":"s","cwd":"ROOT","toolName":"task","toolArgs":{"agent_type":"memory-reader","prompt":"read"}}`,
			"Task", map[string]any{"subagent_type": "memory-reader"}, ""},
		{"copilot", "preToolUse", `{"sessionId":"s","cwd":"ROOT","toolName":"mcp_fs_move","toolArgs":{"from":"a","to":"b"}}`,
			"mcp_fs_move", map[string]any{"from": "a", "to": "b"}, ""},
		{"gemini", "", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"ROOT","tool_name":"memory_reader","tool_input":{"objective":"read the bank"}}`,
			"Agent", map[string]any{"subagent_type": "memory-reader"}, ""},
		{"gemini", "", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"ROOT","tool_name":"read_file","tool_input":{"absolute_path":"/x/a.md"}}`,
			"Read", map[string]any{"file_path": "/x/a.md"}, ""},
		{"codex", "", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"shell","tool_input":{"command":["bash","-lc","cat a.md"],"workdir":"src"}}`,
			"Bash", map[string]any{"command": "cat a.md", "workdir": "src"}, ""},
		{"copilot", "preToolUse", `{"sessionId":"s","cwd":"ROOT","toolName":"write_bash","toolArgs":{"shellId":"1","input":"ls\n"}}`,
			"Bash", map[string]any{"command": "ls\n"}, ""},
		{"claude", "", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Write","tool_use_id":"toolu_1","tool_input":{"file_path":"a.md","content":"x"}}`,
			"Write", map[string]any{"file_path": "a.md", "content": "x"}, "toolu_1"},
	}
	for _, tc := range tests {
		t.Run(tc.host+" "+tc.tool, func(t *testing.T) {
			root := bankRepo(t)
			h := newHostRun(t, tc.host, root, nil)
			h.record = true
			h.raw(tc.event, []byte(strings.ReplaceAll(tc.payload, "ROOT", root)))
			if len(h.events) != 1 {
				t.Fatalf("%d events sent, want 1", len(h.events))
			}
			ev := h.events[0]
			if ev.Tool != tc.tool || ev.Call != tc.call || ev.Host != tc.host || ev.Kind != gating.EvToolBefore {
				t.Fatalf("event %+v: want tool %q call %q host %q", ev, tc.tool, tc.call, tc.host)
			}
			for k, v := range tc.args {
				if got := ev.Args[k]; got != v {
					t.Errorf("args[%q] = %v, want %v", k, got, v)
				}
			}
		})
	}
}

// Unknown events are allowed (with a note for --verbose); odd or broken payloads never get a
// reply the host would read as a failure.
func TestHostsOddPayloads(t *testing.T) {
	block := map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}
	tests := []struct {
		host, event, payload string
		env                  map[string]string
		deny                 string // "" = allowed
		stderr               string
	}{
		{"codex", "", `{"hook_event_name":"Stop","session_id":"s","cwd":"ROOT","stop_hook_active":false,"last_assistant_message":"done"}`, nil, "", ""},
		{"codex", "", `{"hook_event_name":"PermissionRequest","session_id":"s","cwd":"ROOT","tool_name":"Bash","tool_input":{"command":"x"}}`, nil, "", ""},
		{"codex", "", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"apply_patch","tool_input":{"command":"*** Begin`, nil, "", "not valid JSON"},
		{"codex", "", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"apply_patch","tool_input":{"command":"*** Begin`, block, "could not check", ""},
		{"codex", "", `{"hook_event_name":"PreToolUse","cwd":"ROOT","tool_name":"apply_patch","tool_input":{"command":"x"}}`, block, "session_id", ""},
		{"codex", "", `{"hook_event_name":"PostToolUse","session_id":"s","cwd":"ROOT","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"Exit code: 1\nOutput:\n"}`, nil, "", ""},
		{"codex", "", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"apply_patch","tool_input":"*** Begin Patch\n*** Add File: memory-bank/x.json\n+{}\n*** End Patch\n"}`, nil, "[mbguard bank]", ""},
		{"gemini", "", `{"hook_event_name":"BeforeModel","session_id":"s","cwd":"ROOT","llm_request":{}}`, nil, "", ""},
		{"gemini", "", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"ROOT","tool_name":"mcp_fs_write","tool_input":{"path":"src/a.go"}}`, nil, "", ""},
		{"gemini", "", `not json at all`, nil, "", "not valid JSON"},
		{"gemini", "", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"ROOT","tool_name":"write_file","tool_input":"go.mod"}`, block, "tool_input", ""},
		{"copilot", "errorOccurred", `{"sessionId":"s","cwd":"ROOT","error":{"message":"x"}}`, nil, "", ""},
		{"copilot", "preToolUse", `{"sessionId":"s","cwd":"ROOT","toolName":"create","toolArgs":{"path":"go.mod",`, block, "could not check", ""},
		{"copilot", "preToolUse", `{"sessionId":"s","cwd":"ROOT","toolName":"create","toolArgs":{"path":"go.mod",`, nil, "", "not valid JSON"},
		{"copilot", "postToolUse", `{"sessionId":"s","cwd":"ROOT","toolName":"view","toolArgs":{"path":"a"},"toolResult":"odd"}`, nil, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.host+" "+tc.payload[:min(40, len(tc.payload))], func(t *testing.T) {
			root := bankRepo(t)
			h := newHostRun(t, tc.host, root, tc.env)
			r := h.raw(tc.event, []byte(strings.ReplaceAll(tc.payload, "ROOT", root)))
			got := denied(t, tc.host, r)
			if tc.deny == "" && got != "" || !strings.Contains(got, tc.deny) {
				t.Fatalf("refusal %q, want %q", got, tc.deny)
			}
			if !strings.Contains(r.Stderr, tc.stderr) {
				t.Fatalf("stderr %q, want %q", r.Stderr, tc.stderr)
			}
		})
	}
}

// A pre-tool payload that cannot be decoded but names memory-bank/ is refused in every mode, on
// every host (the bank guard is always on); one that does not name it fails open in warn mode as
// before. A cwd inside a folder called memory-bank does not count. Messages name no Go types.
func TestHostsUndecodableBankWrite(t *testing.T) {
	writes := map[string][2]string{ // host → event, payload prefix
		"claude":  {"", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Write","tool_input":{"file_path":"`},
		"codex":   {"", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: `},
		"gemini":  {"", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"ROOT","tool_name":"write_file","tool_input":{"file_path":"`},
		"copilot": {"preToolUse", `{"sessionId":"s","cwd":"ROOT","toolName":"create","toolArgs":{"path":"`},
		"crush":   {"", `{"event":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"write","tool_input":{"file_path":"`},
		"qwen":    {"", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","prompt_id":"s########1","tool_name":"write_file","tool_input":{"file_path":"`},
		"droid":   {"", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Create","tool_input":{"file_path":"`},
		"cursor":  {"", `{"hook_event_name":"preToolUse","conversation_id":"s","cwd":"ROOT","tool_name":"Write","tool_input":{"file_path":"`},
		"auggie":  {"", `{"hook_event_name":"PreToolUse","conversation_id":"s","workspace_roots":["ROOT"],"tool_name":"save-file","tool_input":{"path":"`},
		"cline":   {"PreToolUse", `{"hookName":"tool_call","taskId":"s","workspaceRoots":["ROOT"],"tool_call":{"id":"c","name":"editor","input":{"path":"`},
	}
	for _, host := range Hosts {
		for _, tc := range []struct {
			name, target string
			refused      bool
		}{{"bank", "memory-bank/x.bin", true}, {"code", "src/x.go", false}} {
			t.Run(host+" "+tc.name, func(t *testing.T) {
				root := filepath.Join(bankRepo(t), "memory-bank", "..") // cwd spelled with memory-bank in it
				h := newHostRun(t, host, root, nil)
				w := writes[host]
				r := h.raw(w[0], []byte(strings.ReplaceAll(w[1], "ROOT", root)+tc.target)) // truncated
				got := denied(t, host, r)
				if (got != "") != tc.refused {
					t.Fatalf("refusal %q (stderr %q), want refused=%v", got, r.Stderr, tc.refused)
				}
				if tc.refused && !strings.Contains(got, "names memory-bank/") {
					t.Fatalf("refusal %q does not say why", got)
				}
			})
		}
		t.Run(host+" type names", func(t *testing.T) {
			root := bankRepo(t)
			h := newHostRun(t, host, root, nil)
			for _, payload := range []string{`[1,2]`, `{"hook_event_name":5}`, `{"session_id":{"a":1}}`} {
				r := h.raw(writes[host][0], []byte(payload))
				for _, bad := range []string{"Go value", "Go struct", "hooks.", "Payload", "Wire"} {
					if strings.Contains(r.Stderr, bad) || strings.Contains(string(r.Stdout), bad) {
						t.Fatalf("%s: message leaks %q: %q %q", payload, bad, r.Stderr, r.Stdout)
					}
				}
			}
		})
	}
}

// MBGUARD=0 lets every call through on every host, without reading the payload.
func TestEscapeHatch(t *testing.T) {
	neutral := map[string]string{"claude": "", "codex": "", "gemini": "{}\n", "copilot": "{}\n", "cursor": "{}\n"}
	for _, host := range Hosts {
		t.Run(host, func(t *testing.T) {
			root := bankRepo(t)
			h := newHostRun(t, host, root, map[string]string{"MBGUARD": "0", "MEMORY_BANK_GUARD_MODE": "block"})
			for _, payload := range []string{"\x00garbage", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"` + root +
				`","tool_name":"Write","tool_input":{"file_path":"memory-bank/x.json","content":"{}"}}`} {
				hk := &Hook{Host: host, Dir: root, Getenv: func(k string) string { return h.env[k] }}
				r := hk.Run(context.Background(), strings.NewReader(payload))
				if r.Exit != 0 || string(r.Stdout) != neutral[host] || r.Stderr != "" || r.Note == "" {
					t.Fatalf("reply %+v: want exit 0, stdout %q, a note and nothing else", r, neutral[host])
				}
			}
			if _, err := os.Stat(filepath.Join(root, ".git/mbguard/sessions")); !os.IsNotExist(err) {
				t.Fatalf("the escape hatch still touched session state: %v", err)
			}
		})
	}
}

// An outcome block on a post-tool event (what a call did, judged and undone after it ran) is
// rendered where each host's model reads it.
func TestHostsRenderOutcomeBlock(t *testing.T) {
	const msg = "[mbguard outcome] undone: memory-bank/x.json was written by a shell command"
	posts := map[string]string{
		"claude":  `{"hook_event_name":"PostToolUse","session_id":"s","cwd":"ROOT","tool_name":"Bash","tool_input":{"command":"sh x.sh"},"tool_response":{"stdout":""}}`,
		"codex":   `{"hook_event_name":"PostToolUse","session_id":"s","cwd":"ROOT","tool_name":"Bash","tool_input":{"command":"sh x.sh"},"tool_response":"ok"}`,
		"gemini":  `{"hook_event_name":"AfterTool","session_id":"s","cwd":"ROOT","tool_name":"run_shell_command","tool_input":{"command":"sh x.sh"},"tool_response":{"llmContent":"ok"}}`,
		"copilot": `{"sessionId":"s","cwd":"ROOT","toolName":"bash","toolArgs":{"command":"sh x.sh"},"toolResult":{"resultType":"success","textResultForLlm":"ok"}}`,
	}
	for host, payload := range posts {
		t.Run(host, func(t *testing.T) {
			root := bankRepo(t)
			hk := &Hook{Host: host, Event: map[bool]string{true: "postToolUse"}[host == "copilot"], Dir: root,
				Connect: func(repo.Repo, *config.Config) (Doer, func(), error) {
					return func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
						return watcher.Response{Decision: &gating.Decision{Verdict: gating.Block, Gate: gating.GateOutcome, Message: msg}}, nil
					}, func() {}, nil
				}}
			r := hk.Handle(context.Background(), []byte(strings.ReplaceAll(payload, "ROOT", root)))
			if r.Exit != 0 {
				t.Fatalf("exit %d", r.Exit)
			}
			var out struct {
				Decision string `json:"decision"`
				Reason   string `json:"reason"`
				Modified struct {
					Type string `json:"resultType"`
					Text string `json:"textResultForLlm"`
				} `json:"modifiedResult"`
			}
			if err := json.Unmarshal(r.Stdout, &out); err != nil {
				t.Fatalf("stdout %q: %v", r.Stdout, err)
			}
			want := map[string]string{"claude": "block", "codex": "block", "gemini": "deny", "copilot": "failure"}[host]
			got, text := out.Decision, out.Reason
			if host == "copilot" {
				got, text = out.Modified.Type, out.Modified.Text
			}
			if got != want || !strings.HasPrefix(text, msg) {
				t.Fatalf("reply %s: want %q with the message", r.Stdout, want)
			}
			// hosts whose reply replaces the tool's result keep its output after the message;
			// Claude Code shows the reason next to the result
			if keeps := host != "claude"; keeps != strings.Contains(text, "The tool's own output:\nok") {
				t.Fatalf("reply %s: tool output kept %v, want %v", r.Stdout, !keeps, keeps)
			}
		})
	}
}

// Copilot's postToolUseFailure is a post-tool event whose tool failed: no read credit.
func TestCopilotPostToolUseFailure(t *testing.T) {
	h := newHostRun(t, "copilot", bankRepo(t), map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	h.prompt("p")
	h.call("postToolUseFailure", map[string]any{"toolName": "view", "toolArgs": map[string]any{"path": "memory-bank/details/patterns.md"},
		"error": "Path does not exist"})
	if got := denied(t, "copilot", h.write("go.mod", "module x\n")); got == "" {
		t.Fatal("a failed view opened the read gate")
	}
	h.readFile("memory-bank/details/patterns.md")
	if got := denied(t, "copilot", h.write("go.mod", "module x\n")); got != "" {
		t.Fatalf("after a successful view: refused %q", got)
	}
}

// Kept texts of sessions that never ended expire at the next session start.
func TestPendingExpires(t *testing.T) {
	root := bankRepo(t)
	r, _ := findBankRepo(root)
	if err := savePending(r, "gone", "old anchors"); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(pendingPath(r, "gone"), old, old)
	if err := savePending(r, "live", "fresh anchors"); err != nil {
		t.Fatal(err)
	}
	h := newHostRun(t, "copilot", root, nil)
	h.now = time.Now()
	h.call("sessionStart", map[string]any{"source": "new"})
	if _, err := os.Stat(pendingPath(r, "gone")); !os.IsNotExist(err) {
		t.Fatalf("an expired kept text is still there: %v", err)
	}
	if takePending(r, "live") != "fresh anchors" {
		t.Fatal("a fresh kept text was swept")
	}
}

// Qwen Code fires UserPromptSubmit again, with an empty prompt and the same prompt_id, before
// every model call that carries tool results: that is the same user message, whose reads count.
func TestQwenPromptIDIsTheMessage(t *testing.T) {
	h := newHostRun(t, "qwen", bankRepo(t), map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	h.prompt("add a dependency")
	h.readFile("memory-bank/details/patterns.md")
	h.call("UserPromptSubmit", map[string]any{"prompt": ""}) // tool results go back to the model
	if got := denied(t, "qwen", h.write("go.mod", "module x\n")); got != "" {
		t.Fatalf("the reads of this message were forgotten at Qwen's extra UserPromptSubmit: %s", got)
	}
	h.prompt("next message")
	if got := denied(t, "qwen", h.write("go.mod", "module x\n")); got == "" {
		t.Fatal("a new prompt_id kept the previous message's reads")
	}
}

// After a call, only hookSpecificOutput.additionalContext reaches Qwen's model: an undo is told there.
func TestQwenUndoToldInAdditionalContext(t *testing.T) {
	const msg = "[mbguard outcome] undone: memory-bank/x.json was written by a shell command"
	root := bankRepo(t)
	hk := &Hook{Host: "qwen", Dir: root, Connect: func(repo.Repo, *config.Config) (Doer, func(), error) {
		return func(ctx context.Context, req watcher.Request) (watcher.Response, error) {
			return watcher.Response{Decision: &gating.Decision{Verdict: gating.Block, Gate: gating.GateOutcome, Message: msg}}, nil
		}, func() {}, nil
	}}
	p, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": "s", "cwd": root, "prompt_id": "s########1",
		"tool_name": "run_shell_command", "tool_input": map[string]any{"command": "sh x.sh"}, "tool_response": map[string]any{"llmContent": "ok"}})
	r := hk.Handle(context.Background(), p)
	if r.Exit != 0 || !strings.HasPrefix(contextOf(t, "qwen", r), msg) {
		t.Fatalf("exit %d, stdout %s: want the undo in additionalContext", r.Exit, r.Stdout)
	}
}
