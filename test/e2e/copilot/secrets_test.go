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

func (s session) Project() *e2eproject.Project            { return s.w.Project }
func (s session) Model() *fakemodel.Server                { return s.w.model }
func (s session) Install(t *testing.T)                    { s.w.install(t) }
func (s session) Turn(t *testing.T, prompt string) string { return s.w.run(t, prompt) }
func (s session) ReadFile(rel string) fakemodel.Step      { return view(s.w.Abs(rel)) }
func (s session) Shell(cmd string) fakemodel.Step         { return shell(cmd) }

// TestCopilotSecretReadNeverReachesModel: postToolUse's modifiedResult replaces the result of a
// read of a bank file holding a secret with the notice and the output redacted.
func TestCopilotSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }
