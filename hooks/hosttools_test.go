package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/outcome"
)

// Every host mbguard answers through a hook protocol has its own tool names in the undo text
// (outcome's host table): a host added to the registry without them would be told of tools it
// does not have.
func TestRegistryHostToolNames(t *testing.T) {
	for _, s := range Registry() {
		if !s.HookHost() {
			continue
		}
		shell, write, edit, ok := outcome.HostToolNames(s.Name)
		if !ok || shell == "" || write == "" || edit == "" {
			t.Errorf("%s: no shell, write and edit tool names in outcome's host table", s.Name)
		}
	}
}

// Droid's shell tool is Execute: when a shell call's outcome is undone, the model reads that
// its Execute call did it and that Create or Edit is the way, never a Bash it does not have.
func TestDroidUndoNamesExecute(t *testing.T) {
	root := bankRepo(t)
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	h := newHostRun(t, "droid", root, nil)
	h.prompt("tidy up")
	want := bankState(t, root)
	call := map[string]any{"tool_name": "Execute", "tool_input": map[string]any{"command": "bash tools/step.sh", "summary": "step", "riskLevel": "low"}}
	if reason := denied(t, "droid", h.call("PreToolUse", call)); reason != "" {
		t.Fatalf("pre refused the script call: %s", reason)
	}
	runScript(t, root, "printf 'x=1' > memory-bank/run.sh; exit 0")
	call["tool_response"] = "\n[Process exited with code 0]"
	post := h.call("PostToolUse", call)
	sameBank(t, want, bankState(t, root))
	var out struct {
		Specific struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(post.Stdout, &out); err != nil {
		t.Fatalf("stdout %s: %v", post.Stdout, err)
	}
	text := out.Specific.Context
	if !strings.Contains(text, "undid what the last Execute call did") || !strings.Contains(text, "use the Create or Edit tool") ||
		strings.Contains(text, "Bash") {
		t.Errorf("the undo does not speak Droid's tool names:\n%s", text)
	}
}
