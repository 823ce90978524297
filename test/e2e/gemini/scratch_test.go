package gemini

import (
	"os"
	"testing"

	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

func TestScratchGemini(t *testing.T) {
	w := newWorld(t,
		fakemodel.Call("run_shell_command", map[string]any{"command": "echo one"}),
		fakemodel.Call("run_shell_command", map[string]any{"command": "echo two"}),
	)
	w.Write(t, "cap.sh", `#!/bin/sh
p=$(cat)
echo "$p" >> "$(dirname "$0")/cap.log"
case "$p" in *AfterTool*echo\ one*) echo '{"decision":"deny","reason":"POSTR-block"}';; *AfterTool*echo\ two*) echo '{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"POSTC-ctx"}}';; esac
`)
	os.Chmod(w.Abs("cap.sh"), 0o755)
	w.Write(t, ".gemini/settings.json", `{"hooks":{"AfterTool":[{"matcher":"*","hooks":[{"name":"cap","type":"command","command":"`+w.Abs("cap.sh")+`"}]}]}}`)
	out := w.run(t, "do it")
	t.Log(out)
	for i, r := range w.model.Agent() {
		t.Logf("req %d: block=%v ctx=%v results=%q", i, contains(r.Text(), "POSTR-block"), contains(r.Text(), "POSTC-ctx"), r.ToolResults())
	}
}
