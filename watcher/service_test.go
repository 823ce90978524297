package watcher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/declog"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

func serviceRepo(t *testing.T) repo.Repo {
	t.Helper()
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n## Current Focus\n- focus-line-42\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# P\n")
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newTestService(t *testing.T, r repo.Repo, resident bool, getenv map[string]string) *Service {
	cfg, err := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(k string) string { return getenv[k] }})
	if err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(1_700_000_000_000)
	return NewService(r, cfg, ServiceOptions{Resident: resident, Now: func() time.Time { now = now.Add(time.Second); return now }})
}

func TestServiceRequests(t *testing.T) {
	r := serviceRepo(t)
	s := newTestService(t, r, false, nil)
	id := json.RawMessage(`7`)
	tests := []struct {
		name    string
		req     Request
		wantErr string
	}{
		{"ping", Request{ID: id, Op: "ping"}, ""},
		{"no op", Request{ID: id}, `no "op"`},
		{"unknown op", Request{ID: id, Op: "frob"}, `unknown op "frob"`},
		{"event without event", Request{ID: id, Op: "event"}, `needs an "event"`},
		{"event without session", Request{ID: id, Op: "event", Event: &gating.Event{Kind: gating.EvMessage}}, "no session id"},
		{"unknown kind", Request{ID: id, Op: "event", Event: &gating.Event{Kind: "nope", Session: "s"}}, "unknown event kind"},
		{"context without session", Request{ID: id, Op: "context"}, `needs a "session"`},
		{"open without call", Request{ID: id, Op: "open", Session: "s"}, `needs a "session" and a "call"`},
		{"open", Request{ID: id, Op: "open", Session: "s", Call: "subagent:a1", Host: "claude"}, ""},
		{"close the subagent", Request{ID: id, Op: "close", Session: "s", Call: "subagent:a1"}, ""},
		{"status", Request{ID: id, Op: "status"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.Handle(context.Background(), tc.req)
			if string(resp.ID) != "7" {
				t.Fatalf("id %s not echoed", resp.ID)
			}
			if tc.wantErr == "" && resp.Error != "" || !strings.Contains(resp.Error, tc.wantErr) {
				t.Fatalf("error %q, want %q", resp.Error, tc.wantErr)
			}
		})
	}
}

func TestServiceStateSharedAcrossPerCallServices(t *testing.T) {
	r := serviceRepo(t)
	env := map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}
	ev := func(kind gating.EventKind, tool string, args map[string]any) Request {
		return Request{Op: "event", Event: &gating.Event{Kind: kind, Host: "claude", Session: "s1", Message: map[bool]string{true: "m1"}[kind == gating.EvMessage], Tool: tool, Args: args, Cwd: r.Root}}
	}
	// each call in a fresh Service, as per-call hook processes do
	call := func(req Request) Response { return newTestService(t, r, false, env).Handle(context.Background(), req) }
	call(ev(gating.EvMessage, "", nil))
	// concurrent reads of the same session must all be kept (the flock)
	var wg sync.WaitGroup
	for _, f := range []string{"memory-bank/details/patterns.md", "memory-bank/MEMORY.md"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call(ev(gating.EvToolAfter, "Read", map[string]any{"file_path": filepath.Join(r.Root, f)}))
		}()
	}
	wg.Wait()
	resp := call(ev(gating.EvToolBefore, "Write", map[string]any{"file_path": filepath.Join(r.Root, "go.mod"), "content": "x"}))
	if resp.Decision == nil || resp.Decision.Verdict == gating.Block {
		t.Fatalf("after reading patterns.md in another process: %+v", resp)
	}
	st, _ := newTestService(t, r, false, env).Status()
	if len(st.Sessions) != 1 || !st.Sessions[0].Satisfied {
		t.Fatalf("status %+v", st.Sessions)
	}
}

