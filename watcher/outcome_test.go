package watcher

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/outcome"
)

func bankBytes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(filepath.Join(root, "memory-bank"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, _ := os.Lstat(p)
		v := fi.Mode().String()
		if fi.Mode()&fs.ModeSymlink != 0 {
			s, _ := os.Readlink(p)
			v += " -> " + s
		} else if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[p] = v
		return nil
	})
	return out
}

// serveLines is a resident Service behind Serve on pipes, as OpenCode's plugin drives it.
type serveLines struct {
	in  *io.PipeWriter
	out *bufio.Scanner
	n   int
}

func startRealServe(t *testing.T, root string) *serveLines {
	t.Helper()
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		Serve(context.Background(), NewService(r, cfg, ServiceOptions{Resident: true}), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return &serveLines{in: inW, out: bufio.NewScanner(outR)}
}

func (s *serveLines) event(t *testing.T, ev gating.Event) Response {
	t.Helper()
	s.n++
	b, _ := json.Marshal(Request{ID: json.RawMessage(fmt.Sprint(s.n)), Op: "event", Event: &ev})
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	if !s.out.Scan() {
		t.Fatal("no response")
	}
	var r Response
	if err := json.Unmarshal(s.out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestServeOutcomeUndoesScriptAttacks(t *testing.T) {
	attacks := []struct{ name, script, bytes string }{
		{"non-md file", "printf 'x=1' > memory-bank/run.sh", "x=1"},
		{"user block", "sed -i 's/^mine$/theirs/' memory-bank/MEMORY.md", "theirs"},
		{"delete entry", "rm memory-bank/MEMORY.md", ""},
		{"rename", "mv memory-bank/details/patterns.md memory-bank/p.md", "# P"},
		{"chmod", "chmod 755 memory-bank/details/patterns.md", ""},
		{"hard link", "ln memory-bank/details/patterns.md ../hl", ""},
		{"symlink", "ln -s /etc/passwd memory-bank/details/pw.md", "/etc/passwd"},
		{"secret", "printf 'ghp_%s\\n' 8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo >> memory-bank/details/patterns.md", "ghp_"},
		{"new dirs", "mkdir -p memory-bank/n/m && printf z > memory-bank/n/m/z.md", "z"},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			root := testgit.New(t)
			testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
			testgit.Write(t, root, "memory-bank/details/patterns.md", "# P\n")
			testgit.Write(t, root, "tools/step.sh", a.script+"\n")
			s := startRealServe(t, root)
			s.event(t, gating.Event{Kind: gating.EvMessage, Host: "opencode", Session: "ses_1", Message: "m1"})
			want := bankBytes(t, root)
			ev := gating.Event{Kind: gating.EvToolBefore, Host: "opencode", Session: "ses_1", Tool: "bash",
				Args: map[string]any{"command": "cat tools/step.sh | bash"}, Call: "call_1", Cwd: root}
			if r := s.event(t, ev); r.Decision == nil || r.Decision.Verdict == gating.Block {
				t.Fatalf("pre refused the script call: %+v", r)
			}
			cmd := exec.Command("bash", "tools/step.sh")
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			ev.Kind = gating.EvToolAfter
			r := s.event(t, ev)
			if r.Decision == nil || r.Decision.Verdict != gating.Block || r.Decision.Gate != gating.GateOutcome {
				t.Fatalf("tool.after = %+v, want an outcome block", r.Decision)
			}
			if !strings.Contains(r.Decision.Message, "write or edit") {
				t.Errorf("message names no tool to use:\n%s", r.Decision.Message)
			}
			got := bankBytes(t, root)
			for p, w := range want {
				if got[p] != w {
					t.Errorf("%s = %q, want %q", p, got[p], w)
				}
			}
			for p := range got {
				if _, ok := want[p]; !ok {
					t.Errorf("%s left over", p)
				}
			}
			if a.bytes != "" {
				rp, _ := repo.Find(root)
				qs, _ := outcome.ListQuarantine(rp)
				found := false
				for _, q := range qs {
					for _, e := range q.Entries {
						b, _ := outcome.ReadQuarantined(rp, q, e)
						found = found || strings.Contains(string(b), a.bytes)
					}
				}
				if !found {
					t.Errorf("quarantine lacks %q", a.bytes)
				}
			}
			// the decision log has the event
			b, _ := os.ReadFile(filepath.Join(root, ".git/mbguard/decisions.jsonl"))
			if !strings.Contains(string(b), `"gate":"outcome"`) {
				t.Errorf("decision log has no outcome entry:\n%s", b)
			}
		})
	}
}

func TestServeOutcomeLeavesReadsAlone(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	s := startRealServe(t, root)
	// a read tool is never recorded, so its post check costs nothing and undoes nothing
	ev := gating.Event{Kind: gating.EvToolBefore, Host: "opencode", Session: "s", Tool: "read", Args: map[string]any{"filePath": "memory-bank/MEMORY.md"}, Cwd: root}
	s.event(t, ev)
	if _, err := os.Stat(filepath.Join(root, ".git/mbguard/inflight.log")); err == nil {
		t.Error("a read was recorded as in flight")
	}
}

// With gating.shell_markdown_writes the shell may write the .md files its command names; the
// outcome check keeps those and still undoes anything else the command did.
func TestServeOutcomeShellMarkdownWrites(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Write(t, root, ".mbguard.yaml", "gating:\n  shell_markdown_writes: true\n")
	s := startRealServe(t, root)
	cmdline := "printf '# Notes\\n' > memory-bank/notes.md; sh tools/x.sh"
	ev := gating.Event{Kind: gating.EvToolBefore, Host: "opencode", Session: "s", Tool: "bash", Args: map[string]any{"command": cmdline}, Call: "c1", Cwd: root}
	if r := s.event(t, ev); r.Decision.Verdict == gating.Block {
		t.Fatalf("the gate refused a .md shell write it is configured to allow: %s", r.Decision.Message)
	}
	// the script appears only after the pre check (made by a parallel call, say): the pre
	// check reads the scripts a command runs, so one it could read would be refused there
	testgit.Write(t, root, "tools/x.sh", "printf x > memory-bank/x.bin\n")
	cmd := exec.Command("bash", "-c", cmdline)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	ev.Kind = gating.EvToolAfter
	s.event(t, ev)
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/notes.md")); string(b) != "# Notes\n" {
		t.Errorf("the allowed shell .md write was undone: %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank/x.bin")); err == nil {
		t.Error("memory-bank/x.bin survived")
	}
}

