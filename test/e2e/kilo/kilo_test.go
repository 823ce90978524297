package kilo

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

// version is the Kilo Code CLI the tests drive: the platform package holds the whole CLI
// (@kilocode/cli 7.8.1 names a platform package the registry does not serve).
const version = "7.7.9"

// kiloBinary finds the kilo that npm installed under $MBGUARD_HOSTS_DIR; missing, it fails
// under CI and skips elsewhere.
func kiloBinary(t *testing.T) string {
	t.Helper()
	return testhost.HostBinary(t, "Kilo Code (@kilocode/cli-linux-x64@"+version+")",
		"@kilocode/cli-linux-x64/bin/kilo", ".bin/kilo")
}

// world is one project with Kilo Code configured against the fake model: a provider in the
// user's kilo.json ($XDG_CONFIG_HOME/kilo), every network feature off.
type world struct {
	*e2eproject.Project
	kilo  string
	model *fakemodel.Server
}

func newWorld(t *testing.T) *world {
	t.Helper()
	testhost.Short(t, "real Kilo Code runs")
	kilo := kiloBinary(t) // before anything is built
	w := &world{Project: e2eproject.New(t), kilo: kilo}
	w.model = fakemodel.Start(t, fakemodel.Chat)
	w.configure(t, 200000)
	xdg := func(n string) string { return filepath.Join(w.Home, n) }
	w.Env = append(w.Env, "XDG_CONFIG_HOME="+xdg(".config"), "XDG_DATA_HOME="+xdg(".local/share"),
		"XDG_CACHE_HOME="+xdg(".cache"), "XDG_STATE_HOME="+xdg(".local/state"))
	// Kilo npm-installs @kilocode/plugin into every configuration folder it loads plugins from
	for _, dir := range []string{filepath.Join(xdg(".config"), "kilo"), w.Abs(".kilo")} {
		e2eproject.FakePluginPackage(t, dir, "@kilocode/plugin", version)
	}
	return w
}

