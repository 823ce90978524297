package gating

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadGate(t *testing.T) {
	highEdit := map[string]any{"filePath": "package.json", "oldString": "a", "newString": "b"}
	twoFiles := map[string]any{"patchText": "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Update File: src/b.ts\n@@\n-a\n+b\n*** End Patch"}
	tests := []struct {
		name  string
		mode  Mode
		prep  func(s *session)
		tool  string
		args  map[string]any
		want  Verdict
		gate  Gate
		risk  Risk
		inMsg []string
	}{
		{name: "warn mode warns on high", mode: ModeWarn, tool: "edit", args: highEdit, want: Warn, gate: GateRead, risk: RiskHigh,
			inMsg: []string{"[mbguard read gate]", `read({ filePath: "memory-bank/details/patterns.md" })`, "package.json"}},
		{name: "warn mode warns on medium", mode: ModeWarn, tool: "apply_patch", args: twoFiles, want: Warn, gate: GateRead, risk: RiskMedium},
		{name: "low passes", mode: ModeBlock, tool: "edit", args: map[string]any{"filePath": "src/app.ts", "oldString": "1", "newString": "2"}, want: Allow, risk: RiskLow},
		{name: "block mode blocks high", mode: ModeBlock, tool: "edit", args: highEdit, want: Block, gate: GateRead, risk: RiskHigh,
			inMsg: []string{"blocked", "memory-reader"}},
		{name: "block mode warns medium", mode: ModeBlock, tool: "apply_patch", args: twoFiles, want: Warn, gate: GateRead, risk: RiskMedium},
		{name: "off mode has no read gate", mode: ModeOff, tool: "edit", args: highEdit, want: Allow, risk: RiskHigh},
		{name: "patterns.md read satisfies", mode: ModeBlock, prep: func(s *session) { s.read("memory-bank/details/patterns.md") },
			tool: "edit", args: highEdit, want: Allow, risk: RiskHigh},
		{name: "another bank file does not satisfy", mode: ModeBlock, prep: func(s *session) { s.read("memory-bank/details/tech.md") },
			tool: "edit", args: highEdit, want: Block, gate: GateRead, risk: RiskHigh},
		{name: "reader subagent satisfies", mode: ModeBlock, prep: func(s *session) { s.reader() },
			tool: "edit", args: highEdit, want: Allow, risk: RiskHigh},
		{name: "proxy_task reader satisfies", mode: ModeBlock, prep: func(s *session) {
			s.call("proxy_task", map[string]any{"subagent_type": "memory-reader"})
		}, tool: "edit", args: highEdit, want: Allow, risk: RiskHigh},
		{name: "older Claude Task reader satisfies", mode: ModeBlock, prep: func(s *session) {
			s.call("Task", map[string]any{"subagent_type": "memory-reader", "description": "x"})
		}, tool: "edit", args: highEdit, want: Allow, risk: RiskHigh},
		{name: "a reader call that did not run does not count", mode: ModeBlock, prep: func(s *session) {
			s.before("task", map[string]any{"subagent_type": "memory-reader"})
		}, tool: "edit", args: highEdit, want: Block, gate: GateRead, risk: RiskHigh},
		{name: "read inside a batch counts", mode: ModeBlock, prep: func(s *session) {
			s.call("batch", map[string]any{"tool_calls": []any{
				map[string]any{"tool": "read", "parameters": map[string]any{"filePath": "memory-bank/details/patterns.md"}},
			}})
		}, tool: "edit", args: highEdit, want: Allow, risk: RiskHigh},
		{name: "a write's success is not a read", mode: ModeBlock, prep: func(s *session) {
			s.call("write", map[string]any{"filePath": "memory-bank/details/patterns.md", "content": "# P\n"})
		}, tool: "edit", args: highEdit, want: Block, gate: GateRead, risk: RiskHigh},
		{name: "other subagent does not satisfy", mode: ModeBlock, prep: func(s *session) {
			s.call("task", map[string]any{"subagent_type": "general"})
		}, tool: "edit", args: highEdit, want: Block, gate: GateRead, risk: RiskHigh},
		{name: "read-only shell read satisfies", mode: ModeBlock, prep: func(s *session) { s.bash("sed -n 1,40p memory-bank/details/patterns.md") },
			tool: "edit", args: highEdit, want: Allow, risk: RiskHigh},
		{name: "shell read mixed with a write does not count", mode: ModeBlock, prep: func(s *session) {
			s.bash("cat memory-bank/details/patterns.md > /tmp/p.md")
		}, tool: "edit", args: highEdit, want: Block, gate: GateRead, risk: RiskHigh},
		{name: "attached file satisfies", mode: ModeBlock, prep: func(s *session) { s.message("memory-bank/details/patterns.md") },
			tool: "edit", args: highEdit, want: Allow, risk: RiskHigh},
		{name: "a read that failed does not count", mode: ModeBlock, prep: func(s *session) {
			s.before("read", map[string]any{"filePath": "memory-bank/details/patterns.md"}) // no after
		}, tool: "edit", args: highEdit, want: Block, gate: GateRead, risk: RiskHigh},
		{name: "reading through a symlink from outside does not count", mode: ModeBlock, prep: func(s *session) {
			s.fx.links[testRoot+"/notes"] = testRoot + "/memory-bank/details"
			s.read("notes/patterns.md")
		}, tool: "edit", args: highEdit, want: Block, gate: GateRead, risk: RiskHigh},
		{name: "shell write is medium", mode: ModeBlock, tool: "bash", args: map[string]any{"command": "sed -i s/a/b/ src/app.ts"}, want: Warn, gate: GateRead, risk: RiskMedium},
		{name: "shell write to sensitive is high", mode: ModeBlock, tool: "bash", args: map[string]any{"command": "rm -rf infra"}, want: Block, gate: GateRead, risk: RiskHigh},
		{name: "read-only shell is not gated", mode: ModeBlock, tool: "bash", args: map[string]any{"command": "ls -la && cat go.mod"}, want: Allow, risk: RiskNone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, policyWith(tc.mode, ModeBlock, ModeOff), newFacts(bankFiles()), "opencode")
			if tc.prep != nil {
				tc.prep(s)
			}
			d := s.before(tc.tool, tc.args)
			want(t, d, tc.want, tc.gate)
			if d.Risk != tc.risk {
				t.Errorf("risk = %q, want %q", d.Risk, tc.risk)
			}
			wantMsg(t, d, tc.inMsg...)
		})
	}
}

