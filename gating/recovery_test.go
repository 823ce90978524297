package gating

import (
	"reflect"
	"strings"
	"testing"
)

func TestAnchorLRU(t *testing.T) {
	p := DefaultPolicy()
	p.AnchorLRU = 3
	fx := newFacts(bankFiles())
	for _, f := range []string{"a", "b", "c", "d"} {
		fx.files["memory-bank/details/design/"+f+".md"] = "#"
	}
	s := newSession(t, p, fx, "opencode")
	for _, f := range []string{"a", "b", "c", "d", "b"} {
		s.read("memory-bank/details/design/" + f + ".md")
	}
	s.read("memory-bank/details/tech.md") // not an anchor
	s.read("src/app.ts")                  // not the bank
	want := []string{"memory-bank/details/design/c.md", "memory-bank/details/design/d.md", "memory-bank/details/design/b.md"}
	if !reflect.DeepEqual(s.st.Anchors, want) {
		t.Fatalf("anchors = %q, want %q (most recent kept, re-read moves to the end)", s.st.Anchors, want)
	}
	s.message()
	if !reflect.DeepEqual(s.st.Anchors, want) {
		t.Fatal("anchors are per session, not per message")
	}
}

func TestCompaction(t *testing.T) {
	tests := []struct {
		name    string
		prep    func(s *session)
		anchors []string
	}{
		{"fallbacks only", nil, []string{"memory-bank/MEMORY.md", "memory-bank/details/patterns.md"}},
		{"tracked, most recent first, then fallbacks", func(s *session) {
			s.read("memory-bank/details/requirements/REQ-1.md")
			s.read("memory-bank/details/progress.md")
		}, []string{"memory-bank/details/progress.md", "memory-bank/details/requirements/REQ-1.md", "memory-bank/MEMORY.md", "memory-bank/details/patterns.md"}},
		{"vanished anchors are left out", func(s *session) {
			s.read("memory-bank/details/requirements/REQ-2.md")
			delete(s.fx.files, "memory-bank/details/requirements/REQ-2.md")
			delete(s.fx.files, "memory-bank/details/patterns.md")
		}, []string{"memory-bank/MEMORY.md"}},
		{"nothing exists, nothing armed", func(s *session) {
			delete(s.fx.files, "memory-bank/details/patterns.md")
			delete(s.fx.files, "memory-bank/MEMORY.md")
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, DefaultPolicy(), newFacts(bankFiles()), "opencode")
			if tc.prep != nil {
				tc.prep(s)
			}
			d := s.compact()
			if tc.anchors == nil {
				if s.st.Recovery != nil || d.Recovery != "" || d.Advice != "" {
					t.Fatalf("armed with nothing to read: %+v", d)
				}
				return
			}
			if d.Recovery != "armed" || s.st.Recovery == nil {
				t.Fatalf("not armed: %+v", d)
			}
			if !reflect.DeepEqual(s.st.Recovery.Anchors, tc.anchors) {
				t.Errorf("anchors = %q, want %q", s.st.Recovery.Anchors, tc.anchors)
			}
			for _, a := range tc.anchors {
				if !strings.Contains(d.Advice, "- "+a+"\n") {
					t.Errorf("anchor block lacks %s", a)
				}
			}
			if s.st.Compactions != 1 || s.st.Recovery.Since != s.now {
				t.Errorf("bookkeeping: %+v %+v", s.st, s.st.Recovery)
			}
		})
	}
}

func TestAnchorBlock(t *testing.T) {
	s := newSession(t, DefaultPolicy(), newFacts(bankFiles()), "opencode")
	d := s.compact()
	for _, part := range []string{AnchorSentinel, "Compaction occurred. Before any write, read:", "- Goal: switch the store to zustand",
		"- Remaining: tests", "Do not write until these are read.", "</memory-bank-anchors>"} {
		if !strings.Contains(d.Advice, part) {
			t.Errorf("anchor block lacks %q:\n%s", part, d.Advice)
		}
	}
	if strings.Contains(d.Advice, "Decision Highlights") || strings.Contains(d.Advice, "A demo.") {
		t.Errorf("anchor block leaks other sections:\n%s", d.Advice)
	}
	// ~150 tokens: a few hundred characters for the fallbacks plus the focus
	if n := len(d.Advice); n > 900 {
		t.Errorf("anchor block is %d bytes", n)
	}
}

func TestCurrentFocus(t *testing.T) {
	long := strings.Repeat("é", 200)
	memory := "## Current Focus\n\n1\n2\n<!-- x -->\n3\n4\n5\n6\n7\n## Next\n"
	if got := CurrentFocus(memory); !reflect.DeepEqual(got, []string{"1", "2", "3", "4", "5", "6"}) {
		t.Errorf("CurrentFocus = %q", got)
	}
	got := CurrentFocus("## Current focus (now)\n" + long + "\n")
	if len(got) != 1 || len(got[0]) > maxFocusLine+len("…") || !strings.HasSuffix(got[0], "…") {
		t.Errorf("long line not cut: %q", got)
	}
	if got := CurrentFocus("# Title\n### Current Focus\nx\n"); got != nil {
		t.Errorf("only a level-2 heading counts: %q", got)
	}
	// Current Focus as the machine block's last section: the user's notes stay out.
	blocks := "<!-- MACHINE_BLOCK_START -->\n## Current Focus\n- ship it\n<!-- MACHINE_BLOCK_END -->\n\n<!-- USER_BLOCK_START -->\nprivate notes\n<!-- USER_BLOCK_END -->\n"
	if got := CurrentFocus(blocks); !reflect.DeepEqual(got, []string{"- ship it"}) {
		t.Errorf("CurrentFocus leaked past the machine block: %q", got)
	}
	broken := "## Current Focus\n- ship it\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\nprivate notes\n"
	if got := CurrentFocus(broken); !reflect.DeepEqual(got, []string{"- ship it"}) {
		t.Errorf("CurrentFocus read past a block marker in a malformed file: %q", got)
	}
}

