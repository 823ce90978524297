package copilot

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// cache is shared by the package's runs: Copilot CLI unpacks its 235 MB of JavaScript into
// $XDG_CACHE_HOME/copilot on the first run of a fresh cache (seconds), and that is the only
// thing the runs share. The first world unpacks it with `copilot --version` while the others
// wait, so parallel runs never unpack into the same folder at once.
var cache struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	e2eproject.Main(m, func() {
		if cache.dir != "" {
			os.RemoveAll(cache.dir)
		}
	})
}

// cacheDir unpacks Copilot CLI into the shared cache once and returns it.
func cacheDir(t *testing.T, copilot string) string {
	t.Helper()
	cache.once.Do(func() {
		dir, err := os.MkdirTemp("", "mbguard-e2e-copilot-cache")
		if err != nil {
			cache.err = err
			return
		}
		cache.dir = dir
		cmd := exec.Command(copilot, "--version")
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+dir, "COPILOT_AUTO_UPDATE=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			cache.err = fmt.Errorf("copilot --version (unpacking its cache): %v\n%s", err, out)
		}
	})
	if cache.err != nil {
		t.Fatal(cache.err)
	}
	return cache.dir
}

// copilotBinary finds the Copilot CLI npm installed; missing, it fails under CI and skips
// elsewhere.
func copilotBinary(t *testing.T) string {
	t.Helper()
	return testhost.HostBinary(t, "GitHub Copilot CLI (@github/copilot@1.0.102)",
		"@github/copilot-linux-x64/copilot", ".bin/copilot")
}

// model selects Copilot's tool set: with a Claude model it offers create/edit/view/bash.
const model = "claude-sonnet-4.6"

// world is one Copilot run's isolated machine: the project, HOME and COPILOT_HOME of its own,
// and the fake model as the BYOK provider.
type world struct {
	*e2eproject.Project
	copilot string
	model   *fakemodel.Server
}

func newWorld(t *testing.T, script ...fakemodel.Step) *world {
	t.Helper()
	testhost.Short(t, "real Copilot CLI runs")
	c := copilotBinary(t)
	w := &world{Project: e2eproject.New(t), copilot: c}
	w.model = fakemodel.Start(t, fakemodel.Chat, script...)
	return w
}

// run drives `copilot -p prompt` headless and offline; env is appended to the run's.
func (w *world) run(t *testing.T, prompt string, env ...string) string {
	t.Helper()
	base := []string{
		"COPILOT_HOME=" + filepath.Join(w.Home, "copilot-home"),
		"COPILOT_OFFLINE=true", // no GitHub auth, telemetry, web tools or auto-update
		"COPILOT_PROVIDER_BASE_URL=" + w.model.URL + "/v1",
		"COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_API_KEY=dummy",
		"COPILOT_MODEL=" + model,
		"COPILOT_AUTO_UPDATE=false",
		"XDG_CACHE_HOME=" + cacheDir(t, w.copilot),
	}
	out := w.Run(t, 90*time.Second, append(base, env...), w.copilot, "-p", prompt,
		"--allow-all-tools", "--trust-folder", "--no-auto-update", "--disable-client-telemetry", "--no-ask-user")
	t.Logf("fake model requests:\n%s", w.model.Log())
	return out
}

// resultOf returns the tool result the model got for step i, failing the test when the host
// never sent one.
func (w *world) resultOf(t *testing.T, i int, out string) string {
	t.Helper()
	return e2eproject.Result(t, w.model, i, out)
}

// install writes the hooks with the real `mbguard install --agent copilot`.
func (w *world) install(t *testing.T) {
	t.Helper()
	w.Install(t, "copilot")
	entries, _ := os.ReadDir(w.Abs(".github/hooks"))
	var all string
	for _, e := range entries {
		all += w.File(t, ".github/hooks/"+e.Name())
	}
	if !strings.Contains(all, "mbguard-hook hook copilot") {
		t.Fatalf("no file in .github/hooks runs `mbguard-hook hook copilot`:\n%s", all)
	}
}
