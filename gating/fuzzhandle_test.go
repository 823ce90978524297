package gating

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fuzzTools are the tool names both hosts send, plus a reader and an unknown tool.
var fuzzTools = []string{"write", "edit", "multiedit", "apply_patch", "patch", "bash", "batch",
	"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "read", "task", "webfetch"}

var fuzzCwds = []string{testRoot, testRoot + "/src", testRoot + "/memory-bank", testRoot + "/docs", "", "src"}

// FuzzHandle drives the whole engine with random calls. It must never panic, must decide the
// same call the same way twice, and must block every write whose canonical path is inside
// memory-bank/ and is neither Markdown nor an allowed file, in every mode; a shell command
// writing a literal path inside memory-bank/ must be blocked too.
func FuzzHandle(f *testing.F) {
	for _, s := range []struct {
		tool       uint8
		args, p, c string
	}{
		{0, ``, "memory-bank/x.json", "{}"},
		{7, ``, testRoot + "/memory-bank/details/x.yaml", "a: 1"},
		{0, ``, "./memory-bank/../memory-bank/x.json", ""},
		{0, ``, `memory-bank\x.json`, ""},
		{0, ``, "docs/x.json", ""},
		{0, ``, "Memory-Bank/x.json", ""},
		{5, ``, "memory-bank/x.json", ""},
		{5, `{"command":"rm -rf *"}`, "", ""},
		{11, `{"command":"bash -c \"echo x > memory-bank/x.json\""}`, "", ""},
		{11, `{"command":"python3 -c \"open('memory-bank/x.json','w')\""}`, "", ""},
		{3, ``, "memory-bank/x.json", "*** Begin Patch\n*** Add File: memory-bank/x.json\n+{}\n*** End Patch"},
		{3, ``, "", "*** Begin Patch\n*** Delete File: memory-bank/MEMORY.md\n*** End Patch"},
		{4, ``, "", "--- /dev/null\n+++ b/memory-bank/x.json\n@@ -0,0 +1 @@\n+{}\n"},
		{6, `{"tool_calls":[{"tool":"write","parameters":{"filePath":"memory-bank/x.json","content":"{}"}}]}`, "", ""},
		{1, `{"filePath":"memory-bank/MEMORY.md","oldString":"hands off","newString":"mine"}`, "", ""},
		{9, `{"file_path":"/repo/memory-bank/MEMORY.md","edits":[{"old_string":"<!-- USER_BLOCK_END -->","new_string":""}]}`, "", ""},
		{10, ``, "memory-bank/n.ipynb", "x"},
		{12, ``, "memory-bank/details/patterns.md", ""},
		{0, ``, "memory-bank/details/tech.md", "# Tech\n" + secretToken},
		{0, ``, "~/p/memory-bank/x.json", ""},
	} {
		for _, ci := range []bool{false, true} {
			f.Add(s.tool, s.args, s.p, s.c, uint8(len(s.p)), ci)
		}
	}
	// one seed per root cause of issue 8 §3, and the bad-argument shapes of issue 11
	for _, cmds := range rootCauseAttacks {
		b, _ := json.Marshal(map[string]any{"command": cmds[0]})
		f.Add(uint8(11), string(b), "", "", uint8(0), false)
	}
	for _, c := range badArgsCases() {
		b, _ := json.Marshal(c.args)
		for i, n := range fuzzTools {
			if strings.EqualFold(n, c.tool) {
				f.Add(uint8(i), string(b), "", "", uint8(0), false)
			}
		}
	}
	f.Fuzz(func(t *testing.T, tool uint8, argsJSON, p, content string, knobs uint8, ci bool) {
		name := fuzzTools[int(tool)%len(fuzzTools)]
		cwd := fuzzCwds[int(knobs)%len(fuzzCwds)]
		mode := []Mode{ModeOff, ModeWarn, ModeBlock}[int(knobs/8)%3]
		args := map[string]any{}
		if argsJSON != "" {
			if err := json.Unmarshal([]byte(argsJSON), &args); err != nil || args == nil {
				args = map[string]any{}
			}
		}
		if p != "" {
			args["filePath"], args["file_path"], args["notebook_path"] = p, p, p
		}
		if content != "" {
			for _, k := range []string{"content", "patchText", "command", "newString", "new_string", "new_source"} {
				if _, ok := args[k]; !ok {
					args[k] = content
				}
			}
		}
		newFx := func() *memFacts {
			fx := newFacts(bankFiles())
			fx.ci = ci
			fx.links[testRoot+"/docs"] = testRoot + "/memory-bank"
			fx.links[testRoot+"/memory-bank/out"] = "/tmp/elsewhere"
			return fx
		}
		run := func() (Decision, Decision, State) {
			e := New(policyWith(mode, mode, mode))
			fx := newFx()
			st := &State{}
			ev := Event{Kind: EvMessage, Host: "opencode", Session: "s", Message: "m", Cwd: cwd, Now: 1}
			e.Handle(st, ev, fx)
			ev.Kind, ev.Tool, ev.Args, ev.Now = EvToolBefore, name, args, 2
			d := e.Handle(st, ev, fx)
			ev.Kind, ev.Now = EvToolAfter, 3
			e.Handle(st, ev, fx)
			ev.Kind, ev.Tool, ev.Args, ev.Now = EvCompaction, "", nil, 4
			e.Handle(st, ev, fx)
			ev.Kind, ev.Tool, ev.Args, ev.Now = EvToolBefore, name, args, 5
			d2 := e.Handle(st, ev, fx)
			return d, d2, *st
		}
		d, d2, st := run()
		e, e2, st2 := run()
		if !reflect.DeepEqual(d, e) || !reflect.DeepEqual(d2, e2) || !reflect.DeepEqual(st, st2) {
			t.Fatalf("not deterministic:\n%+v\n%+v", d, e)
		}
		if d.Verdict == Block && !strings.Contains(d.Message, "Next") {
			t.Fatalf("a block without a next step: %q", d.Message)
		}
		fx := newFx()
		lower := strings.ToLower(name)
		if (lower == "write" || lower == "notebookedit") && p != "" {
			rel, in := Canon(p, cwd, fx)
			allowed := New(DefaultPolicy()).allowedBankFile(rel)
			if in && inBank(rel) && !isMarkdown(rel) && !allowed && d.Verdict != Block {
				t.Fatalf("%s %q (canonical %q) in mode %s: %s, want block", name, p, rel, mode, d.Verdict)
			}
		}
		if lower == "bash" && argsJSON == "" && p != "" && content == "" && !strings.HasPrefix(p, "~") && !strings.ContainsAny(p, "\x00\r") {
			// a literal target, single-quoted so the shell takes it verbatim
			args["command"] = "echo x > '" + strings.ReplaceAll(p, "'", `'\''`) + "'"
			shellDecision := New(policyWith(mode, mode, mode)).Handle(&State{}, Event{Kind: EvToolBefore, Session: "s",
				Tool: name, Args: args, Cwd: cwd}, fx)
			rel, in := Canon(p, cwdOr(cwd), fx)
			if in && inBank(rel) && shellDecision.Verdict != Block {
				t.Fatalf("%q writes %q (canonical %q) in mode %s: %s, want block", args["command"], p, rel, mode, shellDecision.Verdict)
			}
		}
	})
}

// cwdOr is the directory a shell command starts in when the event names none.
func cwdOr(cwd string) string {
	if cwd == "" {
		return testRoot
	}
	return cwd
}
