package fakemodel

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, path string, body map[string]any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

var tool = []any{map[string]any{"name": "t"}}

// Each protocol: an agent turn plays the next step, a compaction request gets a summary and
// does not advance the script, and the tool results of the next turn are read back.
func TestServers(t *testing.T) {
	cases := map[string]struct {
		api                API
		path               string
		agent, summary     map[string]any
		withResult         map[string]any
		wantCall, wantText string
	}{
		"responses": {
			api: Responses, path: "/v1/responses",
			agent:   map[string]any{"stream": true, "tools": tool, "input": []any{map[string]any{"type": "message", "role": "user", "content": "hi"}}},
			summary: map[string]any{"stream": true, "input": []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "You are performing a CONTEXT CHECKPOINT COMPACTION."}}}}},
			withResult: map[string]any{"stream": true, "tools": tool, "input": []any{
				map[string]any{"type": "custom_tool_call_output", "call_id": "call_0", "output": "Command blocked by PreToolUse hook: [mbguard bank] no"}}},
			wantCall: `"type":"custom_tool_call"`, wantText: "event: response.completed",
		},
		"gemini": {
			api: Gemini, path: "/v1beta/models/m:streamGenerateContent",
			agent:   map[string]any{"tools": tool, "contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}}}},
			summary: map[string]any{"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "summarise"}}}}},
			withResult: map[string]any{"tools": tool, "contents": []any{map[string]any{"role": "user", "parts": []any{
				map[string]any{"functionResponse": map[string]any{"name": "write_file", "response": map[string]any{"error": "Tool execution blocked: [mbguard bank] no"}}}}}}},
			wantCall: `"functionCall"`, wantText: `"finishReason":"STOP"`,
		},
		"chat": {
			api: Chat, path: "/v1/chat/completions",
			agent:   map[string]any{"stream": true, "tools": tool, "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
			summary: map[string]any{"stream": true, "tools": tool, "messages": []any{map[string]any{"role": "user", "content": "Please create a detailed summary of the conversation so far."}}},
			withResult: map[string]any{"stream": true, "tools": tool, "messages": []any{
				map[string]any{"role": "tool", "tool_call_id": "call_0", "content": "Denied by preToolUse hook: [mbguard bank] no"}}},
			wantCall: `"tool_calls"`, wantText: "data: [DONE]",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			step := Call("write", map[string]any{"path": "memory-bank/x.json"})
			if c.api == Responses {
				step = Custom("apply_patch", "*** Begin Patch\n*** End Patch\n")
			}
			s := Start(t, c.api, step, Say("second"))
			path := c.path
			if c.api == Gemini {
				path += "?alt=sse"
			}
			if code, body := post(t, s, path, c.agent); code != 200 || !strings.Contains(body, c.wantCall) {
				t.Fatalf("agent turn: %d %s, want the scripted call (%s)", code, body, c.wantCall)
			}
			sumPath := path
			if c.api == Gemini {
				sumPath = "/v1beta/models/m:generateContent"
			}
			if code, body := post(t, s, sumPath, c.summary); code != 200 || strings.Contains(body, c.wantCall) {
				t.Fatalf("summary request: %d %s, want a text reply", code, body)
			}
			if code, body := post(t, s, path, c.withResult); code != 200 || !strings.Contains(body, "second") || !strings.Contains(body, c.wantText) {
				t.Fatalf("next turn: %d %s, want step 1's text (the summary must not take a step)", code, body)
			}
			kinds := []Kind{}
			for _, r := range s.Requests() {
				kinds = append(kinds, r.Kind)
			}
			if want := []Kind{Agent, Summary, Agent}; len(kinds) != 3 || kinds[0] != want[0] || kinds[1] != want[1] || kinds[2] != want[2] {
				t.Errorf("kinds = %v, want %v", kinds, want)
			}
			if s.Played() != 2 {
				t.Errorf("played %d steps, want 2", s.Played())
			}
			if r, ok := s.ResultOf(0); !ok || !strings.Contains(r, "[mbguard bank] no") {
				t.Errorf("ResultOf(0) = %q, %v", r, ok)
			}
		})
	}
}

// A host that keeps asking is cut off, so a looping run ends instead of hanging the test.
func TestMaxRequests(t *testing.T) {
	s := Start(t, Chat)
	s.MaxRequests = 2
	body := map[string]any{"tools": tool, "messages": []any{map[string]any{"role": "user", "content": "hi"}}}
	for i, want := range []int{200, 200, 400} {
		if code, _ := post(t, s, "/v1/chat/completions", body); code != want {
			t.Errorf("request %d: status %d, want %d", i, code, want)
		}
	}
}

// After a compaction the summary stays in every later turn's history: only the newest user
// message makes a request a summary request.
func TestSummaryOnlyByTheNewestMessage(t *testing.T) {
	s := Start(t, Chat, Say("first"))
	post(t, s, "/v1/chat/completions", map[string]any{"tools": tool, "messages": []any{
		map[string]any{"role": "user", "content": "Please create a detailed summary of the conversation so far."},
		map[string]any{"role": "assistant", "content": "summary"},
		map[string]any{"role": "user", "content": "go on"},
	}})
	if k := s.Requests()[0].Kind; k != Agent {
		t.Errorf("kind = %v, want agent", k)
	}
}

// Told carries what a Chat host adds after a tool result (Droid's PostToolUse
// additionalContext is a user message there), which ResultOf does not; the messages before
// the tool result stay out.
func TestToldReadsPastTheToolResult(t *testing.T) {
	s := Start(t, Chat, Call("Execute", map[string]any{"command": "sh x"}))
	post(t, s, "/v1/chat/completions", map[string]any{"tools": tool, "messages": []any{map[string]any{"role": "user", "content": "hi"}}})
	post(t, s, "/v1/chat/completions", map[string]any{"tools": tool, "messages": []any{
		map[string]any{"role": "user", "content": "before the call"},
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_0"}}},
		map[string]any{"role": "tool", "tool_call_id": "call_0", "content": "regenerated"},
		map[string]any{"role": "user", "content": "[mbguard] undid memory-bank/cache.json"},
	}})
	if r, _ := s.ResultOf(0); r != "regenerated" {
		t.Errorf("ResultOf(0) = %q, want the tool result alone", r)
	}
	told, ok := s.Told(0)
	if !ok || !strings.Contains(told, "regenerated") || !strings.Contains(told, "[mbguard] undid memory-bank/cache.json") {
		t.Errorf("Told(0) = %q, %v: want the tool result and the message after it", told, ok)
	}
	if strings.Contains(told, "before the call") {
		t.Errorf("Told(0) = %q holds a message from before the call", told)
	}
}
