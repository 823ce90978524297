package droid

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

// droidBinary finds Droid's static binary; missing, it fails under CI and skips elsewhere.
func droidBinary(t *testing.T) string {
	t.Helper()
	return testhost.HostBinary(t, "Factory Droid (@factory/cli-linux-x64@0.225.2)", "@factory/cli-linux-x64/bin/droid")
}

type world struct {
	*e2eproject.Project
	bin   string
	model *fakemodel.Server
}

// newWorld makes the project and the fake model, registered as the custom model "fake" in the
// test's own ~/.factory/settings.json: with a custom model droid exec needs no login and
// talks to nothing else.
func newWorld(t *testing.T) *world {
	t.Helper()
	testhost.Short(t, "real Droid runs")
	bin := droidBinary(t) // before the project: a missing host ends the test without a build
	w := &world{Project: e2eproject.New(t), bin: bin}
	// the host's own variables (an API key, a Factory home) never come from the machine
	env := w.Env[:0]
	for _, kv := range w.Env {
		if !strings.HasPrefix(kv, "FACTORY_") && !strings.HasPrefix(kv, "DROID") {
			env = append(env, kv)
		}
	}
	w.Env = env
	w.model = fakemodel.Start(t, fakemodel.Chat)
	settings, err := json.Marshal(map[string]any{"customModels": []any{map[string]any{
		"model": "fake", "displayName": "Fake", "baseUrl": w.model.URL + "/v1", "apiKey": "sk-fake",
		"provider": "generic-chat-completion-api", "maxOutputTokens": 1000,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.Home, ".factory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Home, ".factory", "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// run is one `droid exec` (one user message); --auto high lets it write and run commands.
// Airgap mode keeps it off Factory's servers: without it each run spends about 6 s retrying
// api.factory.ai and telemetry.factory.ai, which no machine here reaches.
func (w *world) run(t *testing.T, prompt string, env ...string) string {
	t.Helper()
	base := []string{"FACTORY_AIRGAP_ENABLED=true", "FACTORY_DROID_AUTO_UPDATE_ENABLED=false"}
	out := w.Run(t, 90*time.Second, append(base, env...), w.bin, "exec", "--auto", "high", "-m", "custom:fake", prompt)
	t.Logf("fake model requests:\n%s", w.model.Log())
	return out
}

func (w *world) install(t *testing.T) {
	t.Helper()
	if out := w.Install(t, "droid"); !strings.Contains(w.File(t, ".factory/settings.json"), "mbguard-hook hook droid") {
		t.Fatalf("install wrote no hook:\n%s", out)
	}
}

// Droid's file tools, as droid exec 0.225.2 offers them, take absolute paths.
func create(path, content string) fakemodel.Step {
	return fakemodel.Call("Create", map[string]any{"file_path": path, "content": content})
}

func read(path string) fakemodel.Step {
	return fakemodel.Call("Read", map[string]any{"file_path": path})
}

func execute(cmd string) fakemodel.Step {
	return fakemodel.Call("Execute", map[string]any{"command": cmd, "summary": "scripted", "riskLevel": "low", "riskLevelReason": "scripted"})
}

// TestDroidInjectsMemoryAndGuardsTheBank: MEMORY.md reaches the model at session start
// (redacted: the token planted in it reaches no request); a non-.md Create into the bank and a
// shell write are refused with the reason in the tool result the model reads, nothing on
// disk; a learnings .md goes through.
func TestDroidInjectsMemoryAndGuardsTheBank(t *testing.T) {
	w := newWorld(t)
	shapes := []e2eproject.Shape{
		{Name: "Create of memory-bank/x.json", Refused: true, Says: "memory-bank/x.json", Absent: "memory-bank/x.json",
			Step: create(w.Abs("memory-bank/x.json"), "{\"a\": 1}\n")},
		{Name: "Create of a learnings .md (allowed)", Present: "memory-bank/details/learnings/retries.md",
			Step: create(w.Abs("memory-bank/details/learnings/retries.md"), "# Retries\n\n- go through the queue\n")},
	}
	shapes = append(shapes, e2eproject.ShellShapes(execute)...)
	w.model.Script(e2eproject.Steps(shapes)...)
	w.install(t)
	secret := w.PlantSecret(t)
	kept := w.Snapshot(t, shapes)
	out := w.run(t, "tidy the memory bank")
	e2eproject.CheckMemoryInjected(t, w.model, out, secret)
	w.CheckShapes(t, w.model, shapes, kept, out)
}

// TestDroidReadGateWarnsByDefault: in the default warn mode a high-risk write goes through, and
// the warning, held back until the call's PostToolUse, reaches the model with its next turn.
func TestDroidReadGateWarnsByDefault(t *testing.T) {
	w := newWorld(t)
	w.model.Script(create(w.Abs("src/auth/token.go"), "package auth\n"))
	w.install(t)
	out := w.run(t, "add a token module")
	if !w.Exists("src/auth/token.go") {
		t.Errorf("src/auth/token.go was not written in warn mode")
	}
	if r, ok := w.model.After(0); !ok || !e2eproject.Contains(r.Text(), "[mbguard read gate] warning", "memory-bank/details/patterns.md") {
		t.Errorf("the read gate's warning did not reach the model in the next turn\n%s", out)
	}
}
