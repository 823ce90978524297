package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Augment is Augment Code's own API, as Auggie (@augmentcode/auggie 0.36.0) calls it: every
// call is a POST of JSON to {tenantURL}/<endpoint>; the model turn is chat-stream, answered as
// newline-delimited JSON chunks. Auggie has no OpenAI or Anthropic client of its own.
const Augment API = "augment"

// augmentChat is the one endpoint that is a model turn.
const augmentChat = "/chat-stream"

// augmentHooksOn is the get-models reply Auggie starts with: one model, and the feature flag
// without which Auggie loads no hook at all (on the real service Augment sets it, not the
// user).
func augmentHooksOn() map[string]any {
	return map[string]any{
		"default_model": "fake",
		"models":        []any{map[string]any{"name": "fake", "suggested_prefix_char_count": 0, "suggested_suffix_char_count": 0}},
		"languages":     []any{},
		"feature_flags": map[string]any{"enable_hooks": true},
		"user_tier":     "ENTERPRISE_TIER",
	}
}

// serveAugmentSide answers an endpoint of Augment's API that is not a model turn, and
// reports whether it did. Indexing is answered "the server has every blob already", so no file
// of the workspace is uploaded to the fake (the real service indexes it: docs/hosts/auggie.md).
func serveAugmentSide(w http.ResponseWriter, path string) bool {
	switch path {
	case augmentChat:
		return false
	case "/get-models":
		writeJSON(w, augmentHooksOn())
	case "/find-missing":
		writeJSON(w, map[string]any{"unknown_memory_names": []any{}, "nonindexed_blob_names": []any{}})
	case "/batch-upload":
		writeJSON(w, map[string]any{"blob_names": []any{}})
	case "/checkpoint-blobs":
		writeJSON(w, map[string]any{"new_checkpoint_id": "fake-checkpoint"})
	default:
		// telemetry, events, feature checks: an empty object is an answer Auggie takes
		writeJSON(w, map[string]any{})
	}
	return true
}

// augmentClassify: a chat-stream request carries its tool definitions; one without any (a
// title, a summary of the history) is not an agent turn. Auggie compacts by asking, in the
// same endpoint, for a summary of the conversation.
func augmentClassify(r Request) Kind {
	if strings.Contains(augmentMessage(r), "summar") && strings.Contains(augmentMessage(r), "conversation") && len(augmentResults(r)) == 0 {
		if tools, _ := r.Body["tool_definitions"].([]any); len(tools) == 0 {
			return Summary
		}
	}
	if tools, _ := r.Body["tool_definitions"].([]any); len(tools) > 0 {
		return Agent
	}
	return Other
}

// augmentMessage is the request's user message text.
func augmentMessage(r Request) string {
	m, _ := r.Body["message"].(string)
	return m
}

// augmentResults are the tool results of the request's own nodes (the results of the calls
// the previous turn asked for), in order; the history's are earlier turns'.
func augmentResults(r Request) []string {
	var out []string
	add := func(nodes any) {
		ns, _ := nodes.([]any)
		for _, n := range ns {
			nm, _ := n.(map[string]any)
			if tr, ok := nm["tool_result_node"].(map[string]any); ok {
				out = append(out, flatten(tr["content"]))
			}
		}
	}
	hist, _ := r.Body["chat_history"].([]any)
	for _, h := range hist {
		hm, _ := h.(map[string]any)
		add(hm["request_nodes"])
	}
	add(r.Body["nodes"])
	return out
}

// writeAugment answers a chat-stream turn: one chunk with the tool call (node type 5) or the
// text (node type 0), then one with the stop reason (1 end of turn, 3 tool use).
func writeAugment(w http.ResponseWriter, st Step, id string) {
	w.Header().Set("Content-Type", "application/json")
	fl, _ := w.(http.Flusher)
	line := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "%s\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	if st.Tool != "" {
		args, _ := json.Marshal(st.Args)
		line(map[string]any{"text": "", "nodes": []any{map[string]any{"id": 1, "type": 5, "content": "",
			"tool_use": map[string]any{"tool_use_id": id, "tool_name": st.Tool, "input_json": string(args)}}}})
		line(map[string]any{"text": "", "stop_reason": 3})
		return
	}
	line(map[string]any{"text": st.Text, "nodes": []any{map[string]any{"id": 0, "type": 0, "content": st.Text}}})
	line(map[string]any{"text": "", "stop_reason": 1})
}