// In serve, the fsnotify watcher's events decide whether a pre check walks: a person's edit
// between two calls must still be seen (and kept) by the next pre check.
func TestServeOutcomeWatcherKeepsHumanEdits(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\n")
	r, _ := repo.Find(root)
	cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	svc := NewService(r, cfg, ServiceOptions{Resident: true})
	_, stop, err := svc.WatchBank(context.Background(), WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx := context.Background()
	call := func(id string) *gating.Decision {
		ev := gating.Event{Kind: gating.EvToolBefore, Host: "opencode", Session: "s", Tool: "bash", Args: map[string]any{"command": "go vet ./..."}, Call: id, Cwd: root}
		svc.Handle(ctx, Request{Op: "event", Event: &ev})
		ev.Kind = gating.EvToolAfter
		return svc.Handle(ctx, Request{Op: "event", Event: &ev}).Decision
	}
	call("c1")
	before := svc.bankGen.Load()
	os.WriteFile(filepath.Join(root, "memory-bank/details/progress.md"), []byte("# Progress\nhuman\n"), 0o644)
	for i := 0; i < 200 && svc.bankGen.Load() == before; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if svc.bankGen.Load() == before {
		t.Fatal("the watcher never reported the edit")
	}
	if d := call("c2"); d.Verdict == gating.Block {
		t.Fatalf("a person's edit was undone: %s", d.Message)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/details/progress.md")); string(b) != "# Progress\nhuman\n" {
		t.Errorf("progress.md = %q", b)
	}
}

// A script that also deletes mbguard's own records (the manifest and the in-flight log) is
// still undone: the post check runs for every call that may write, and the known-good state
// is rebuilt from the tree under refs/mbguard/known-good.
func TestServeOutcomeSurvivesLostRecords(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Write(t, root, "tools/x.sh", "printf x > memory-bank/x.bin\nsed -i 's/mine/theirs/' memory-bank/MEMORY.md\nrm -f .git/mbguard/known-good.idx .git/mbguard/known-good.json .git/mbguard/inflight.log\n")
	s := startRealServe(t, root)
	ev := gating.Event{Kind: gating.EvToolBefore, Host: "opencode", Session: "s", Tool: "bash", Args: map[string]any{"command": "cat tools/x.sh | sh"}, Call: "c1", Cwd: root}
	s.event(t, ev)
	cmd := exec.Command("sh", "tools/x.sh")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	ev.Kind = gating.EvToolAfter
	if r := s.event(t, ev); r.Decision.Verdict != gating.Block {
		t.Fatalf("tool.after = %+v, want the outcome block", r.Decision)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/MEMORY.md")); string(b) != goodMemory {
		t.Errorf("MEMORY.md = %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank/x.bin")); err == nil {
		t.Error("x.bin survived")
	}
}

// In serve the outcome check reads its own inotify events: an edit a person saves just
// before a call starts is seen by that call's pre check (and kept), with no wait for the
// file watcher's goroutine; a write during the call is still undone.
func TestServeOutcomeTrackerSeesEditsAtOnce(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", goodMemory)
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\n")
	r, _ := repo.Find(root)
	cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	svc := NewService(r, cfg, ServiceOptions{Resident: true})
	_, stop, err := svc.WatchBank(context.Background(), WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !svc.guard().Tracking() {
		t.Fatal("serve's outcome check does not track memory-bank/ (inotify)")
	}
	ctx := context.Background()
	call := func(id string, during func()) *gating.Decision {
		ev := gating.Event{Kind: gating.EvToolBefore, Host: "opencode", Session: "s", Tool: "bash", Args: map[string]any{"command": "go vet ./..."}, Call: id, Cwd: root}
		svc.Handle(ctx, Request{Op: "event", Event: &ev})
		if during != nil {
			during()
		}
		ev.Kind = gating.EvToolAfter
		return svc.Handle(ctx, Request{Op: "event", Event: &ev}).Decision
	}
	call("c1", nil)
	for i := range 5 {
		edit := fmt.Sprintf("# Progress\nhuman %d\n", i)
		os.WriteFile(filepath.Join(root, "memory-bank/details/progress.md"), []byte(edit), 0o644)
		if d := call(fmt.Sprint("c", i+2), nil); d.Verdict == gating.Block {
			t.Fatalf("a person's edit was undone: %s", d.Message)
		}
		if b, _ := os.ReadFile(filepath.Join(root, "memory-bank/details/progress.md")); string(b) != edit {
			t.Fatalf("progress.md = %q, want %q", b, edit)
		}
	}
	d := call("evil", func() {
		os.WriteFile(filepath.Join(root, "memory-bank/details/progress.md"), []byte("# Progress\nagent\n"), 0o644)
	})
	if d.Verdict != gating.Block {
		t.Fatalf("a write during the call was kept: %+v", d)
	}
	stop()
	if svc.guard().Tracking() {
		t.Error("stop left the tracker running")
	}
}
