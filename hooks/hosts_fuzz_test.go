package hooks

import (
	"encoding/json"
	"testing"
)

// FuzzHostProtocols feeds arbitrary payloads to every host's parser and renderer: neither may
// panic, and Gemini CLI and Copilot CLI, which read every reply as JSON, always get JSON.
func FuzzHostProtocols(f *testing.F) {
	seeds := []string{
		`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/r","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: memory-bank/x.json\n+{}\n*** End Patch\n"}}`,
		`{"hook_event_name":"PostToolUse","session_id":"s","cwd":"/r","tool_name":"Bash","tool_input":{"command":["bash","-lc","cat a"]},"tool_response":"Exit code: 1\n"}`,
		`{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/r","tool_name":"replace","tool_input":{"file_path":"a","old_string":"x","new_string":"y","allow_multiple":true}}`,
		`{"hook_event_name":"AfterTool","session_id":"s","cwd":"/r","tool_name":"read_file","tool_input":{"file_path":"a"},"tool_response":{"llmContent":[1],"error":null}}`,
		`{"sessionId":"s","cwd":"/r","toolName":"apply_patch","toolArgs":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"}`,
		`{"sessionId":"s","cwd":"/r","toolName":"create","toolArgs":"{\"path\":\"a\",\"file_text\":\"x\"}"}`,
		`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Write","tool_input":{"path":"a","file_text":"x"}}`,
		`{"toolResult":{"resultType":"failure"}}`,
		`{"hook_event_name":"SessionStart","source":"compact"}`,
		`{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"/r","prompt_id":"s########2","prompt":""}`,
		`{"hook_event_name":"PreSkillShellCommand","session_id":"s","cwd":"/r","tool_name":"Bash","tool_input":{"command":"echo x > memory-bank/a"},"command_name":"x"}`,
		`{"event":"PreToolUse","session_id":"s","cwd":"/r","tool_name":"bash","tool_input":{"command":"ls","working_dir":"/r/memory-bank"}}`,
		`{"event":"PreToolUse","session_id":"s","cwd":"/r","tool_name":"view","tool_input":{"file_path":7}}`,
		`{"hook_event_name":"preToolUse","conversation_id":"c","generation_id":"g","workspace_roots":["/r"],"tool_name":"Delete","tool_input":{"path":"memory-bank/MEMORY.md"},"tool_use_id":"t"}`,
		`{"hook_event_name":"beforeShellExecution","conversation_id":"c","command":"echo x > memory-bank/a","cwd":"/r"}`,
		`{"hook_event_name":"afterShellExecution","conversation_id":"c","command":7,"output":"x"}`,
		`{"hook_event_name":"beforeReadFile","conversation_id":"c","file_path":"/r/memory-bank/MEMORY.md","content":"x","attachments":[]}`,
		`{"hook_event_name":"postToolUse","conversation_id":"c","tool_name":"Write","tool_input":{"file_path":"a"},"tool_output":{"ok":true}}`,
		`[1,2]`, `"x"`, `{`, ``,
	}
	for _, s := range seeds {
		f.Add(s, "")
		f.Add(s, "preToolUse")
	}
	protos := map[string]protocol{}
	for _, spec := range Registry() {
		if spec.HookHost() {
			protos[spec.Name] = spec.proto
		}
	}
	f.Fuzz(func(t *testing.T, payload, event string) {
		for host, p := range protos {
			c, _ := p.parse([]byte(payload), event)
			answers := []hookAnswer{{}, {Deny: "no"}, {Undone: "undone"}, {Context: "ctx"}}
			for _, a := range answers {
				r := p.render(&c, &a)
				if (host == "gemini" || host == "copilot") && !json.Valid(r.Stdout) || len(r.Stdout) > 0 && !json.Valid(r.Stdout) {
					t.Fatalf("%s: reply %q is not JSON for payload %q", host, r.Stdout, payload)
				}
				if host != "claude" && host != "qwen" && host != "droid" && host != "auggie" && r.Exit != 0 {
					t.Fatalf("%s: exit %d", host, r.Exit)
				}
			}
		}
	})
}
