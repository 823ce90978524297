package outcome

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// A call whose window closed without its post (refused at the permission prompt, or the turn
// stopped) does not make a person's later edit look like the agent's.
func TestClosedWindowClaimsNothingLater(t *testing.T) {
	for _, tc := range []struct {
		name string
		ran  bool
		id   string
	}{
		{"permission denied", false, "x"},
		{"turn stopped", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, g := newBank(t)
			x := Call{ID: "x", Session: "s", Tool: "Bash"}
			if _, err := g.Before(x); err != nil {
				t.Fatal(err)
			}
			rep, err := g.End("s", tc.id, tc.ran)
			if err != nil || rep.Blocked() || len(rep.Settled) != 1 {
				t.Fatalf("closing: %v %+v", err, rep)
			}
			testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\nhuman\n")
			testgit.Write(t, root, "memory-bank/notes.txt", "a person's file\n")
			if rep := call(t, g, "next", ""); rep.Blocked() {
				t.Errorf("the person's edit was undone as the agent's: %+v", rep.Undone)
			}
			if got := readBank(t, root, "memory-bank/details/progress.md"); got != "# Progress\nhuman\n" {
				t.Errorf("progress.md = %q, want the person's", got)
			}
			if in := g.loadInflight(); len(in.Calls) != 0 {
				t.Errorf("calls left in flight: %+v", in.Calls)
			}
		})
	}
}

// On a host that runs one tool call at a time, the session's next pre event closes the window
// of a call whose post never came: what changed in it is judged then, as that call's.
func TestSerialHostNextPreClosesWindow(t *testing.T) {
	for _, serial := range []bool{true, false} {
		root, g := newBank(t)
		g.o.Serial = func(h string) bool { return serial && h == "one" }
		x := Call{ID: "x", Session: "s", Host: "one", Tool: "Bash"}
		g.Before(x)
		testgit.Write(t, root, "memory-bank/x.bin", "agent bytes")
		rep, err := g.Before(Call{ID: "y", Session: "s", Host: "one", Tool: "Bash"})
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(root, "memory-bank/x.bin"))
		if serial && (!rep.Blocked() || len(rep.Settled) != 1 || statErr == nil) {
			t.Errorf("serial host: x's window was not closed by y's pre: %+v", rep)
		}
		if !serial && (rep.Blocked() || len(rep.Settled) != 0) {
			t.Errorf("parallel host: y's pre closed x's window: %+v", rep)
		}
	}
}

// Every undo says which call's window the change fell in and when it opened.
func TestUndoNamesItsEvidence(t *testing.T) {
	root, g := newBank(t)
	rep := call(t, g, "toolu_ev", "printf x > memory-bank/x.bin")
	msg := rep.Message("claude")
	if !rep.Blocked() || !strings.Contains(msg, "Evidence: the changes appeared during Bash call toolu_ev, between its pre check at ") {
		t.Errorf("the reply does not name its evidence:\n%s", msg)
	}
	g.Before(Call{ID: "lost", Session: "s", Tool: "Bash"})
	testgit.Write(t, root, "memory-bank/y.bin", "y")
	rep, _ = g.End("s", "", true)
	if msg := rep.Message("claude"); !strings.Contains(msg, "the window of Bash call lost, open since ") {
		t.Errorf("a closed window's undo does not name it:\n%s", msg)
	}
}
