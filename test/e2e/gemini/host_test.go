package gemini

import (
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

// geminiScript finds the Gemini CLI bundle npm installed; missing, it fails under CI and skips
// elsewhere.
func geminiScript(t *testing.T) string {
	t.Helper()
	return testhost.HostBinary(t, "Gemini CLI (@google/gemini-cli@0.61.0)",
		"@google/gemini-cli/bundle/gemini.js", ".bin/gemini")
}

// model is passed with -m on every run: without it Gemini CLI's router makes classifier calls.
const model = "gemini-2.5-pro"

// world is one Gemini CLI run's isolated machine: the project, HOME with user settings that
// select API-key auth and turn off updates and telemetry, and the fake model.
type world struct {
	*e2eproject.Project
	gemini string
	model  *fakemodel.Server
}

func newWorld(t *testing.T, script ...fakemodel.Step) *world {
	t.Helper()
	testhost.Short(t, "real Gemini CLI runs")
	g := geminiScript(t)
	w := &world{Project: e2eproject.New(t), gemini: g}
	w.model = fakemodel.Start(t, fakemodel.Gemini, script...)
	settings := `{"security":{"auth":{"selectedType":"gemini-api-key"}},
 "general":{"disableAutoUpdate":true,"disableUpdateNag":true},
 "privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}
`
	if err := os.MkdirAll(filepath.Join(w.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// run drives `gemini -p prompt --yolo -m model` headless; args are extra flags.
func (w *world) run(t *testing.T, prompt string, args ...string) string {
	t.Helper()
	argv := append([]string{w.gemini, "--yolo", "-m", model, "-p", prompt}, args...)
	out := w.Run(t, 90*time.Second, []string{
		"GEMINI_CLI_TRUST_WORKSPACE=true", // --skip-trust is not enough for project hooks
		"GEMINI_API_KEY=dummy",
		"GOOGLE_GEMINI_BASE_URL=" + w.model.URL,
	}, "node", argv...)
	t.Logf("fake model requests:\n%s", w.model.Log())
	return out
}

// resultOf returns the tool result the model got for step i, failing the test when the host
// never sent one.
func (w *world) resultOf(t *testing.T, i int, out string) string {
	t.Helper()
	return e2eproject.Result(t, w.model, i, out)
}

// install writes the hooks with the real `mbguard install --agent gemini`.
func (w *world) install(t *testing.T) {
	t.Helper()
	w.Install(t, "gemini")
	if !strings.Contains(w.File(t, ".gemini/settings.json"), "mbguard-hook hook gemini") {
		t.Fatalf(".gemini/settings.json does not run `mbguard-hook hook gemini`:\n%s", w.File(t, ".gemini/settings.json"))
	}
}
