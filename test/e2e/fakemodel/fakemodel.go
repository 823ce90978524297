package fakemodel

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

// API names the wire protocol a Server speaks.
type API string

// The protocols the hosts speak.
const (
	// Responses is the OpenAI Responses API (POST /v1/responses, SSE), as Codex CLI calls it.
	Responses API = "responses"
	// Gemini is the Gemini API (POST /v1beta/models/M:streamGenerateContent?alt=sse, and
	// :generateContent for Gemini CLI's compression summary).
	Gemini API = "gemini"
	// Chat is OpenAI Chat Completions (POST /v1/chat/completions, SSE), as Copilot CLI's BYOK
	// provider calls it.
	Chat API = "chat"
)

// Step is one scripted agent turn: a tool call (Tool set) or a text answer that ends the turn.
type Step struct {
	Tool string
	// Args are a function tool's arguments.
	Args map[string]any
	// Input is the free-form input of a custom tool (Codex's apply_patch; Copilot's with GPT
	// models). A step with Input is sent as a custom tool call, one with Args as a function call.
	Input string
	Text  string
	// Tokens is the prompt size reported with this turn (100 when zero); a large value makes
	// a host compact its context.
	Tokens int
}

// Call is a step that calls the function tool name with args.
func Call(name string, args map[string]any) Step { return Step{Tool: name, Args: args} }

// Custom is a step that calls the custom (free-form) tool name with input.
func Custom(name, input string) Step { return Step{Tool: name, Input: input} }

// Say is a step that answers text and ends the turn.
func Say(text string) Step { return Step{Text: text} }

// Kind tells what a recorded request was for.
type Kind int

const (
	// Other is any request that is neither an agent turn nor a summary (a title, a check).
	Other Kind = iota
	// Agent is an agent-loop turn: it offers tools and gets the next scripted step.
	Agent
	// Summary is a compaction (or compression) request for a summary of the conversation.
	Summary
)

func (k Kind) String() string {
	switch k {
	case Agent:
		return "agent"
	case Summary:
		return "summary"
	}
	return "other"
}

// Request is one recorded request.
type Request struct {
	API  API
	Path string
	Kind Kind
	// Step is the index of the script step this request was answered with, -1 for none
	// (a request that is not an agent turn, or one after the script ran out).
	Step int
	Body map[string]any
}

// Server is a scripted model API on 127.0.0.1. Read its fields only through its methods while
// the host runs.
type Server struct {
	// URL is the server's base address, http://127.0.0.1:port, without a path.
	URL string
	// MaxRequests bounds the run: later requests get HTTP 400 (default 80).
	MaxRequests int

	api    API
	mu     sync.Mutex
	script []Step
	played int
	reqs   []Request
}

// Start serves script on a fresh loopback port until the test ends.
func Start(t testing.TB, api API, script ...Step) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), MaxRequests: 80, api: api, script: script}
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// Script replaces the steps still to play, for a test that needs the project's paths to write
// them after Start.
func (s *Server) Script(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script, s.played = steps, 0
}

// Requests returns every recorded request, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Agent returns the agent-turn requests, in order.
func (s *Server) Agent() []Request { return s.of(Agent) }

// Summaries returns the compaction-summary requests, in order.
func (s *Server) Summaries() []Request { return s.of(Summary) }

func (s *Server) of(k Kind) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == k {
			out = append(out, r)
		}
	}
	return out
}

// Played is how many script steps the host asked for.
func (s *Server) Played() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return min(s.played, len(s.script))
}

// After returns the first agent request after the one answered with step i: the turn in
// which the model reads what came of step i. ok is false when the host never asked again.
func (s *Server) After(i int) (req Request, ok bool) {
	seen := false
	for _, r := range s.Requests() {
		if r.Kind != Agent {
			continue
		}
		if seen {
			return r, true
		}
		seen = r.Step == i
	}
	return Request{}, false
}

// ResultOf returns what the host sent back to the model for step i: the last tool result of
// the request After(i). ok is false when the host never asked for another turn.
func (s *Server) ResultOf(i int) (result string, ok bool) {
	r, ok := s.After(i)
	if !ok {
		return "", false
	}
	res := r.ToolResults()
	if len(res) == 0 {
		return "", true
	}
	return res[len(res)-1], true
}

// Told returns all the host told the model about step i: ResultOf(i) and, in Chat
// Completions, the messages the host added after that tool result (Factory Droid gives a
// PostToolUse hook's additionalContext as a user message right after it). ok is as ResultOf's.
func (s *Server) Told(i int) (told string, ok bool) {
	r, ok := s.After(i)
	if !ok {
		return "", false
	}
	res := r.ToolResults()
	if len(res) == 0 {
		return "", true
	}
	told = res[len(res)-1]
	if r.API != Chat {
		return told, true
	}
	msgs, _ := r.Body["messages"].([]any)
	last := -1
	for j, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "tool" {
			last = j
		}
	}
	for _, m := range msgs[last+1:] {
		mm, _ := m.(map[string]any)
		told += "\n" + flatten(mm["content"])
	}
	return told, true
}