func TestRecoveryGate(t *testing.T) {
	multi := map[string]any{"patchText": "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Update File: src/b.ts\n@@\n-a\n+b\n*** End Patch"}
	tests := []struct {
		name     string
		mode     Mode
		prep     func(s *session)
		run      func(s *session) Decision
		want     Verdict
		gate     Gate
		armed    bool
		inMsg    []string
		notInMsg []string
	}{
		{name: "medium write blocked with unread anchors", mode: ModeBlock, run: func(s *session) Decision { return s.before("apply_patch", multi) },
			want: Block, gate: GateRecovery, armed: true,
			inMsg: []string{"[mbguard recovery gate]", `read({ filePath: "memory-bank/MEMORY.md" })`, `read({ filePath: "memory-bank/details/patterns.md" })`, `task({ subagent_type: "memory-reader" })`}},
		{name: "message lists only unread anchors", mode: ModeBlock, prep: func(s *session) { s.read("memory-bank/MEMORY.md") },
			run: func(s *session) Decision { return s.before("apply_patch", multi) }, want: Block, gate: GateRecovery, armed: true,
			inMsg: []string{"details/patterns.md"}, notInMsg: []string{`"memory-bank/MEMORY.md"`}},
		{name: "low write passes", mode: ModeBlock, run: func(s *session) Decision { return s.edit("src/app.ts", "1", "2") }, want: Allow, armed: true},
		{name: "shell write blocked", mode: ModeBlock, run: func(s *session) Decision { return s.bash("sed -i s/1/2/ src/app.ts") }, want: Block, gate: GateRecovery, armed: true},
		{name: "warn mode warns once", mode: ModeWarn, run: func(s *session) Decision {
			if d := s.before("apply_patch", multi); d.Verdict != Warn || d.Gate != GateRecovery {
				return d
			}
			return s.before("apply_patch", multi)
		}, want: Allow, armed: true},
		{name: "off mode", mode: ModeOff, run: func(s *session) Decision { return s.before("apply_patch", multi) }, want: Allow, armed: true},
		{name: "reading every anchor clears", mode: ModeBlock, run: func(s *session) Decision {
			s.read("memory-bank/MEMORY.md")
			if d := s.read("memory-bank/details/patterns.md"); d.Recovery != "cleared" {
				return Decision{Verdict: "not cleared"}
			}
			return s.before("apply_patch", multi)
		}, want: Allow},
		{name: "shell reads clear too", mode: ModeBlock, run: func(s *session) Decision {
			s.bash("cat memory-bank/MEMORY.md memory-bank/details/patterns.md")
			return s.before("apply_patch", multi)
		}, want: Allow},
		{name: "memory-reader clears", mode: ModeBlock, run: func(s *session) Decision {
			if d := s.reader(); d.Recovery != "cleared" {
				return Decision{Verdict: "not cleared"}
			}
			return s.before("apply_patch", multi)
		}, want: Allow},
		{name: "reading another file does not clear", mode: ModeBlock, run: func(s *session) Decision {
			s.read("memory-bank/details/tech.md")
			return s.before("apply_patch", multi)
		}, want: Block, gate: GateRecovery, armed: true},
		{name: "vanished anchor is dropped", mode: ModeBlock, run: func(s *session) Decision {
			s.read("memory-bank/MEMORY.md")
			delete(s.fx.files, "memory-bank/details/patterns.md")
			d := s.before("apply_patch", multi)
			if d.Recovery != "cleared" {
				d.Verdict = "not cleared"
			}
			return d
		}, want: Allow},
		{name: "deleting an anchor by patch is gated", mode: ModeBlock, run: func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Delete File: memory-bank/details/patterns.md\n*** End Patch"})
		}, want: Block, gate: GateRecovery, armed: true},
		{name: "moving an anchor is gated", mode: ModeBlock, run: func(s *session) Decision {
			return s.before("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: memory-bank/details/patterns.md\n*** Move to: memory-bank/details/archive/patterns.md\n*** End Patch"})
		}, want: Block, gate: GateRecovery, armed: true},
		{name: "deleting an anchor by shell is the bank's block", mode: ModeBlock, run: func(s *session) Decision {
			return s.bash("rm memory-bank/details/patterns.md")
		}, want: Block, gate: GateBank, armed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, policyWith(ModeOff, tc.mode, ModeOff), newFacts(bankFiles()), "opencode")
			if d := s.compact(); d.Recovery != "armed" {
				t.Fatal("setup: not armed")
			}
			if tc.prep != nil {
				tc.prep(s)
			}
			d := tc.run(s)
			want(t, d, tc.want, tc.gate)
			if armed := s.st.Recovery != nil; armed != tc.armed {
				t.Errorf("armed = %v, want %v", armed, tc.armed)
			}
			wantMsg(t, d, tc.inMsg...)
			for _, n := range tc.notInMsg {
				if strings.Contains(d.Message, n) {
					t.Errorf("message %q has %q", d.Message, n)
				}
			}
		})
	}
}

func TestRecoveryMessageClaude(t *testing.T) {
	s := newSession(t, DefaultPolicy(), newFacts(bankFiles()), "claude")
	s.compact()
	d := s.before("Bash", map[string]any{"command": "touch src/x.ts src/y.ts"})
	want(t, d, Block, GateRecovery)
	wantMsg(t, d, `Read({ file_path: "/repo/memory-bank/MEMORY.md" })`, `Agent({ subagent_type: "memory-reader" })`)
}
