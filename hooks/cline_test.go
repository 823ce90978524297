package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// Payloads cline 3.0.65 sent headless (testdata/cline): the tool's input both as an object
// (tool_call.input) and string-encoded (preToolUse.parameters), the task as the session.
func TestClineParsesCapturedPayloads(t *testing.T) {
	cases := []struct {
		file, event, tool string
		kind              callKind
		check             func(map[string]any) bool
	}{
		{"pretooluse-read_files.json", "PreToolUse", "Read", callPreTool, func(a map[string]any) bool {
			ps, _ := a["paths"].([]any)
			return len(ps) == 2 && ps[0] == "memory-bank/MEMORY.md" && a["file_path"] == "memory-bank/MEMORY.md"
		}},
		{"pretooluse-editor.json", "PreToolUse", "Edit", callPreTool, func(a map[string]any) bool {
			return a["file_path"] == "src/app.go" && a["old_string"] == "package app" && a["new_string"] == "package app2"
		}},
		{"posttooluse-run_commands.json", "PostToolUse", "Bash", callPostTool, func(a map[string]any) bool {
			return a["command"] == "echo hi\nls"
		}},
	}
	for _, tc := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", "cline", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		c, err := clineProto{}.parse(b, tc.event)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if c.Event != tc.event || c.Kind != tc.kind || c.Tool != tc.tool || !tc.check(c.Args) || !strings.HasPrefix(c.Session, "conv_") ||
			!filepath.IsAbs(c.Cwd) {
			t.Errorf("%s: parsed as %+v", tc.file, c)
		}
		// without tool_call, the string-encoded parameters give the same call
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		delete(m, "tool_call")
		delete(m, "tool_result")
		b, _ = json.Marshal(m)
		c2, err := clineProto{}.parse(b, "")
		if err != nil || c2.Tool != tc.tool || !tc.check(c2.Args) {
			t.Errorf("%s from preToolUse/postToolUse.parameters: %+v (%v)", tc.file, c2, err)
		}
	}
}

// The editor creates a missing file when old_text is empty: a write; search_codebase is a
// grep; an unreadable payload keeps what it can for the fail-safe rule.
func TestClineTools(t *testing.T) {
	if tool, a := clineTool("editor", map[string]any{"path": "memory-bank/x.json", "new_text": "{}"}); tool != "Write" || a["content"] != "{}" {
		t.Errorf("editor without old_text: %s %v", tool, a)
	}
	if tool, a := clineTool("search_codebase", map[string]any{"queries": []any{"ghp_", "a(b"}}); tool != "Grep" || a["pattern"] != `(?:ghp_)|(?:a\(b)` {
		t.Errorf("search_codebase: %s %v", tool, a)
	}
	c, err := clineProto{}.parse([]byte(`{"hookName":"tool_call","taskId":"t1","tool_call":{"name":"editor","inp`), "PreToolUse")
	if err == nil || c.Kind != callPreTool || c.Session != "t1" || c.Tool != "Write" {
		t.Errorf("truncated payload: %+v %v", c, err)
	}
}

