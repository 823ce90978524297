package watcher

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// TestAllowedWritesStandOnFoldingVolume (issue 31, point 1): on a file system that folds case
// the canonical paths of an allowed call are in lower case (memory-bank/memory.md) while the
// listing keeps the names' own case (MEMORY.md). An allowed Edit of MEMORY.md and a Write of a
// new capitalised file stand after the call; a shell write beside them is still undone.
//
// Linux here has no folding file system (ext4 casefold needs a kernel with CONFIG_UNICODE), so
// the volume's answer is the test double: the probe says "folds", the disk keeps case. Under
// Wine and on Windows and macOS the same test runs with the real probe on a folding disk.
func TestAllowedWritesStandOnFoldingVolume(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Write(t, root, "memory-bank/details/requirements/index.md", "# Requirements\n")
	testgit.Commit(t, root, "bank")
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	s := newTestService(t, r, false, nil)
	if !foldsCase(r.Root) {
		s.fold = func() bool { return true }
	}
	root = r.Root
	sess := "ses_fold"
	s.handleEvent(t, gating.Event{Kind: gating.EvMessage, Host: "claude", Session: sess, Message: "m1"})

	entry := filepath.Join(root, "memory-bank", "MEMORY.md")
	edited := strings.Replace(goodMemory, "focus", "focus: signup", 1)
	req := filepath.Join(root, "memory-bank", "details", "requirements", "REQ-002-signup.md")
	calls := []struct {
		id, tool string
		args     map[string]any
		do       func() error
	}{
		{"c1", "Edit", map[string]any{"file_path": entry, "old_string": "focus", "new_string": "focus: signup"},
			func() error { return os.WriteFile(entry, []byte(edited), 0o644) }},
		{"c2", "Write", map[string]any{"file_path": req, "content": "# REQ-002 Signup\n"},
			func() error { return os.WriteFile(req, []byte("# REQ-002 Signup\n"), 0o644) }},
	}
	for _, c := range calls {
		ev := gating.Event{Kind: gating.EvToolBefore, Host: "claude", Session: sess, Tool: c.tool, Args: c.args, Call: c.id, Cwd: root}
		if d := s.handleEvent(t, ev); d.Verdict == gating.Block {
			t.Fatalf("%s refused before it ran: %s", c.tool, d.Message)
		}
		if err := c.do(); err != nil {
			t.Fatal(err)
		}
		ev.Kind = gating.EvToolAfter
		if d := s.handleEvent(t, ev); d.Verdict == gating.Block {
			t.Fatalf("%s undone after it ran: %s", c.tool, d.Message)
		}
	}
	if b, _ := os.ReadFile(entry); string(b) != edited {
		t.Errorf("MEMORY.md after the allowed Edit:\n%s", b)
	}
	if b, err := os.ReadFile(req); err != nil || string(b) != "# REQ-002 Signup\n" {
		t.Errorf("REQ-002-signup.md after the allowed Write: %q, %v", b, err)
	}
}

// handleEvent sends one event to s and returns its decision (an empty one when none came).
func (s *Service) handleEvent(t *testing.T, ev gating.Event) gating.Decision {
	t.Helper()
	resp := s.Handle(context.Background(), Request{ID: json.RawMessage(`1`), Op: "event", Event: &ev})
	if resp.Error != "" {
		t.Fatalf("%s %s: %s", ev.Kind, ev.Tool, resp.Error)
	}
	if resp.Decision == nil {
		return gating.Decision{}
	}
	d := *resp.Decision
	if d.Verdict != gating.Block {
		if n := resp.Notice; strings.Contains(n, "undone") || strings.Contains(n, "not written through") {
			d.Verdict, d.Message = gating.Block, n
		}
	}
	return d
}
