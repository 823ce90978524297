package droid

import (
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// driver runs the shared scenarios (e2eproject) on Droid.
type driver struct{}

func (driver) Start(t *testing.T) e2eproject.Session { return session{newWorld(t)} }

type session struct{ w *world }

func (s session) Project() *e2eproject.Project            { return s.w.Project }
func (s session) Model() *fakemodel.Server                { return s.w.model }
func (s session) Install(t *testing.T)                    { s.w.install(t) }
func (s session) Turn(t *testing.T, prompt string) string { return s.w.run(t, prompt) }
func (s session) ReadFile(rel string) fakemodel.Step      { return read(s.w.Abs(rel)) }
func (s session) Shell(cmd string) fakemodel.Step         { return execute(cmd) }
func (s session) WriteFile(rel, content string) fakemodel.Step {
	return create(s.w.Abs(rel), content)
}
func (s session) Host() string { return "droid" }

// TestDroidSecretReadNeverReachesModel: Droid's PostToolUse cannot replace a tool's output and
// only its additionalContext reaches the model, so a read of a bank file holding a secret is
// refused before it runs (exit 2), the reason carrying the file redacted.
func TestDroidSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }

// TestDroidEscapeHatch: MBGUARD=0 in the environment droid exec runs in reaches the hooks and
// lets everything through.
func TestDroidEscapeHatch(t *testing.T) { e2eproject.EscapeHatch(t, driver{}) }

// TestDroidUninstall: after `mbguard install --agent droid --uninstall`, .factory/settings.json
// still loads and no mbguard hook runs: the same bank write goes through.
func TestDroidUninstall(t *testing.T) { e2eproject.Uninstall(t, driver{}) }

// TestDroidReadGateAndUndo: in block mode a Create under src/auth/ is refused naming
// patterns.md, and allowed once Read read it; then PostToolUse's outcome check puts the bank back
// after a script wrote into it, and the model hears it through additionalContext, the one
// PostToolUse channel that reaches Droid's model (decision/reason do not); Droid gives it as a
// user message right after the tool result.
func TestDroidReadGateAndUndo(t *testing.T) { e2eproject.ReadGateAndUndo(t, driver{}) }