func TestReadGateWarnsOncePerMessage(t *testing.T) {
	s := newSession(t, policyWith(ModeWarn, ModeBlock, ModeOff), newFacts(bankFiles()), "opencode")
	high := map[string]any{"filePath": "package.json", "content": "{}"}
	want(t, s.before("write", high), Warn, GateRead)
	want(t, s.before("write", high), Allow, GateNone)
	s.message()
	want(t, s.before("write", high), Warn, GateRead)
}

func TestNewMessageResetsReads(t *testing.T) {
	s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeOff), newFacts(bankFiles()), "opencode")
	s.read("memory-bank/details/patterns.md")
	high := map[string]any{"filePath": "go.mod", "content": "module x"}
	want(t, s.before("write", high), Allow, GateNone)
	s.message()
	if s.st.Satisfied || len(s.st.Reads) != 0 {
		t.Fatalf("message state survived: %+v", s.st)
	}
	want(t, s.before("write", high), Block, GateRead)
	// a tool event carrying a new message id starts the new message too
	s.read("memory-bank/details/patterns.md")
	s.msg++
	want(t, s.before("write", high), Block, GateRead)
}

func TestRisk(t *testing.T) {
	tests := []struct {
		name string
		tool string
		args map[string]any
		want Risk
	}{
		{"single code edit", "edit", map[string]any{"filePath": "src/app.ts", "oldString": "1", "newString": "2"}, RiskLow},
		{"lockfile", "write", map[string]any{"filePath": "web/yarn.lock", "content": ""}, RiskHigh},
		{"auth dir", "Write", map[string]any{"file_path": "/repo/src/auth/login.ts", "content": ""}, RiskHigh},
		{"author.go is not auth", "write", map[string]any{"filePath": "src/author.go", "content": ""}, RiskLow},
		{"processor.ts is not sso", "write", map[string]any{"filePath": "src/processor.ts", "content": ""}, RiskLow},
		{"env file", "write", map[string]any{"filePath": ".env.local", "content": ""}, RiskHigh},
		{"ci workflow via patch", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: .github/workflows/ci.yml\n+on: push\n*** End Patch"}, RiskHigh},
		{"two files", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: a.go\n+x\n*** Add File: b.go\n+y\n*** End Patch"}, RiskMedium},
		{"same file twice is one file", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Update File: ./a.go\n@@\n-p\n+q\n*** End Patch"}, RiskLow},
		{"two safe files stay low", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: memory-bank/details/progress.md\n@@\n+x\n*** Add File: memory-bank/details/learnings/auth-bug.md\n+y\n*** End Patch"}, RiskLow},
		{"safe beats sensitive", "write", map[string]any{"filePath": "memory-bank/details/learnings/auth/notes.md", "content": "x"}, RiskLow},
		{"multiedit with per-edit paths", "multiedit", map[string]any{"filePath": "src/a.ts", "edits": []any{
			map[string]any{"filePath": "src/b.ts", "oldString": "a", "newString": "b"}}}, RiskMedium},
		{"shell write", "bash", map[string]any{"command": "echo x >> src/app.ts"}, RiskMedium},
		{"shell unknown target", "bash", map[string]any{"command": "echo x > $OUT"}, RiskMedium},
		{"shell write to sensitive", "bash", map[string]any{"command": "npm i x && cp a package.json"}, RiskHigh},
		{"read is no write", "read", map[string]any{"filePath": "package.json"}, RiskNone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), "opencode")
			if d := s.before(tc.tool, tc.args); d.Risk != tc.want {
				t.Errorf("risk = %q, want %q (%+v)", d.Risk, tc.want, d)
			}
		})
	}
}

func TestToolPaths(t *testing.T) {
	tests := []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"opencode write", "write", map[string]any{"filePath": "src/a.ts", "content": "x"}, []string{"src/a.ts"}},
		{"opencode edit absolute", "edit", map[string]any{"filePath": "/repo/src/a.ts", "oldString": "a", "newString": "b"}, []string{"src/a.ts"}},
		{"opencode multiedit", "multiedit", map[string]any{"filePath": "src/a.ts", "edits": []any{map[string]any{"oldString": "a", "newString": "b"}}}, []string{"src/a.ts"}},
		{"opencode patch tool name", "patch", map[string]any{"patchText": "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n"}, []string{"x.go"}},
		{"codex move", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n*** End Patch"}, []string{"a.go", "b.go"}},
		{"claude Write", "Write", map[string]any{"file_path": "/repo/src/a.ts", "content": "x"}, []string{"src/a.ts"}},
		{"claude Edit", "Edit", map[string]any{"file_path": "/repo/src/a.ts", "old_string": "a", "new_string": "b", "replace_all": true}, []string{"src/a.ts"}},
		{"claude MultiEdit", "MultiEdit", map[string]any{"file_path": "/repo/src/a.ts", "edits": []any{map[string]any{"old_string": "a", "new_string": "b"}}}, []string{"src/a.ts"}},
		{"claude NotebookEdit", "NotebookEdit", map[string]any{"notebook_path": "/repo/nb/x.ipynb", "new_source": "x", "edit_mode": "replace"}, []string{"nb/x.ipynb"}},
		{"paths array", "write", map[string]any{"paths": []any{"a.md", "b.md"}, "content": ""}, []string{"a.md", "b.md"}},
		{"bash workdir", "bash", map[string]any{"command": "touch x.go", "workdir": "/repo/src"}, []string{"src/x.go"}},
		{"claude Bash", "Bash", map[string]any{"command": "rm src/app.ts"}, []string{"src/app.ts"}},
		{"unknown tool is not gated", "webfetch", map[string]any{"url": "x", "path": "src/a.ts"}, nil},
		{"batch unpacked", "batch", map[string]any{"tool_calls": []any{
			map[string]any{"tool": "read", "parameters": map[string]any{"filePath": "x"}},
			map[string]any{"tool": "write", "parameters": map[string]any{"filePath": "src/a.ts", "content": ""}},
			map[string]any{"tool": "edit", "parameters": map[string]any{"filePath": "src/b.ts", "oldString": "a", "newString": "b"}},
		}}, []string{"src/a.ts", "src/b.ts"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), "opencode")
			d := s.before(tc.tool, tc.args)
			if !reflect.DeepEqual(d.Paths, tc.want) && !(len(d.Paths) == 0 && len(tc.want) == 0) {
				t.Errorf("paths = %q, want %q", d.Paths, tc.want)
			}
		})
	}
}

