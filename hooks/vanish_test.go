package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A script that renames the repository during a call (no first line sees it) takes the bank
// out of the path the hooks look at; on Claude Code and Qwen Code the check after the call puts
// the folder back under its name and tells the agent, and a shell write into the bank is
// refused again. Moved out of its parent folder, it cannot be found: the calls are refused,
// telling the person to move it back; once they have, calls go on.
func TestRenamedRepositoryPutBack(t *testing.T) {
	for _, host := range []string{"claude", "qwen"} {
		t.Run(host, func(t *testing.T) {
			root := bankRepo(t)
			os.MkdirAll(filepath.Join(root, "tools"), 0o755)
			h := newHostRun(t, host, root, nil)
			h.prompt("tidy up")
			want := bankState(t, root)
			shell := func(cmd string) map[string]any {
				if host == "claude" {
					return map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_r", "tool_input": map[string]any{"command": cmd}}
				}
				_, in := shapes["qwen"].shell(h, cmd)
				return in
			}
			post := func(in map[string]any) Reply {
				m := map[string]any{"tool_response": map[string]any{"stdout": "", "stderr": "", "interrupted": false}}
				for k, v := range in {
					m[k] = v
				}
				return h.call("PostToolUse", m)
			}
			in := shell("bash tools/step.sh")
			if got := denied(t, host, h.call("PreToolUse", in)); got != "" {
				t.Fatalf("the script call was refused (the test needs it to run): %s", got)
			}
			runScript(t, root, `mv "$PWD" "$PWD-renamed"`)
			if _, err := os.Stat(root); !os.IsNotExist(err) {
				t.Fatalf("the script did not rename the repository: %v", err)
			}
			r := post(in)
			told := string(r.Stdout) + r.Stderr + r.Context
			if !strings.Contains(told, "undid: the repository folder") || !strings.Contains(told, root+"-renamed") {
				t.Errorf("the reply does not say what was put back:\n%s", told)
			}
			sameBank(t, want, bankState(t, root))
			if got := denied(t, host, h.call("PreToolUse", shell("echo x > memory-bank/a.js"))); got == "" {
				t.Fatal("a shell write into the bank after the rename was allowed")
			}

			// moved to another folder: not found, so every call is refused until the person acts
			elsewhere := filepath.Join(t.TempDir(), "moved")
			os.WriteFile(filepath.Join(root, "tools", "step.sh"), []byte("true\n"), 0o755) // what the pre check reads
			if got := denied(t, host, h.call("PreToolUse", in)); got != "" {
				t.Fatalf("the script call was refused: %s", got)
			}
			runScript(t, root, `mv "$PWD" `+elsewhere)
			post(in)
			got := denied(t, host, h.call("PreToolUse", shell("echo x > notes.txt")))
			if !strings.Contains(got, "vanished during an agent's call") || !strings.Contains(got, "move it back to "+root) {
				t.Fatalf("a call after the repository vanished: refusal %q, want the person told to move it back", got)
			}
			if err := os.Rename(elsewhere, root); err != nil { // the person
				t.Fatal(err)
			}
			if got := denied(t, host, h.call("PreToolUse", shell("echo x > notes.txt"))); got != "" {
				t.Fatalf("refused after the person moved it back: %s", got)
			}
		})
	}
}