// configure writes the user's kilo.json: the fake model as an OpenAI-compatible provider whose
// context window is context tokens.
func (w *world) configure(t *testing.T, context int) {
	t.Helper()
	cfg := map[string]any{
		"model": "fake/scripted", "small_model": "fake/scripted",
		"autoupdate": false, "share": "disabled", "enabled_providers": []string{"fake"}, "snapshot": false,
		"permission": map[string]any{"edit": "allow", "bash": "allow", "webfetch": "deny", "external_directory": "allow"},
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": w.model.URL + "/v1", "apiKey": "test"},
			"models": map[string]any{"scripted": map[string]any{"name": "scripted", "tool_call": true,
				"limit": map[string]any{"context": context, "output": 4096}}},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	dir := filepath.Join(w.Home, ".config", "kilo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kilo.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// offline are Kilo's switches for what it would fetch or send on its own.
var offline = []string{"KILO_TELEMETRY_LEVEL=off", "KILO_DISABLE_MODELS_FETCH=1", "KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_LSP_DOWNLOAD=1",
	"KILO_DISABLE_DEFAULT_PLUGINS=1", "KILO_DISABLE_SHARE=1", "KILO_DISABLE_SESSION_INGEST=1",
	"KILO_DISABLE_CODEBASE_INDEXING=1", "KILO_DISABLE_PRESENCE=1", "KILO_DISABLE_CLAUDE_CODE=1",
	"KILO_DISABLE_EXTERNAL_SKILLS=1", "KILO_DISABLE_CHANNEL_DB=1", "KILO_NO_DAEMON=1", "KILO_EXPERIMENTAL_DISABLE_FILEWATCHER=true"}

// run drives `kilo run --auto` headless on prompt, env appended.
func (w *world) run(t *testing.T, prompt string, env ...string) string {
	t.Helper()
	defer func() { t.Logf("fake model requests:\n%s", w.model.Log()) }()
	// a bound for a hung run, not a timing: Kilo's start alone costs ~20 s of CPU
	return w.Run(t, 10*time.Minute, append(append([]string{}, offline...), env...), w.kilo,
		"run", "--auto", "--print-logs", "--log-level", "WARN", prompt)
}

// install runs the real `mbguard install --agent kilo` and checks the plugin is where Kilo
// loads it from.
func (w *world) install(t *testing.T) {
	t.Helper()
	out := w.Install(t, "kilo")
	if !strings.Contains(w.File(t, ".kilo/plugin/mbguard.js"), `const HOST = "kilo"`) {
		t.Fatalf("install wrote no plugin for Kilo:\n%s", out)
	}
}

func read(rel string) fakemodel.Step { return fakemodel.Call("read", map[string]any{"filePath": rel}) }

func write(rel, content string) fakemodel.Step {
	return fakemodel.Call("write", map[string]any{"filePath": rel, "content": content})
}

func shell(cmd string) fakemodel.Step {
	return fakemodel.Call("bash", map[string]any{"command": cmd, "description": "scripted"})
}

// kernelShape is a shell write into the bank whose path is computed at run time: the gate
// before the call cannot see it; with the default kernel.mode (on) the plugin runs the call
// under the jail and the write fails in the kernel, before anything needs undoing.
var kernelShape = e2eproject.Shape{Name: "run-time path into the bank (kernel line)",
	Says: "Read-only file system", Absent: "memory-bank/late.json",
	Step: shell(`d=$(printf memory-)bank; echo x > "$d/late.json"; echo status=$?`)}

// TestKiloInjectsMemoryAndGuardsTheBank: MEMORY.md reaches the model's system prompt once, its
// secret redacted; a non-.md write into the bank and shell writes are refused with the reason
// in the tool result the model reads, nothing on disk; a learnings .md goes through; with the
// default kernel line, a shell write the gate cannot see fails in the kernel. The same turn
// then runs e2eproject.SecretRead's calls: the plugin's tool.execute.after replaces a bank
// secret in what a read, cat, grep and base64 show before Kilo hands it to the model. (One turn
// for both: each Kilo start costs ~10 s of CPU, and the package must stay under 30 s.)
func TestKiloInjectsMemoryAndGuardsTheBank(t *testing.T) {
	w := newWorld(t)
	shapes := []e2eproject.Shape{
		{Name: "write of memory-bank/x.json", Refused: true, Says: "memory-bank/x.json", Absent: "memory-bank/x.json",
			Step: write("memory-bank/x.json", "{\"a\": 1}\n")},
		{Name: "write of a learnings .md (allowed)", Present: "memory-bank/details/learnings/retries.md",
			Step: write("memory-bank/details/learnings/retries.md", "# Retries\n\n- go through the queue\n")},
	}
	shapes = append(shapes, e2eproject.ShellShapes(shell)...)
	shapes = append(shapes, kernelShape)
	w.install(t)
	secret := w.PlantSecret(t)
	reads := e2eproject.PrepareSecretRead(t, session{w: w}, len(shapes))
	kept := w.Snapshot(t, shapes)
	w.model.Script(append(e2eproject.Steps(shapes), reads.Steps...)...)
	out := w.run(t, "tidy the memory bank")
	e2eproject.CheckMemoryInjected(t, w.model, out, secret)
	w.CheckShapes(t, w.model, shapes, kept, out)
	reads.Check(t, out)
}

// TestKiloRecoveryAfterCompaction: a turn reports more prompt tokens than the model's context
// holds, so Kilo compacts; the plugin's compaction hook arms recovery and hands the anchor
// block to the summary request; the next high-risk write is refused naming the anchors.
func TestKiloRecoveryAfterCompaction(t *testing.T) {
	w := newWorld(t)
	w.configure(t, 20000)
	big := read("src/app.go")
	big.Tokens = 150000
	w.model.Script(big, write("src/auth/token.go", "package auth // first\n"))
	w.install(t)
	out := w.run(t, "add a token module")

	var anchors bool
	for _, r := range w.model.Requests() {
		anchors = anchors || strings.Contains(r.Text(), e2eproject.AnchorLine)
	}
	if !anchors {
		t.Fatalf("no request to the model carried the anchor block: Kilo did not compact, or the plugin's compaction hook did not run\n%s\nrequests:\n%s", out, w.model.Log())
	}
	var told bool
	for _, r := range w.model.Requests() {
		for _, res := range r.ToolResults() {
			told = told || e2eproject.Contains(res, "[mbguard recovery gate] blocked", "memory-bank/MEMORY.md")
		}
	}
	if !told {
		t.Errorf("the write after the compaction did not get the recovery gate's refusal naming the anchors\n%s", out)
	}
	if w.Exists("src/auth/token.go") {
		t.Error("src/auth/token.go was written while recovery was armed")
	}
	if log := w.DecisionLog(); !strings.Contains(log, `"recovery":"armed"`) {
		t.Errorf("recovery was never armed in the decision log:\n%s", log)
	}
}