func TestBatchStrictestWins(t *testing.T) {
	s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeOff), newFacts(bankFiles()), "opencode")
	d := s.before("batch", map[string]any{"tool_calls": []any{
		map[string]any{"tool": "write", "parameters": map[string]any{"filePath": "memory-bank/details/progress.md", "content": "# Progress\nok\n"}},
		map[string]any{"tool": "edit", "parameters": map[string]any{"filePath": "src/app.ts", "oldString": "1", "newString": "2"}},
		map[string]any{"tool": "write", "parameters": map[string]any{"filePath": "package.json", "content": "{}"}},
	}})
	want(t, d, Block, GateRead)
	if d.Risk != RiskHigh || len(d.Paths) != 3 {
		t.Errorf("risk %q paths %q", d.Risk, d.Paths)
	}
	if s.st.BankWritten {
		t.Error("a blocked batch recorded its bank write")
	}
	d = s.before("batch", map[string]any{"tool_calls": []any{
		map[string]any{"tool": "write", "parameters": map[string]any{"filePath": "memory-bank/notes.json", "content": "{}"}},
		map[string]any{"tool": "write", "parameters": map[string]any{"filePath": "package.json", "content": "{}"}},
	}})
	want(t, d, Block, GateBank)
}

// A batch nested deeper than any host nests them hides its calls: the bank guard refuses it
// even with every gate off, since what it writes cannot be known.
func TestNestedBatchIsRefused(t *testing.T) {
	var call any = map[string]any{"tool": "write", "parameters": map[string]any{"filePath": "memory-bank/x.json", "content": "{}"}}
	for range maxBatchDepth + 1 {
		call = map[string]any{"tool": "batch", "parameters": map[string]any{"tool_calls": []any{call}}}
	}
	s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), "opencode")
	d := s.before("batch", call.(map[string]any)["parameters"].(map[string]any))
	want(t, d, Block, GateBank)
	wantMsg(t, d, "Next:")
}