// A refusal replaces the call's input with {} (the tool's own check then fails, so it never
// runs) and says why in contextModification; cancel stays false, which would end the task.
func TestClineGates(t *testing.T) {
	root := bankRepo(t)
	h := newHostRun(t, "cline", root, map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	s := shapes["cline"]
	ev, f := s.write(h, "memory-bank/x.json", "{}")
	r := h.call(ev, f)
	if got := denied(t, "cline", r); !strings.Contains(got, "[mbguard bank]") || !strings.Contains(string(r.Stdout), `"overrideInput":{}`) ||
		!strings.Contains(string(r.Stdout), `"cancel":false`) {
		t.Fatalf("editor of memory-bank/x.json: %s", r.Stdout)
	}
	ev, f = s.shell(h, "echo hi > memory-bank/notes.json")
	if got := denied(t, "cline", h.call(ev, f)); !strings.Contains(got, "[mbguard bank]") {
		t.Fatalf("run_commands into the bank: %q", got)
	}
	ev, f = s.shell(h, "echo '#!/bin/sh' > .clinerules/hooks/PreToolUse")
	if got := denied(t, "cline", h.call(ev, f)); !strings.Contains(got, "[mbguard config]") {
		t.Fatalf("run_commands over the hook file: %q", got)
	}
	ev, f, _ = s.read(h, "memory-bank/details/patterns.md")
	if got := denied(t, "cline", h.call(ev, f)); got != "" {
		t.Fatalf("read_files of patterns.md refused: %q", got)
	}
}

func TestClineInstall(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", testMemory)
	gitDir := filepath.Join(root, ".git")
	o := InstallOptions{Root: root, GitDir: gitDir, CommonDir: gitDir, Binary: "/opt/mb guard/mbguard"}
	if _, err := InstallCline(o); err != nil {
		t.Fatal(err)
	}
	for _, ev := range ClineEvents {
		p := filepath.Join(root, ".clinerules", "hooks", ev)
		fi, err := os.Lstat(p)
		b, _ := os.ReadFile(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 || !strings.HasPrefix(string(b), "#!/bin/sh\n") ||
			!strings.Contains(string(b), "exec '/opt/mb guard/mbguard' hook cline "+ev+"\n") {
			t.Fatalf("%s: %v %v\n%s", ev, fi, err, b)
		}
	}
	rules, err := os.ReadFile(filepath.Join(root, ClineRulesFile))
	if err != nil || !strings.Contains(string(rules), "<memory-bank") {
		t.Fatalf("rule file: %v\n%s", err, rules)
	}
	if ex, _ := os.ReadFile(filepath.Join(gitDir, "info", "exclude")); !strings.Contains(string(ex), "/"+ClineRulesFile+"\n") {
		t.Errorf(".git/info/exclude does not keep the rule file out of git:\n%s", ex)
	}
	again, _ := InstallCline(o)
	for _, ch := range again {
		if ch.Action != "unchanged" {
			t.Errorf("second install: %+v", ch)
		}
	}
	// a user's own hook of one event is left alone, and stays on uninstall
	mine := filepath.Join(root, ".clinerules", "hooks", "TaskComplete")
	if err := os.WriteFile(mine, []byte("#!/bin/sh\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o.Uninstall = true
	if _, err := InstallCline(o); err != nil {
		t.Fatal(err)
	}
	for _, ev := range ClineEvents {
		_, err := os.Stat(filepath.Join(root, ".clinerules", "hooks", ev))
		if (ev == "TaskComplete") != (err == nil) {
			t.Errorf("%s after uninstall: %v", ev, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ClineRulesFile)); err == nil {
		t.Error("uninstall left the rule file")
	}
}

// Cline sends a PostToolUse even for a call mbguard refused, with the harmless input it ran:
// that post closes the call as refused, so no change is judged as its.
func TestClineRefusedCallsPostClosesIt(t *testing.T) {
	for _, tool := range []string{"editor", "read_files", "run_commands", "search_codebase"} {
		in, _ := json.Marshal(clineHarmless(clineToolName(tool), "call_7"))
		p := `{"hookName":"tool_result","taskId":"t","workspaceRoots":["/r"],"tool_result":{"id":"call_7","name":"` + tool + `","input":` + string(in) + `,"output":"x"}}`
		c, err := clineProto{}.parse([]byte(p), "PostToolUse")
		if err != nil || c.Kind != callClose || !c.Denied || c.Call != "call_7" {
			t.Errorf("%s: %+v %v", tool, c, err)
		}
	}
	// a shell call that only looks like the refusal is judged as the call it is
	p := `{"hookName":"tool_result","taskId":"t","workspaceRoots":["/r"],"tool_result":{"id":"call_8","name":"run_commands","input":{"commands":["echo '[mbguard] call call_7 was refused before it ran: the reason follows'"]}}}`
	if c, _ := (clineProto{}).parse([]byte(p), "PostToolUse"); c.Kind != callPostTool {
		t.Errorf("another call's refusal text closed call_8: %+v", c)
	}
}
