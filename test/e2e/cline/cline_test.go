package cline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

func TestMain(m *testing.M) { e2eproject.Main(m) }

// clineBinary finds Cline's static binary (the package test/hosts pins); missing, it fails under
// CI and skips elsewhere.
func clineBinary(t *testing.T) string {
	t.Helper()
	return testhost.HostBinary(t, "Cline (@cline/cli-linux-x64@3.0.65)", "@cline/cli-linux-x64/bin/cline")
}

type world struct {
	*e2eproject.Project
	bin   string
	model *fakemodel.Server
}

// newWorld makes the project and the fake model, written as the OpenAI-compatible provider of
// the test's own ~/.cline (what `cline auth -p openai-compatible` writes, which takes seconds):
// Cline then needs no account.
func newWorld(t *testing.T) *world {
	t.Helper()
	testhost.Short(t, "real Cline runs")
	bin := clineBinary(t) // before the project: a missing host ends the test without a build
	w := &world{Project: e2eproject.New(t), bin: bin}
	env := w.Env[:0]
	for _, kv := range w.Env {
		if !strings.HasPrefix(kv, "CLINE_") {
			env = append(env, kv)
		}
	}
	// local: no detached hub daemon left running after the task
	w.Env = append(env, "CLINE_SESSION_BACKEND_MODE=local")
	w.model = fakemodel.Start(t, fakemodel.Chat)
	providers, err := json.Marshal(map[string]any{"version": 1, "lastUsedProvider": "openai-compatible", "modes": map[string]any{},
		"providers": map[string]any{"openai-compatible": map[string]any{
			"settings":  map[string]any{"provider": "openai-compatible", "apiKey": "sk-fake", "model": "fake", "baseUrl": w.model.URL + "/v1"},
			"updatedAt": time.Now().UTC().Format(time.RFC3339), "tokenSource": "manual"}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(w.Home, ".cline", "data", "settings")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "providers.json"), providers, 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// run is one headless task (one user message); Cline approves every tool call itself. The
// prompt has a space: a one-word prompt is taken as a subcommand.
func (w *world) run(t *testing.T, prompt string, env ...string) string {
	t.Helper()
	out := w.Run(t, 3*time.Minute, env, w.bin, "--json", prompt)
	t.Logf("fake model requests:\n%s", w.model.Log())
	return out
}

func (w *world) install(t *testing.T) {
	t.Helper()
	if out := w.Install(t, "cline"); !strings.Contains(w.File(t, ".clinerules/hooks/PreToolUse"), "hook cline PreToolUse") {
		t.Fatalf("install wrote no hook:\n%s", out)
	}
}

// Cline's tools, as cline 3.0.65 offers them to the model: workspace-relative paths.
func editor(path, content string) fakemodel.Step {
	return fakemodel.Call("editor", map[string]any{"path": path, "new_text": content})
}

func readFiles(path string) fakemodel.Step {
	return fakemodel.Call("read_files", map[string]any{"files": []any{map[string]any{"path": path}}})
}

func runCommands(cmd string) fakemodel.Step {
	return fakemodel.Call("run_commands", map[string]any{"commands": []any{cmd}})
}

// TestClineInjectsMemoryAndGuardsTheBank: MEMORY.md reaches the model's first request through
// the rule file install writes into .clinerules/ (redacted: the token planted in it reaches no
// request); a non-.md editor write into the bank and the shell writes are refused — the call's
// input is replaced so it never runs, and the reason reaches the model as hook context —
// nothing on disk; a learnings .md goes through.
func TestClineInjectsMemoryAndGuardsTheBank(t *testing.T) {
	w := newWorld(t)
	shapes := []e2eproject.Shape{
		{Name: "editor of memory-bank/x.json", Refused: true, Says: "memory-bank/x.json", Absent: "memory-bank/x.json",
			Step: editor("memory-bank/x.json", "{\"a\": 1}\n")},
		{Name: "editor of a learnings .md (allowed)", Present: "memory-bank/details/learnings/retries.md",
			Step: editor("memory-bank/details/learnings/retries.md", "# Retries\n\n- go through the queue\n")},
	}
	shapes = append(shapes, e2eproject.ShellShapes(runCommands)...)
	w.model.Script(e2eproject.Steps(shapes)...)
	secret := w.PlantSecret(t)
	w.install(t)
	if st := w.Mbguard(t, "status"); strings.Contains(st, "mbguard-memory-bank.md") {
		t.Errorf("the rule file shows in git status:\n%s", st)
	}
	kept := w.Snapshot(t, shapes)
	out := w.run(t, "tidy the memory bank")
	e2eproject.CheckMemoryInjected(t, w.model, out, secret)
	w.CheckShapes(t, w.model, shapes, kept, out)
}

// driver runs the shared scenarios (e2eproject) on Cline.
type driver struct{}

func (driver) Start(t *testing.T) e2eproject.Session { return session{newWorld(t)} }

type session struct{ w *world }

func (s session) Project() *e2eproject.Project                 { return s.w.Project }
func (s session) Model() *fakemodel.Server                     { return s.w.model }
func (s session) Install(t *testing.T)                         { s.w.install(t) }
func (s session) Turn(t *testing.T, prompt string) string      { return s.w.run(t, prompt) }
func (s session) ReadFile(rel string) fakemodel.Step           { return readFiles(rel) }
func (s session) Shell(cmd string) fakemodel.Step              { return runCommands(cmd) }
func (s session) WriteFile(rel, content string) fakemodel.Step { return editor(rel, content) }
func (s session) Host() string                                 { return "cline" }

// Search is Cline's search_codebase for one query over the whole workspace.
func (s session) Search(pattern string) fakemodel.Step {
	return fakemodel.Call("search_codebase", map[string]any{"queries": []any{pattern}})
}

// TestClineSecretReadNeverReachesModel: Cline's PostToolUse cannot change a tool's output, so
// a read (read_files, cat, search_codebase, grep) that would show a bank secret is refused
// before it runs, the reason carrying the file redacted.
func TestClineSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }

// TestClineEscapeHatch: MBGUARD=0 in the environment cline runs in reaches the hooks.
func TestClineEscapeHatch(t *testing.T) { e2eproject.EscapeHatch(t, driver{}) }

// TestClineUninstall: after --uninstall no mbguard hook runs: the same bank write goes through.
func TestClineUninstall(t *testing.T) { e2eproject.Uninstall(t, driver{}) }

// TestClineReadGateAndUndo: in block mode an editor write under src/auth/ is refused naming
// patterns.md and allowed once read_files read it; then PostToolUse's outcome check puts the
// bank back after a script wrote into it, and the model hears it as hook context.
func TestClineReadGateAndUndo(t *testing.T) { e2eproject.ReadGateAndUndo(t, driver{}) }