func TestNoBankNoGating(t *testing.T) {
	fx := newFacts(map[string]string{"src/a.ts": ""})
	fx.noBank = true
	s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeBlock), fx, "opencode")
	want(t, s.write("package.json", "{}"), Allow, GateNone)
	want(t, s.write("memory-bank/x.json", "{}"), Allow, GateNone)
	want(t, s.bash("echo x > memory-bank/x.json"), Allow, GateNone)
	if d := s.compact(); d.Recovery != "" || s.st.Recovery != nil {
		t.Errorf("recovery armed without a bank: %+v", d)
	}
}

func TestSessionEndResets(t *testing.T) {
	s := newSession(t, DefaultPolicy(), newFacts(bankFiles()), "opencode")
	s.read("memory-bank/details/requirements/REQ-1.md")
	s.compact()
	if s.st.Recovery == nil || len(s.st.Anchors) == 0 {
		t.Fatal("setup: no recovery")
	}
	d := s.ev(EvSessionEnd, "", nil)
	want(t, d, Allow, GateNone)
	if !reflect.DeepEqual(*s.st, State{}) {
		t.Errorf("state after session end: %+v", *s.st)
	}
}

func TestPrecedence(t *testing.T) {
	t.Run("bank guard beats read gate", func(t *testing.T) {
		s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeBlock), newFacts(bankFiles()), "opencode")
		d := s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: package.json\n+{}\n*** Add File: memory-bank/x.yaml\n+a: 1\n*** End Patch"})
		want(t, d, Block, GateBank)
		if d.Risk != RiskHigh {
			t.Errorf("risk = %q", d.Risk)
		}
	})
	t.Run("recovery beats read gate", func(t *testing.T) {
		s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeBlock), newFacts(bankFiles()), "opencode")
		s.compact()
		want(t, s.write("package.json", "{}"), Block, GateRecovery)
	})
	t.Run("read gate beats doc-first, which still warns later", func(t *testing.T) {
		s := newSession(t, policyWith(ModeWarn, ModeBlock, ModeWarn), newFacts(bankFiles()), "opencode")
		want(t, s.write("package.json", "{}"), Warn, GateRead)
		want(t, s.write("src/app.ts", "x"), Warn, GateDocFirst)
		want(t, s.write("src/app.ts", "y"), Allow, GateNone)
	})
	t.Run("block beats an earlier gate's warning", func(t *testing.T) {
		s := newSession(t, policyWith(ModeWarn, ModeBlock, ModeBlock), newFacts(bankFiles()), "opencode")
		want(t, s.write("package.json", "{}"), Block, GateDocFirst)
	})
}

