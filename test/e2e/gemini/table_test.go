package gemini

import (
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// driver runs the shared scenarios (e2eproject) on Gemini.
type driver struct{}

func (driver) Start(t *testing.T) e2eproject.Session { return session{newWorld(t)} }

type session struct{ w *world }

func (s session) Project() *e2eproject.Project                 { return s.w.Project }
func (s session) Model() *fakemodel.Server                     { return s.w.model }
func (s session) Install(t *testing.T)                         { s.w.install(t) }
func (s session) Turn(t *testing.T, prompt string) string      { return s.w.run(t, prompt) }
func (s session) ReadFile(rel string) fakemodel.Step           { return readFile(rel) }
func (s session) Shell(cmd string) fakemodel.Step              { return shell(cmd) }
func (s session) WriteFile(rel, content string) fakemodel.Step { return writeFile(rel, content) }
func (s session) Host() string                                 { return "gemini" }

// Search is Gemini CLI's grep_search with no dir_path: the whole project.
func (s session) Search(pattern string) fakemodel.Step {
	return fakemodel.Call("grep_search", map[string]any{"pattern": pattern})
}

// TestGeminiSecretReadNeverReachesModel: AfterTool's deny replaces the result of a read of
// a bank file holding a secret with the notice and the output redacted.
func TestGeminiSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }

// TestGeminiEscapeHatch: MBGUARD=0 in the environment Gemini CLI runs in reaches the hooks and lets
// everything through, as on every other host.
func TestGeminiEscapeHatch(t *testing.T) { e2eproject.EscapeHatch(t, driver{}) }

// TestGeminiUninstall: after `mbguard install --uninstall`, what is left of the hook configuration
// still loads and no mbguard hook runs: the same bank write goes through.
func TestGeminiUninstall(t *testing.T) { e2eproject.Uninstall(t, driver{}) }

// TestGeminiReadGateAndUndo: uses src/auth/ (Gemini CLI refuses writes to build files such as
// package.json by its own policy, before any hook runs); then AfterTool's outcome check puts the
// bank back after a script wrote into it, and the deny reason that replaces the result tells
// the model.
func TestGeminiReadGateAndUndo(t *testing.T) { e2eproject.ReadGateAndUndo(t, driver{}) }
