package outcome

import (
	"os"
	"strings"
	"testing"
	"time"
)

// What a background check undid waits for its own session's next check, is told once, and
// a damaged or old file is no message at all (never an error).
func TestFinishedMessages(t *testing.T) {
	_, g := newBank(t)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	g.o.Now = func() time.Time { return now }
	rep := Report{Call: Call{ID: "big", Session: "s1", Tool: "Bash"},
		Undone: []Undone{{Path: "memory-bank/cache.json", Change: "created"}}, Quarantine: "q1"}
	g.keepFinished(rep, "claude")
	g.keepFinished(Report{Call: Call{ID: "quiet", Session: "s1"}}, "claude") // nothing to tell
	if got := g.takeFinished("s2"); got != nil {
		t.Fatalf("another session got %q", got)
	}
	got := g.takeFinished("s1")
	if len(got) != 1 || !strings.Contains(got[0], "the check of call big finished in the background") ||
		!strings.Contains(got[0], "memory-bank/cache.json: created") || !strings.Contains(got[0], "quarantine show q1") {
		t.Fatalf("takeFinished(s1) = %q", got)
	}
	if again := g.takeFinished("s1"); again != nil {
		t.Fatalf("told twice: %q", again)
	}
	if _, err := os.Stat(g.finishedPath()); !os.IsNotExist(err) {
		t.Errorf("the emptied file stays: %v", err)
	}

	g.keepFinished(rep, "claude")
	now = now.Add(finishedFor + time.Minute)
	if got := g.takeFinished("s1"); got != nil {
		t.Errorf("a message older than %s was told: %q", finishedFor, got)
	}
	for _, junk := range []string{"{not json", strings.Repeat("x", maxFinishedFile+1), `{"notes":[{"session":"s1"}]}`} {
		if err := os.WriteFile(g.finishedPath(), []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := g.takeFinished("s1"); got != nil {
			t.Errorf("a damaged file told %q", got)
		}
	}
	g.keepFinished(rep, "claude") // a damaged file is replaced, not a reason to lose the message
	if got := g.takeFinished("s1"); len(got) != 1 {
		t.Errorf("after a damaged file: %q", got)
	}
}