func TestDocFirst(t *testing.T) {
	tests := []struct {
		name  string
		mode  Mode
		steps func(s *session) Decision
		want  Verdict
		gate  Gate
	}{
		{"warn on code before docs", ModeWarn, func(s *session) Decision { return s.write("src/app.ts", "x") }, Warn, GateDocFirst},
		{"warns once", ModeWarn, func(s *session) Decision { s.write("src/app.ts", "x"); return s.write("src/b.ts", "x") }, Allow, GateNone},
		{"block mode blocks", ModeBlock, func(s *session) Decision { return s.write("src/app.ts", "x") }, Block, GateDocFirst},
		{"block mode keeps blocking", ModeBlock, func(s *session) Decision { s.write("src/app.ts", "x"); return s.write("src/app.ts", "x") }, Block, GateDocFirst},
		{"bank write first", ModeBlock, func(s *session) Decision {
			s.edit("memory-bank/details/progress.md", "# Progress\n", "# Progress\n- store switch\n")
			return s.write("src/app.ts", "x")
		}, Allow, GateNone},
		{"a blocked bank write does not count", ModeBlock, func(s *session) Decision {
			s.write("memory-bank/notes.txt", "x")
			return s.write("src/app.ts", "x")
		}, Block, GateDocFirst},
		{"bank write in the same patch", ModeBlock, func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: memory-bank/details/design/store.md\n+# Store\n*** Add File: src/store.ts\n+x\n*** End Patch"})
		}, Allow, GateNone},
		{"docs are not code", ModeBlock, func(s *session) Decision { return s.write("docs/guide.md", "x") }, Allow, GateNone},
		{"outside the repository is not code", ModeBlock, func(s *session) Decision { return s.write("/tmp/scratch.go", "x") }, Allow, GateNone},
		{"new message needs docs again", ModeBlock, func(s *session) Decision {
			s.edit("memory-bank/details/progress.md", "# Progress\n", "# Progress\n- x\n")
			s.message()
			return s.write("src/app.ts", "x")
		}, Block, GateDocFirst},
		{"off", ModeOff, func(s *session) Decision { return s.write("src/app.ts", "x") }, Allow, GateNone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, policyWith(ModeOff, ModeOff, tc.mode), newFacts(bankFiles()), "opencode")
			d := tc.steps(s)
			want(t, d, tc.want, tc.gate)
			if d.Gate == GateDocFirst {
				wantMsg(t, d, "[mbguard doc-first]", "memory-bank/details/progress.md")
			}
		})
	}
}

func TestEventsWithoutTools(t *testing.T) {
	s := newSession(t, DefaultPolicy(), newFacts(bankFiles()), "opencode")
	for _, k := range []EventKind{EvToolAfter, EventKind("unknown")} {
		if d := s.ev(k, "write", map[string]any{"filePath": "memory-bank/x.json"}); d.Verdict != Allow {
			t.Errorf("%s: %+v", k, d)
		}
	}
	if !strings.HasPrefix(s.st.Session, "s1") || s.st.Updated == 0 {
		t.Errorf("bookkeeping: %+v", s.st)
	}
}

// A batch whose tool_calls is not a list of calls cannot be judged: it is refused, never
// allowed as nothing (issue 20's acceptance run found tool_calls: 5 allowed in block mode).
func TestBatchWithBadCallsIsRefused(t *testing.T) {
	for name, args := range map[string]map[string]any{
		"number":         {"tool_calls": 5.0},
		"string":         {"tool_calls": "rm -rf memory-bank"},
		"object":         {"tool_calls": map[string]any{"tool": "write"}},
		"missing":        {},
		"entry a string": {"tool_calls": []any{"write memory-bank/x.json"}},
	} {
		for _, mode := range []Mode{ModeWarn, ModeBlock} {
			s := newSession(t, policyWith(mode, ModeBlock, ModeOff), newFacts(bankFiles()), "opencode")
			d := s.before("batch", args)
			if d.Verdict != Block {
				t.Errorf("%s, %s mode: %s (%q), want a block", name, mode, d.Verdict, d.Message)
			}
			wantMsg(t, d, "tool_calls", "Next:")
		}
	}
	s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeOff), newFacts(bankFiles()), "opencode")
	if d := s.before("batch", map[string]any{"tool_calls": []any{}}); d.Verdict != Allow {
		t.Errorf("an empty batch: %s (%q), want allowed", d.Verdict, d.Message)
	}
}
