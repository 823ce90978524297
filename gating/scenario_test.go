package gating

import (
	"encoding/json"
	"testing"
)

// TestScenario replays a whole session per host: the seeds' story of an agent that writes
// before reading, is stopped, reads, documents, loses its context to a compaction and is
// stopped again until it re-reads the anchors.
func TestScenario(t *testing.T) {
	for _, host := range []string{"opencode", "claude"} {
		t.Run(host, func(t *testing.T) {
			s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeWarn), newFacts(bankFiles()), host)

			// seed 000, scene 1: a risky write without context is blocked with the one next step
			d := s.write("src/auth/session.ts", "export {}")
			want(t, d, Block, GateRead)
			if host == "claude" {
				wantMsg(t, d, `Read({ file_path: "/repo/memory-bank/details/patterns.md" })`)
			} else {
				wantMsg(t, d, `read({ filePath: "memory-bank/details/patterns.md" })`)
			}
			s.read("memory-bank/details/patterns.md")
			s.read("memory-bank/details/requirements/REQ-1.md")

			// Doc-First: code before documenting warns once
			want(t, s.write("src/auth/session.ts", "export {}"), Warn, GateDocFirst)
			d = s.edit("memory-bank/details/progress.md", "# Progress\n", "# Progress\n- auth session\n")
			want(t, d, Allow, GateNone)
			if d.Advice == "" {
				t.Error("no writing guideline after a bank write")
			}
			want(t, s.write("src/auth/session.ts", "export {}"), Allow, GateNone)
			// the bank guard does not care that context is satisfied
			want(t, s.write("memory-bank/details/cache.json", "{}"), Block, GateBank)

			// seed 003: compaction arms recovery with the tracked anchor first
			d = s.compact()
			if d.Recovery != "armed" || s.st.Recovery.Anchors[0] != "memory-bank/details/requirements/REQ-1.md" {
				t.Fatalf("compaction: %+v", d)
			}
			// the state survives a per-call host's round trip through JSON
			raw, err := json.Marshal(s.st)
			if err != nil {
				t.Fatal(err)
			}
			var st State
			if err := json.Unmarshal(raw, &st); err != nil {
				t.Fatal(err)
			}
			s.st = &st

			d = s.bash("sed -i s/redux/zustand/ src/store.ts src/app.ts")
			want(t, d, Block, GateRecovery)
			wantMsg(t, d, "REQ-1.md", "MEMORY.md", "patterns.md")
			want(t, s.edit("src/app.ts", "1", "2"), Allow, GateNone) // low risk passes

			s.read("memory-bank/details/requirements/REQ-1.md")
			s.read("memory-bank/MEMORY.md")
			if d := s.read("memory-bank/details/patterns.md"); d.Recovery != "cleared" || s.st.Recovery != nil {
				t.Fatalf("not cleared: %+v", d)
			}
			want(t, s.write("package.json", "{}"), Allow, GateNone)

			// the next user message starts over
			s.message()
			want(t, s.write("package.json", "{}"), Block, GateRead)
		})
	}
}
