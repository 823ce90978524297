package codex

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

// codexBinary finds the Codex CLI npm installed; missing, it fails under CI and skips elsewhere.
func codexBinary(t *testing.T) string {
	t.Helper()
	return testhost.HostBinary(t, "Codex CLI (@openai/codex@0.169.0)",
		"@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", ".bin/codex")
}

// world is one Codex run's isolated machine: the project, CODEX_HOME with the fake model as
// the provider, and the fake itself.
type world struct {
	*e2eproject.Project
	codex, codexHome string
	model            *fakemodel.Server
}

// model is a slug from Codex's bundled catalog: with any other, Codex offers no apply_patch.
const model = "gpt-5.5"

func newWorld(t *testing.T, script ...fakemodel.Step) *world {
	t.Helper()
	testhost.Short(t, "real Codex CLI runs")
	codex := codexBinary(t)
	w := &world{Project: e2eproject.New(t), codex: codex}
	w.model = fakemodel.Start(t, fakemodel.Responses, script...)
	w.codexHome = filepath.Join(w.Home, "codex-home")
	cfg := `model = "` + model + `"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "` + w.model.URL + `/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[otel]
exporter = "none"

[features]
plugins = false
`
	if err := os.MkdirAll(w.codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.codexHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// run drives `codex exec` headless with prompt; args are extra flags (e.g. -c overrides).
func (w *world) run(t *testing.T, prompt string, args ...string) string {
	t.Helper()
	return w.exec(t, []string{"exec"}, prompt, args...)
}

// resume continues the most recent session with a new user message.
func (w *world) resume(t *testing.T, prompt string, args ...string) string {
	t.Helper()
	return w.exec(t, []string{"exec", "resume", "--last"}, prompt, args...)
}

func (w *world) exec(t *testing.T, cmd []string, prompt string, args ...string) string {
	t.Helper()
	argv := append(cmd, "--skip-git-repo-check", "--trust", "--dangerously-bypass-hook-trust",
		"--disable", "unbounded_connection_retries")
	argv = append(append(argv, args...), prompt)
	out := w.Run(t, 90*time.Second, []string{"CODEX_HOME=" + w.codexHome, "FAKE_API_KEY=dummy"}, w.codex, argv...)
	t.Logf("fake model requests:\n%s", w.model.Log())
	return out
}

// resultOf returns the tool result the model got for step i, failing the test when the host
// never sent one.
func (w *world) resultOf(t *testing.T, i int, out string) string {
	t.Helper()
	return e2eproject.Result(t, w.model, i, out)
}

// install writes the hooks with the real `mbguard install --agent codex`.
func (w *world) install(t *testing.T) {
	t.Helper()
	w.Install(t, "codex")
	if !strings.Contains(w.File(t, ".codex/hooks.json"), "mbguard-hook hook codex") {
		t.Fatalf(".codex/hooks.json does not run `mbguard-hook hook codex`:\n%s", w.File(t, ".codex/hooks.json"))
	}
}
