package opencode

import (
	"testing"

	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// driver runs the shared scenarios (e2eproject) on OpenCode, against the shared fake model.
type driver struct{}

func (driver) Start(t *testing.T) e2eproject.Session {
	t.Helper()
	testhost.Short(t, "real OpenCode runs")
	openCodeBinary(t) // missing, it fails under CI and skips elsewhere, before anything is built
	model := fakemodel.Start(t, fakemodel.Chat)
	w := newWorldAt(t, model.URL+"/v1")
	return &session{w: w, model: model, p: &e2eproject.Project{Root: w.project, Home: w.home, Bin: w.bin, Env: w.env}}
}

type session struct {
	w     *world
	model *fakemodel.Server
	p     *e2eproject.Project
}

func (s *session) Project() *e2eproject.Project { return s.p }
func (s *session) Model() *fakemodel.Server     { return s.model }

// Install: newWorld already installed the plugin with the real `mbguard install`.
func (s *session) Install(t *testing.T) {}

func (s *session) Turn(t *testing.T, prompt string) string {
	t.Helper()
	s.w.env = s.p.Env // a scenario may have added to it
	out := s.w.run(t, nil, prompt)
	t.Logf("fake model requests:\n%s", s.model.Log())
	return out
}

func (s *session) ReadFile(rel string) fakemodel.Step {
	return fakemodel.Call("read", map[string]any{"filePath": rel})
}

func (s *session) WriteFile(rel, content string) fakemodel.Step {
	return fakemodel.Call("write", map[string]any{"filePath": rel, "content": content})
}

func (s *session) Host() string { return "opencode" }

func (s *session) Shell(cmd string) fakemodel.Step {
	return fakemodel.Call("bash", map[string]any{"command": cmd, "description": "scripted"})
}

// TestOpenCodeSecretReadNeverReachesModel: the plugin's tool.execute.after replaces a bank
// secret in a read's output (serve names the secrets) and appends where it is.
func TestOpenCodeSecretReadNeverReachesModel(t *testing.T) { e2eproject.SecretRead(t, driver{}) }

// TestOpenCodeEscapeHatch: MBGUARD=0 in OpenCode's environment switches the plugin off.
func TestOpenCodeEscapeHatch(t *testing.T) { e2eproject.EscapeHatch(t, driver{}) }

// TestOpenCodeUninstall: after `mbguard install --uninstall` OpenCode still starts and no
// mbguard plugin runs: the same bank write goes through.
func TestOpenCodeUninstall(t *testing.T) { e2eproject.Uninstall(t, driver{}) }
