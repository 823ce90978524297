package auggie

import (
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// driver runs the shared scenarios (e2eproject) on Auggie.
type driver struct{}

func (driver) Start(t *testing.T) e2eproject.Session { return session{newWorld(t)} }

type session struct{ w *world }

func (s session) Project() *e2eproject.Project                 { return s.w.Project }
func (s session) Model() *fakemodel.Server                     { return s.w.model }
func (s session) Install(t *testing.T)                         { s.w.install(t) }
func (s session) Turn(t *testing.T, prompt string) string      { return s.w.run(t, prompt) }
func (s session) ReadFile(rel string) fakemodel.Step           { return view(rel) }
func (s session) Shell(cmd string) fakemodel.Step              { return launch(cmd) }
func (s session) WriteFile(rel, content string) fakemodel.Step { return saveFile(rel, content) }
func (s session) Host() string                                 { return "auggie" }

// TestAuggieSecretReadNeverReachesModel: Auggie's PostToolUse can only add to a tool's result,
// never replace it, so a read of a bank file holding a secret is refused before it runs (exit
// 2), the reason carrying the file redacted.
func TestAuggieSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }

// TestAuggieEscapeHatch: MBGUARD=0 in the environment auggie runs in reaches the hooks and
// lets everything through.
func TestAuggieEscapeHatch(t *testing.T) { e2eproject.EscapeHatch(t, driver{}) }

// TestAuggieUninstall: after `mbguard install --agent auggie --uninstall`, .augment/settings.json
// still loads and no mbguard hook runs: the same bank write goes through.
func TestAuggieUninstall(t *testing.T) { e2eproject.Uninstall(t, driver{}) }

// TestAuggieReadGateAndUndo: in block mode a save-file under src/auth/ is refused naming
// patterns.md, and allowed once view read it; then PostToolUse's outcome check puts the bank
// back after a script wrote into it, and the model hears it through additionalContext, which
// Auggie appends to the tool's result.
func TestAuggieReadGateAndUndo(t *testing.T) { e2eproject.ReadGateAndUndo(t, driver{}) }
