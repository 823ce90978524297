package opencode

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// step is one scripted model turn: a tool call, or (Tool == "") a final text answer.
type step struct {
	Tool string
	Args map[string]any
	Text string
	// PromptTokens is the usage reported with this turn (100 when zero); a large value makes
	// OpenCode compact its context.
	PromptTokens int
}

// fakeModel is an OpenAI-compatible chat-completions server that plays a script: the n-th
// request carrying n tool results gets step n, streamed as SSE. Requests without tools (the
// title request OpenCode sends first) get a short text. Every request body is recorded.
type fakeModel struct {
	URL    string
	script []step
	// ByCall plays step n on the n-th agent request instead of counting tool results (a
	// compaction drops the old tool results from the conversation).
	ByCall bool
	calls  int

	mu       sync.Mutex
	requests []chatRequest
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// text is the message content whether it was sent as a string or as parts.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

type chatRequest struct {
	Messages []chatMessage    `json:"messages"`
	Tools    []map[string]any `json:"tools"`
}

// toolResults are the contents of the tool messages in the request, in order.
func (r chatRequest) toolResults() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m.text())
		}
	}
	return out
}

func (r chatRequest) system() string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == "system" {
			b.WriteString(m.text())
			b.WriteString("\n")
		}
	}
	return b.String()
}

func startFakeModel(t *testing.T, script []step) *fakeModel {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeModel{URL: "http://" + ln.Addr().String() + "/v1", script: script}
	srv := &http.Server{Handler: http.HandlerFunc(f.serve)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

// agentRequests are the recorded requests that offered tools (the agent's turns, not titles).
func (f *fakeModel) agentRequests() []chatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []chatRequest
	for _, r := range f.requests {
		if len(r.Tools) > 0 {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	n := len(req.toolResults())
	if f.ByCall && len(req.Tools) > 0 {
		n = f.calls
		f.calls++
	}
	f.mu.Unlock()

	st := step{Text: "Done."}
	if len(req.Tools) == 0 || isCompaction(req) {
		st = step{Text: "Scripted session"}
	} else if n < len(f.script) {
		st = f.script[n]
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	finish := "stop"
	if st.Tool != "" {
		args, _ := json.Marshal(st.Args)
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", len(req.toolResults())), "type": "function",
			"function": map[string]any{"name": st.Tool, "arguments": string(args)},
		}}}, nil)
		finish = "tool_calls"
	} else {
		chunk(map[string]any{"role": "assistant", "content": st.Text}, nil)
	}
	chunk(map[string]any{}, finish)
	usage, _ := json.Marshal(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "scripted",
		"choices": []any{}, "usage": map[string]any{"prompt_tokens": max(st.PromptTokens, 100), "completion_tokens": 10, "total_tokens": max(st.PromptTokens, 100) + 10}})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", usage)
}

// isCompaction reports whether req is OpenCode's request for a compaction summary.
func isCompaction(r chatRequest) bool {
	for _, m := range r.Messages {
		if strings.Contains(m.text(), "<memory-bank-anchors>") {
			return true
		}
	}
	return false
}

// all returns every recorded request.
func (f *fakeModel) all() []chatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatRequest(nil), f.requests...)
}
