package qwen

import (
	"strings"
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// driver runs the shared scenarios (e2eproject) on Qwen.
type driver struct{}

func (driver) Start(t *testing.T) e2eproject.Session { return session{newWorld(t)} }

type session struct{ w *world }

func (s session) Project() *e2eproject.Project { return s.w.Project }
func (s session) Model() *fakemodel.Server     { return s.w.model }
func (s session) Install(t *testing.T) {
	if out := s.w.Install(t, "qwen"); !strings.Contains(s.w.File(t, ".qwen/settings.json"), "mbguard-hook hook qwen") {
		t.Fatalf("install wrote no hook:\n%s", out)
	}
}
func (s session) Turn(t *testing.T, prompt string) string { return s.w.run(t, prompt) }
func (s session) ReadFile(rel string) fakemodel.Step      { return readFile(s.w.Abs(rel)) }
func (s session) Shell(cmd string) fakemodel.Step         { return shell(cmd) }
func (s session) WriteFile(rel, content string) fakemodel.Step {
	return writeFile(s.w.Abs(rel), content)
}
func (s session) Host() string { return "qwen" }

// TestQwenSecretReadNeverReachesModel: only a post-tool reply's additionalContext reaches Qwen's
// model, so a read of a bank file holding a secret is refused before it runs, the reason
// carrying the file redacted.
func TestQwenSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }

// TestQwenEscapeHatch: MBGUARD=0 in the environment Qwen Code runs in reaches the hooks and lets
// everything through, as on every other host.
func TestQwenEscapeHatch(t *testing.T) { e2eproject.EscapeHatch(t, driver{}) }

// TestQwenUninstall: after `mbguard install --uninstall`, what is left of the hook configuration
// still loads and no mbguard hook runs: the same bank write goes through.
func TestQwenUninstall(t *testing.T) { e2eproject.Uninstall(t, driver{}) }

// TestQwenReadGateAndUndo: the read of patterns.md survives the extra UserPromptSubmit Qwen fires
// (same prompt_id, empty prompt) before each model call that carries tool results; then
// PostToolUse's outcome check puts the bank back after a script wrote into it, and the model
// hears it through additionalContext, the one PostToolUse channel Qwen shows it.
func TestQwenReadGateAndUndo(t *testing.T) { e2eproject.ReadGateAndUndo(t, driver{}) }