// Log describes the recorded requests, one line each, for failure messages.
func (s *Server) Log() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		fmt.Fprintf(&b, "  #%d %s %s step=%d tool-results=%d\n", i, r.Path, r.Kind, r.Step, len(r.ToolResults()))
	}
	return b.String()
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil || r.Method != http.MethodPost {
		http.Error(w, "fake model: POST a JSON body", http.StatusBadRequest)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "fake model: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{API: s.api, Path: r.URL.Path, Body: body, Step: -1}
	if s.api == Augment && serveAugmentSide(w, r.URL.Path) {
		return
	}
	if !s.knows(r.URL.Path) {
		http.NotFound(w, r)
		return
	}
	req.Kind = s.classify(req)

	s.mu.Lock()
	if len(s.reqs) >= s.MaxRequests {
		s.mu.Unlock()
		http.Error(w, fmt.Sprintf("fake model: more than %d requests; the host is looping", s.MaxRequests), http.StatusBadRequest)
		return
	}
	st := Say("Done.")
	switch req.Kind {
	case Agent:
		if s.played < len(s.script) {
			st, req.Step = s.script[s.played], s.played
		}
		s.played++
	case Summary:
		st = Say(s.summaryText(req))
	default:
		st = Say(s.otherText(req))
	}
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()

	stream := r.URL.Query().Get("alt") == "sse" || body["stream"] == true
	id := fmt.Sprintf("call_%d", n)
	switch s.api {
	case Responses:
		writeResponses(w, st, id, n, stream)
	case Gemini:
		writeGemini(w, st, stream)
	case Chat:
		writeChat(w, st, id, stream)
	case Augment:
		writeAugment(w, st, id)
	}
}

func (s *Server) knows(path string) bool {
	switch s.api {
	case Responses:
		return strings.HasSuffix(path, "/responses")
	case Gemini:
		return strings.HasSuffix(path, ":streamGenerateContent") || strings.HasSuffix(path, ":generateContent")
	case Chat:
		return strings.HasSuffix(path, "/chat/completions")
	case Augment:
		return path == augmentChat
	}
	return false
}

// classify tells an agent turn from a compaction request, as each host sends them (measured,
// shared/HOSTS.md). Only the newest message is looked at for the compaction phrase: after a
// compaction the summary may stay in the history of every later turn.
func (s *Server) classify(r Request) Kind {
	tools, _ := r.Body["tools"].([]any)
	switch s.api {
	case Augment:
		return augmentClassify(r)
	case Responses:
		// Codex compacts with a no-tools request whose last user message starts "You are
		// performing a CONTEXT CHECKPOINT COMPACTION".
		items, _ := r.Body["input"].([]any)
		if len(tools) == 0 && len(items) > 0 && strings.Contains(flatten(items[len(items)-1]), "CONTEXT CHECKPOINT COMPACTION") {
			return Summary
		}
	case Gemini:
		// Gemini CLI streams agent turns; it asks for the compression summary (and its
		// verification) with a plain :generateContent, and for JSON in its other checks.
		if strings.HasSuffix(r.Path, ":generateContent") {
			if cfg, _ := r.Body["generationConfig"].(map[string]any); cfg != nil && cfg["responseMimeType"] == "application/json" {
				return Other
			}
			return Summary
		}
	case Chat:
		// Copilot's summary request still offers tools; its last user message asks for it.
		// Qwen Code's last user message ends with its COMPRESSION_REQUEST_DIRECTIVE.
		if ask := lastUser(r); strings.Contains(ask, "create a detailed summary of the conversation") || strings.Contains(ask, snapshotAsk) {
			return Summary
		}
	}
	if len(tools) > 0 {
		return Agent
	}
	return Other
}

// snapshotAsk is how Qwen Code (like Gemini CLI) asks for its summary, which it keeps only
// with a non-empty <state_snapshot> element.
const snapshotAsk = "produce the <state_snapshot> XML"

// lastUser is the text of a Chat request's last user message.
func lastUser(r Request) string {
	msgs, _ := r.Body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		if m, _ := msgs[i].(map[string]any); m["role"] == "user" {
			return flatten(m["content"])
		}
	}
	return ""
}

func (s *Server) summaryText(r Request) string {
	if s.api == Gemini || strings.Contains(lastUser(r), snapshotAsk) {
		return "<state_snapshot>The user asked for a scripted change; the memory bank was read.</state_snapshot>"
	}
	return "The user asked for a scripted change; the memory bank was read before it."
}

func (s *Server) otherText(r Request) string {
	// Gemini CLI asks for JSON in its checks (next speaker, routing); answer in kind.
	if cfg, _ := r.Body["generationConfig"].(map[string]any); cfg != nil && cfg["responseMimeType"] == "application/json" {
		return `{"reasoning":"the scripted turn is over","next_speaker":"user"}`
	}
	return "ok"
}

// Text is every string in the request body, one per line: what the host sent the model,
// whatever the protocol's shape.
func (r Request) Text() string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(r.Body)
	return b.String()
}

// ToolResults returns the tool results the request carries back to the model, in order.
func (r Request) ToolResults() []string {
	var out []string
	switch r.API {
	case Responses:
		items, _ := r.Body["input"].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			if t, _ := m["type"].(string); t == "function_call_output" || t == "custom_tool_call_output" {
				out = append(out, flatten(m["output"]))
			}
		}
	case Gemini:
		contents, _ := r.Body["contents"].([]any)
		for _, c := range contents {
			cm, _ := c.(map[string]any)
			parts, _ := cm["parts"].([]any)
			for _, p := range parts {
				pm, _ := p.(map[string]any)
				if fr, ok := pm["functionResponse"].(map[string]any); ok {
					out = append(out, flatten(fr["response"]))
				}
			}
		}
	case Augment:
		out = augmentResults(r)
	case Chat:
		msgs, _ := r.Body["messages"].([]any)
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			if mm["role"] == "tool" {
				out = append(out, flatten(mm["content"]))
			}
		}
	}
	return out
}

// flatten turns a tool result — a string, content parts, or an object such as Gemini's
// {"output": …} / {"error": …} — into its text.
func flatten(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, flatten(e))
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		for _, k := range []string{"text", "output", "error", "content"} {
			if s, ok := x[k]; ok {
				return flatten(s)
			}
		}
		b, _ := json.Marshal(x)
		return string(b)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func tokens(st Step) int { return max(st.Tokens, 100) }

type sse struct {
	w  http.ResponseWriter
	fl http.Flusher
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	return sse{w, fl}
}

func (s sse) send(event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(s.w, "event: %s\n", event)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if s.fl != nil {
		s.fl.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// writeResponses answers in the Responses API's shape: the minimal event set Codex accepts.
func writeResponses(w http.ResponseWriter, st Step, id string, n int, stream bool) {
	var item map[string]any
	switch {
	case st.Tool != "" && st.Args == nil:
		item = map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%d", n), "call_id": id, "name": st.Tool, "input": st.Input, "status": "completed"}
	case st.Tool != "":
		args, _ := json.Marshal(st.Args)
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": id, "name": st.Tool, "arguments": string(args), "status": "completed"}
	default:
		item = map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", n), "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}}
	}
	tk := tokens(st)
	resp := map[string]any{"id": fmt.Sprintf("resp_%d", n), "object": "response", "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": tk, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": tk + 10}}
	if !stream {
		writeJSON(w, resp)
		return
	}
	s := newSSE(w)
	s.send("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": resp["id"]}})
	s.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	s.send("response.completed", map[string]any{"type": "response.completed", "response": resp})
}

// writeGemini answers in the Gemini API's shape: one candidate, as one SSE event when streamed.
func writeGemini(w http.ResponseWriter, st Step, stream bool) {
	part := map[string]any{"text": st.Text}
	if st.Tool != "" {
		part = map[string]any{"functionCall": map[string]any{"name": st.Tool, "args": st.Args}}
	}
	tk := tokens(st)
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": tk, "candidatesTokenCount": 10, "totalTokenCount": tk + 10},
		"modelVersion":  "scripted",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	newSSE(w).send("", resp)
}

// writeChat answers in Chat Completions' shape: the tool call or text, the finish, the usage.
func writeChat(w http.ResponseWriter, st Step, id string, stream bool) {
	var call map[string]any
	switch {
	case st.Tool != "" && st.Args == nil:
		call = map[string]any{"index": 0, "id": id, "type": "custom", "custom": map[string]any{"name": st.Tool, "input": st.Input}}
	case st.Tool != "":
		args, _ := json.Marshal(st.Args)
		call = map[string]any{"index": 0, "id": id, "type": "function", "function": map[string]any{"name": st.Tool, "arguments": string(args)}}
	}
	tk := tokens(st)
	usage := map[string]any{"prompt_tokens": tk, "completion_tokens": 10, "total_tokens": tk + 10}
	finish := "stop"
	msg := map[string]any{"role": "assistant", "content": st.Text}
	if call != nil {
		finish = "tool_calls"
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}
	}
	base := func(choices []any) map[string]any {
		return map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": 1, "model": "scripted", "choices": choices}
	}
	if !stream {
		r := base([]any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}})
		r["object"], r["usage"] = "chat.completion", usage
		writeJSON(w, r)
		return
	}
	s := newSSE(w)
	s.send("", base([]any{map[string]any{"index": 0, "delta": msg, "finish_reason": nil}}))
	s.send("", base([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}))
	u := base([]any{})
	u["usage"] = usage
	s.send("", u)
	fmt.Fprint(w, "data: [DONE]\n\n")
}
