package copilot

import (
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// driver runs the shared scenarios (e2eproject) on Copilot.
type driver struct{}

func (driver) Start(t *testing.T) e2eproject.Session { return session{newWorld(t)} }

type session struct{ w *world }

func (s session) Project() *e2eproject.Project                 { return s.w.Project }
func (s session) Model() *fakemodel.Server                     { return s.w.model }
func (s session) Install(t *testing.T)                         { s.w.install(t) }
func (s session) Turn(t *testing.T, prompt string) string      { return s.w.run(t, prompt) }
func (s session) ReadFile(rel string) fakemodel.Step           { return view(s.w.Abs(rel)) }
func (s session) Shell(cmd string) fakemodel.Step              { return shell(cmd) }
func (s session) WriteFile(rel, content string) fakemodel.Step { return create(rel, content) }
func (s session) Host() string                                 { return "copilot" }

// TestCopilotSecretReadNeverReachesModel: postToolUse's modifiedResult replaces the result of a
// read of a bank file holding a secret with the notice and the output redacted.
func TestCopilotSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }

// TestCopilotEscapeHatch: MBGUARD=0 in the environment Copilot CLI runs in reaches the hooks and lets
// everything through, as on every other host.
func TestCopilotEscapeHatch(t *testing.T) { e2eproject.EscapeHatch(t, driver{}) }

// TestCopilotUninstall: after `mbguard install --uninstall`, what is left of the hook configuration
// still loads and no mbguard hook runs: the same bank write goes through.
func TestCopilotUninstall(t *testing.T) { e2eproject.Uninstall(t, driver{}) }

// TestCopilotReadGateAndUndo: create, view, create in block mode; then postToolUse's outcome
// check puts the bank back after a script wrote into it, and modifiedResult tells the model.
func TestCopilotReadGateAndUndo(t *testing.T) { e2eproject.ReadGateAndUndo(t, driver{}) }