func TestServiceFindingsToldOnce(t *testing.T) {
	r := serviceRepo(t)
	s := newTestService(t, r, true, nil)
	s.AddFinding(Finding{Path: "memory-bank/x.json", Rule: "non-md", Message: "not Markdown"})
	req := Request{Op: "event", Event: &gating.Event{Kind: gating.EvMessage, Session: "s", Message: "m"}}
	if n := s.Handle(context.Background(), req).Notice; !strings.Contains(n, "memory-bank/x.json") {
		t.Fatalf("first call notice %q", n)
	}
	if n := s.Handle(context.Background(), req).Notice; n != "" {
		t.Fatalf("second call notice %q, want nothing new", n)
	}
	other := Request{Op: "context", Session: "other"}
	if n := s.Handle(context.Background(), other).Notice; !strings.Contains(n, "memory-bank/x.json") {
		t.Fatalf("another session was not told: %q", n)
	}
}

func TestServiceContextCachedUntilInvalidated(t *testing.T) {
	r := serviceRepo(t)
	s := newTestService(t, r, true, nil)
	c1 := s.Handle(context.Background(), Request{Op: "context", Session: "s"})
	if !strings.Contains(c1.Context, "focus-line-42") || c1.Error != "" {
		t.Fatalf("context %+v", c1)
	}
	testgit.Write(t, r.Root, "memory-bank/MEMORY.md", "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n## Current Focus\n- focus-line-43 longer\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
	s.InvalidateContext()
	if c2 := s.Handle(context.Background(), Request{Op: "context", Session: "s"}); !strings.Contains(c2.Context, "focus-line-43") {
		t.Fatalf("stale context after InvalidateContext: %q", c2.Context)
	}
}

func TestServiceConfigProblemNoticed(t *testing.T) {
	r := serviceRepo(t)
	s := newTestService(t, r, false, map[string]string{"MEMORY_BANK_GUARD_MODE": "blok"})
	resp := s.Handle(context.Background(), Request{Op: "event", Event: &gating.Event{Kind: gating.EvToolBefore, Session: "s", Tool: "Write",
		Args: map[string]any{"file_path": filepath.Join(r.Root, "go.mod"), "content": "x"}, Cwd: r.Root}})
	if resp.Decision.Verdict != gating.Block || !strings.Contains(resp.Notice, "mbguard doctor") {
		t.Fatalf("decision %+v notice %q: want block and the doctor hint", resp.Decision, resp.Notice)
	}
	es, _, _ := declog.Read(declog.Path(r.StateDir()), 0)
	if len(es) != 1 || es[0].Verdict != "block" || es[0].Tool != "Write" {
		t.Fatalf("decision log %+v", es)
	}
}

// A session start in a later process takes MEMORY.md's secret scan from the cache under the
// git dir: a finding planted there is what the context reports.
func TestServiceContextScanCachedAcrossProcesses(t *testing.T) {
	r := serviceRepo(t)
	c1 := newTestService(t, r, true, nil).Handle(context.Background(), Request{Op: "context", Session: "s"})
	if c1.Error != "" {
		t.Fatalf("context %+v", c1)
	}
	// MEMORY.md's entry (the rest of the bank is scanned too, for the redaction of what the
	// service says)
	sum := sha256.Sum256([]byte("memory-bank/MEMORY.md"))
	files, _ := filepath.Glob(filepath.Join(r.StateDir(), "scan-"+hex.EncodeToString(sum[:])[:16]+".json"))
	if len(files) != 1 {
		t.Fatalf("scan cache files %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	planted := strings.Replace(string(b), `"findings":null`, `"findings":[{"Rule":"planted-rule","Line":1,"Start":0,"End":1}]`, 1)
	if planted == string(b) {
		t.Fatalf("unexpected cache %s", b)
	}
	if err := os.WriteFile(files[0], []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	c2 := newTestService(t, r, true, nil).Handle(context.Background(), Request{Op: "context", Session: "s"})
	if !strings.Contains(c2.Notice+c2.Context, "planted-rule") {
		t.Fatalf("the second process scanned again: %+v", c2)
	}
}
