package auggie

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

func TestMain(m *testing.M) { e2eproject.Main(m) }

// auggieEntry finds Auggie's bundled entry point; missing, it fails under CI and skips elsewhere.
func auggieEntry(t *testing.T) string {
	t.Helper()
	return testhost.HostBinary(t, "Augment Auggie (@augmentcode/auggie@0.36.0)", "@augmentcode/auggie/augment.mjs")
}

type world struct {
	*e2eproject.Project
	node  string
	entry string
	model *fakemodel.Server
}

// newWorld makes the project and the fake of Augment's backend, whose get-models turns hooks
// on (Auggie loads none otherwise).
func newWorld(t *testing.T) *world {
	t.Helper()
	testhost.Short(t, "real Auggie runs")
	entry := auggieEntry(t) // before the project: a missing host ends the test without a build
	w := &world{Project: e2eproject.New(t), node: testhost.Tool(t, "node", "install Node.js 22"), entry: entry}
	// the host's own variables (a session, a token) never come from the machine
	env := w.Env[:0]
	for _, kv := range w.Env {
		if !strings.HasPrefix(kv, "AUGMENT_") {
			env = append(env, kv)
		}
	}
	w.Env = env
	w.model = fakemodel.Start(t, fakemodel.Augment)
	return w
}

// run is one `auggie --print` (one user message) in the project, logged in with a made-up
// session whose tenant is the fake: Auggie then talks to nothing else.
func (w *world) run(t *testing.T, prompt string, env ...string) string {
	t.Helper()
	sess, err := json.Marshal(map[string]any{"accessToken": "fake", "tenantURL": w.model.URL + "/", "scopes": []string{"email"}})
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"AUGMENT_SESSION_AUTH=" + string(sess)}
	out := w.Run(t, 90*time.Second, append(base, env...), w.node, w.entry, "--print", "--dont-save-session", "--instruction", prompt)
	t.Logf("fake model requests:\n%s", w.model.Log())
	return out
}

func (w *world) install(t *testing.T) {
	t.Helper()
	if out := w.Install(t, "auggie"); !strings.Contains(w.File(t, ".augment/settings.json"), "mbguard-hook hook auggie") {
		t.Fatalf("install wrote no hook:\n%s", out)
	}
}

// Auggie's file tools take paths relative to the workspace root.
func saveFile(rel, content string) fakemodel.Step {
	return fakemodel.Call("save-file", map[string]any{"path": rel, "file_content": content})
}

func view(rel string) fakemodel.Step {
	return fakemodel.Call("view", map[string]any{"path": rel, "type": "file"})
}

func launch(cmd string) fakemodel.Step {
	return fakemodel.Call("launch-process", map[string]any{"command": cmd, "wait": true, "max_wait_seconds": 60, "cwd": "."})
}

// TestAuggieGuardsTheBankAndBringsTheMemory: the rule file install writes reaches the model in
// the first request (Auggie drops what a session-start hook prints), and MEMORY.md — redacted:
// the token planted in it reaches no request — with the first result of a call that ran (the
// first PostToolUse); a non-.md save-file
// into the bank and a shell write are refused with the reason in the tool result the model
// reads, nothing on disk; a learnings .md goes through.
func TestAuggieGuardsTheBankAndBringsTheMemory(t *testing.T) {
	w := newWorld(t)
	shapes := []e2eproject.Shape{
		{Name: "save-file of memory-bank/x.json", Refused: true, Says: "memory-bank/x.json", Absent: "memory-bank/x.json",
			Step: saveFile("memory-bank/x.json", "{\"a\": 1}\n")},
		{Name: "save-file of a learnings .md (allowed)", Present: "memory-bank/details/learnings/retries.md",
			Step: saveFile("memory-bank/details/learnings/retries.md", "# Retries\n\n- go through the queue\n")},
	}
	shapes = append(shapes, e2eproject.ShellShapes(launch)...)
	w.model.Script(e2eproject.Steps(shapes)...)
	w.install(t)
	secret := w.PlantSecret(t)
	kept := w.Snapshot(t, shapes)
	out := w.run(t, "tidy the memory bank")
	for i, r := range w.model.Requests() {
		if strings.Contains(r.Text(), secret) {
			t.Errorf("request #%d (%s) carries the secret planted in MEMORY.md", i, r.Kind)
		}
	}
	agent := w.model.Agent()
	if len(agent) == 0 {
		t.Fatalf("Auggie sent no agent request\n%s", out)
	}
	if first := agent[0].Text(); !strings.Contains(first, "read memory-bank/MEMORY.md") {
		t.Errorf("the rule file did not reach the model in the first request")
	}
	// step 0 is refused before it runs, and a refused call gets no PostToolUse: step 1 is
	// the first whose result carries what mbguard kept from session start
	if r, ok := w.model.ResultOf(1); !ok || !e2eproject.Contains(r, e2eproject.Marker, "Memory-bank protocol") {
		t.Errorf("MEMORY.md's Current Focus did not reach the model with the first result of a call that ran: %q\n%s", r, out)
	} else if n := strings.Count(r, e2eproject.Marker); n != 1 {
		t.Errorf("MEMORY.md was given %d times with that result, want once", n)
	}
	w.CheckShapes(t, w.model, shapes, kept, out)
}

// TestAuggieReadGateWarnsByDefault: in the default warn mode a high-risk write goes through,
// and the warning, held back until the call's PostToolUse, reaches the model with its result.
func TestAuggieReadGateWarnsByDefault(t *testing.T) {
	w := newWorld(t)
	w.model.Script(saveFile("src/auth/token.go", "package auth\n"))
	w.install(t)
	out := w.run(t, "add a token module")
	if !w.Exists("src/auth/token.go") {
		t.Errorf("src/auth/token.go was not written in warn mode")
	}
	if r, ok := w.model.ResultOf(0); !ok || !e2eproject.Contains(r, "[mbguard read gate] warning", "memory-bank/details/patterns.md") {
		t.Errorf("the read gate's warning did not reach the model with the call's result: %q\n%s", r, out)
	}
}
