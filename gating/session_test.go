package gating

import (
	"strconv"
	"strings"
	"testing"
)

// session replays one agent session against an engine.
type session struct {
	t    *testing.T
	e    *Engine
	st   *State
	fx   *memFacts
	host string
	msg  int
	now  int64
}

func newSession(t *testing.T, p Policy, fx *memFacts, host string) *session {
	t.Helper()
	s := &session{t: t, e: New(p), st: &State{}, fx: fx, host: host}
	s.message()
	return s
}

func (s *session) ev(kind EventKind, tool string, args map[string]any) Decision {
	s.now += 1000
	return s.e.Handle(s.st, Event{Kind: kind, Host: s.host, Session: "s1", Message: "m" + strconv.Itoa(s.msg),
		Tool: tool, Args: args, Cwd: testRoot, Now: s.now}, s.fx)
}

func (s *session) message(attached ...string) Decision {
	s.msg++
	s.now += 1000
	return s.e.Handle(s.st, Event{Kind: EvMessage, Host: s.host, Session: "s1", Message: "m" + strconv.Itoa(s.msg),
		Attached: attached, Cwd: testRoot, Now: s.now}, s.fx)
}

func (s *session) before(tool string, args map[string]any) Decision {
	return s.ev(EvToolBefore, tool, args)
}

// call runs before and, unless blocked, after: a tool call that succeeded.
func (s *session) call(tool string, args map[string]any) Decision {
	d := s.before(tool, args)
	if d.Verdict != Block {
		a := s.ev(EvToolAfter, tool, args)
		if a.Recovery != "" {
			d.Recovery = a.Recovery
		}
	}
	return d
}

func (s *session) compact() Decision { return s.ev(EvCompaction, "", nil) }

// host-neutral helpers: OpenCode spellings unless the session is Claude's
func (s *session) claude() bool { return s.host == "claude" }

func (s *session) read(p string) Decision {
	if s.claude() {
		return s.call("Read", map[string]any{"file_path": testRoot + "/" + p})
	}
	return s.call("read", map[string]any{"filePath": p})
}

func (s *session) edit(p, old, new string) Decision {
	if s.claude() {
		return s.before("Edit", map[string]any{"file_path": testRoot + "/" + p, "old_string": old, "new_string": new})
	}
	return s.before("edit", map[string]any{"filePath": p, "oldString": old, "newString": new})
}

func (s *session) write(p, content string) Decision {
	if s.claude() {
		return s.before("Write", map[string]any{"file_path": testRoot + "/" + p, "content": content})
	}
	return s.before("write", map[string]any{"filePath": p, "content": content})
}

func (s *session) bash(cmd string) Decision {
	if s.claude() {
		return s.call("Bash", map[string]any{"command": cmd})
	}
	return s.call("bash", map[string]any{"command": cmd})
}

func (s *session) reader() Decision {
	if s.claude() {
		return s.call("Agent", map[string]any{"subagent_type": "memory-reader", "prompt": "x"})
	}
	return s.call("task", map[string]any{"subagent_type": "memory-reader", "prompt": "x"})
}

func want(t *testing.T, d Decision, v Verdict, g Gate) {
	t.Helper()
	if d.Verdict != v || d.Gate != g {
		t.Fatalf("decision = %s/%s (%q), want %s/%s", d.Verdict, d.Gate, d.Message, v, g)
	}
}

func wantMsg(t *testing.T, d Decision, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(d.Message, p) {
			t.Errorf("message %q lacks %q", d.Message, p)
		}
	}
}

// policyWith is the default policy with modes set; Doc-First is off unless asked, so tests
// of the other gates see only their own gate.
func policyWith(mode, recovery, docFirst Mode) Policy {
	p := DefaultPolicy()
	p.Mode, p.RecoveryMode, p.DocFirstMode = mode, recovery, docFirst
	return p
}
