package watcher

import (
	"os"
	"strings"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// A finding whose condition is gone (the stray file deleted, the marker fixed) is resolved:
// the findings log no longer lists it, and a live Service forgets it.
func TestLoopFindingsResolve(t *testing.T) {
	tests := []struct {
		name string
		rel  string
		bad  string
		fix  func(h *harness, rel string) fsnotify.Event
	}{
		{"stray file deleted", "memory-bank/notes.json", "{}", func(h *harness, rel string) fsnotify.Event {
			os.Remove(h.path(rel))
			return fsnotify.Event{Name: h.path(rel), Op: fsnotify.Remove}
		}},
		{"marker fixed", "memory-bank/details/patterns.md", "<!-- USER_BLOCK_START -->\nx\n", func(h *harness, rel string) fsnotify.Event {
			return h.write(rel, "<!-- USER_BLOCK_START -->\nx\n<!-- USER_BLOCK_END -->\n")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory, "memory-bank/details/patterns.md": "# p\n"}, nil)
			h.send(h.write(tc.rel, tc.bad))
			h.advance(DefaultDebounce)
			if fs, _, _ := ReadFindings(FindingsPath(h.r), 0); len(fs) != 1 {
				t.Fatalf("findings before the fix = %v, want one", fs)
			}
			h.send(tc.fix(h, tc.rel))
			h.advance(DefaultDebounce)
			if fs, _, err := ReadFindings(FindingsPath(h.r), 0); err != nil || len(fs) != 0 {
				t.Fatalf("findings after the fix = %v, %v; want none", fs, err)
			}
			svc := newTestService(t, h.r, true, nil)
			for _, f := range h.sink.findings {
				svc.AddFinding(f)
			}
			if st, _ := svc.Status(); len(st.Findings) != 0 {
				t.Fatalf("service still lists %v", st.Findings)
			}
		})
	}
}

// Without a watcher to see the deletion, status drops a finding whose file is gone.
func TestCurrentFindingsDropsGonePaths(t *testing.T) {
	r := serviceRepo(t)
	os.WriteFile(r.Root+"/memory-bank/stray.json", []byte("{}"), 0o644)
	for _, f := range []Finding{
		{Path: "memory-bank/stray.json", Rule: "non-md", Message: "m"},
		{Path: "memory-bank/gone.json", Rule: "non-md", Message: "m"},
		{Path: "memory-bank/MEMORY.md", Rule: "entry-missing", Message: "m"},
	} {
		if err := AppendFinding(FindingsPath(r), f); err != nil {
			t.Fatal(err)
		}
	}
	fs, _, err := CurrentFindings(r, 20)
	if err != nil || len(fs) != 1 || fs[0].Path != "memory-bank/stray.json" {
		t.Fatalf("current findings = %v, %v; want only the stray file that is still there", fs, err)
	}
}

// Resolving a finding a session was already told about keeps the session's count right: it
// is told about later findings, not the earlier ones again.
func TestServiceResolveKeepsToldCounts(t *testing.T) {
	s := newTestService(t, serviceRepo(t), true, nil)
	a := Finding{Path: "memory-bank/a.json", Rule: "non-md", Message: "a"}
	b := Finding{Path: "memory-bank/b.json", Rule: "non-md", Message: "b"}
	s.AddFinding(a)
	s.AddFinding(b)
	s.mu.Lock()
	s.pendingFindings("s1") // told about a and b
	s.mu.Unlock()
	a.Resolved = true
	s.AddFinding(a)
	c := Finding{Path: "memory-bank/c.json", Rule: "non-md", Message: "c"}
	s.AddFinding(c)
	s.mu.Lock()
	got := s.pendingFindings("s1")
	s.mu.Unlock()
	if want := "memory-bank/c.json: c"; !strings.Contains(got, want) || strings.Contains(got, "b.json") {
		t.Fatalf("pending = %q, want only c", got)
	}
}

// A finding logged by an earlier watcher is resolved by this one when the file is fixed.
func TestLoopResolvesEarlierWatchersFindings(t *testing.T) {
	h := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory, "memory-bank/details/patterns.md": "<!-- USER_BLOCK_START -->\nx\n"}, nil)
	rel := "memory-bank/details/patterns.md"
	first := markerFindings(rel, []byte("<!-- USER_BLOCK_START -->\nx\n"))
	if len(first) != 1 {
		t.Fatalf("fixture: %v", first)
	}
	// what the watcher before this one logged
	if err := AppendFinding(FindingsPath(h.r), first[0]); err != nil {
		t.Fatal(err)
	}
	// this watcher started before the log was written in this test, so start it again
	h.w.files = map[string]*fileState{}
	h.w.remember()
	h.send(h.write(rel, "<!-- USER_BLOCK_START -->\nx\n<!-- USER_BLOCK_END -->\n"))
	h.advance(DefaultDebounce)
	if fs, _, _ := ReadFindings(FindingsPath(h.r), 0); len(fs) != 0 {
		t.Fatalf("findings after the fix = %v, want none", fs)
	}
}

// A secret finding names the fingerprint that silences it, and listing it does.
func TestLoopSecretFingerprint(t *testing.T) {
	body := "# tech\ntoken: ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo\n"
	rel := "memory-bank/details/tech.md"
	h := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory}, nil)
	h.send(h.write(rel, body))
	h.advance(DefaultDebounce)
	fp := rel + ":github-pat:2"
	if len(h.sink.findings) != 1 || !strings.Contains(h.sink.findings[0].Message, "add "+fp+" to .gitleaksignore") {
		t.Fatalf("findings = %+v, want one naming %s", h.sink.findings, fp)
	}
	h2 := newHarness(t, map[string]string{"memory-bank/MEMORY.md": goodMemory, ".gitleaksignore": fp + "\n"}, nil)
	h2.send(h2.write(rel, body))
	h2.advance(DefaultDebounce)
	if len(h2.sink.findings) != 0 {
		t.Fatalf("with %s listed: %+v", fp, h2.sink.findings)
	}
}
