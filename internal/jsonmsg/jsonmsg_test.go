package jsonmsg

import (
	"encoding/json"
	"strings"
	"testing"
)

type payload struct {
	Event string `json:"hook_event_name"`
	Input struct {
		Path  string `json:"file_path"`
		Edits []struct {
			New string `json:"new_string"`
		} `json:"edits"`
	} `json:"tool_input"`
	Count int  `json:"count"`
	OK    bool `json:"ok"`
}

func TestDescribe(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string
	}{
		"array for the whole payload": {`[]`, "the payload is an array where an object belongs"},
		"number for a path":           {`{"tool_input":{"file_path":42}}`, `"tool_input.file_path" is a number where a string belongs`},
		"array for a path":            {`{"tool_input":{"file_path":["a"]}}`, `"tool_input.file_path" is an array where a string belongs`},
		"string for edits":            {`{"tool_input":{"edits":"x"}}`, `"tool_input.edits" is a string where an array belongs`},
		"object for a string":         {`{"hook_event_name":{}}`, `"hook_event_name" is an object where a string belongs`},
		"string for a number":         {`{"count":"5"}`, `"count" is a string where a number belongs`},
		"number for a bool":           {`{"ok":1}`, `"ok" is a number where true or false belongs`},
		"bool for a string":           {`{"hook_event_name":true}`, `"hook_event_name" is true or false where a string belongs`},
		"syntax":                      {`{"a":}`, "not valid JSON at byte 6: invalid character '}' looking for beginning of value"},
		"truncated":                   {`{"a":`, "the JSON ends too early"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var p payload
			err := json.Unmarshal([]byte(tt.in), &p)
			if err == nil {
				t.Fatalf("no error for %s", tt.in)
			}
			got := Describe(err)
			if got != tt.want {
				t.Errorf("Describe(%v)\n got %s\nwant %s", err, got, tt.want)
			}
			for _, goName := range []string{"jsonmsg.", "Go value", "interface {}", "struct {"} {
				if strings.Contains(got, goName) {
					t.Errorf("%q names Go: %s", goName, got)
				}
			}
		})
	}
}
