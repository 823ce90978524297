package copilot

import (
	"os"
	"testing"

	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

func TestScratchCopilot(t *testing.T) {
	w := newWorld(t,
		fakemodel.Call("bash", map[string]any{"command": "echo one", "description": "one"}),
		fakemodel.Call("bash", map[string]any{"command": "echo two", "description": "two"}),
		fakemodel.Call("bash", map[string]any{"command": "echo three", "description": "three"}),
	)
	w.Write(t, "cap.sh", `#!/bin/sh
p=$(cat)
echo "$p" >> "$(dirname "$0")/cap.log"
case "$p" in *echo\ one*toolResult*) echo '{"decision":"block","reason":"POSTR-block"}';; *echo\ two*toolResult*) echo '{"additionalContext":"POSTC-ctx"}';; *echo\ three*toolResult*) echo '{"modifiedResult":{"resultType":"failure","textResultForLlm":"POSTM-mod"}}';; esac
`)
	os.Chmod(w.Abs("cap.sh"), 0o755)
	w.Write(t, ".github/hooks/cap.json", `{"version":1,"hooks":{"postToolUse":[{"type":"command","bash":"`+w.Abs("cap.sh")+`"}]}}`)
	out := w.run(t, "do it")
	t.Log(out)
	for i, r := range w.model.Agent() {
		t.Logf("req %d: block=%v ctx=%v mod=%v results=%q", i, contains(r.Text(), "POSTR-block"), contains(r.Text(), "POSTC-ctx"), contains(r.Text(), "POSTM-mod"), r.ToolResults())
	}
	t.Log(w.File(t, "cap.log"))
}
