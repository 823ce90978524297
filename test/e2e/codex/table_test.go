package codex

import (
	"strings"
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// driver runs the shared scenarios (e2eproject) on Codex, which reads only through its shell.
type driver struct{}

func (driver) Start(t *testing.T) e2eproject.Session { return session{newWorld(t)} }

type session struct{ w *world }

func (s session) Project() *e2eproject.Project            { return s.w.Project }
func (s session) Model() *fakemodel.Server                { return s.w.model }
func (s session) Install(t *testing.T)                    { s.w.install(t) }
func (s session) Turn(t *testing.T, prompt string) string { return s.w.run(t, prompt) }
func (s session) ReadFile(rel string) fakemodel.Step      { return shell("sed -n '1,200p' " + rel) }
func (s session) Shell(cmd string) fakemodel.Step         { return shell(cmd) }

// WriteFile adds rel through apply_patch, every line of content a "+" line.
func (s session) WriteFile(rel, content string) fakemodel.Step {
	return addFile(rel, strings.ReplaceAll(strings.TrimSuffix(content, "\n"), "\n", "\n+"))
}
func (s session) Host() string { return "codex" }

// TestCodexSecretReadNeverReachesModel: PostToolUse's {"decision":"block"} replaces the output
// of a read of a bank file holding a secret with the notice and the output redacted.
func TestCodexSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }

// TestCodexEscapeHatch: MBGUARD=0 in the environment Codex runs in reaches the hooks and lets
// everything through, as on every other host.
func TestCodexEscapeHatch(t *testing.T) { e2eproject.EscapeHatch(t, driver{}) }

// TestCodexUninstall: after `mbguard install --uninstall`, what is left of the hook configuration
// still loads and no mbguard hook runs: the same bank write goes through.
func TestCodexUninstall(t *testing.T) { e2eproject.Uninstall(t, driver{}) }

// TestCodexReadGateAndUndo: in block mode a patch under src/auth/ is refused naming patterns.md
// and allowed after a shell `sed -n` read it (Codex has no read tool); then PostToolUse's outcome
// check puts the bank back after a script wrote into it, and the block reason that replaces the
// output tells the model.
func TestCodexReadGateAndUndo(t *testing.T) { e2eproject.ReadGateAndUndo(t, driver{}) }
