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
	if out := s.w.Install(t, "qwen"); !strings.Contains(s.w.File(t, ".qwen/settings.json"), "mbguard hook qwen") {
		t.Fatalf("install wrote no hook:\n%s", out)
	}
}
func (s session) Turn(t *testing.T, prompt string) string { return s.w.run(t, prompt) }
func (s session) ReadFile(rel string) fakemodel.Step      { return readFile(s.w.Abs(rel)) }
func (s session) Shell(cmd string) fakemodel.Step         { return shell(cmd) }

// TestQwenSecretReadNeverReachesModel: only a post-tool reply's additionalContext reaches Qwen's
// model, so a read of a bank file holding a secret is refused before it runs, the reason
// carrying the file redacted.
func TestQwenSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }
