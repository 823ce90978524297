package kilo

import (
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// driver runs the shared scenarios (e2eproject) on Kilo Code. kernelOff runs the session with
// kernel.mode off, for a scenario whose shell call must reach the bank to show the undo after it.
type driver struct{ kernelOff bool }

func (d driver) Start(t *testing.T) e2eproject.Session { return session{newWorld(t), d.kernelOff} }

type session struct {
	w         *world
	kernelOff bool
}

func (s session) Project() *e2eproject.Project { return s.w.Project }
func (s session) Model() *fakemodel.Server     { return s.w.model }
func (s session) Install(t *testing.T)         { s.w.install(t) }
func (s session) Turn(t *testing.T, prompt string) string {
	if s.kernelOff {
		return s.w.run(t, prompt, "MBGUARD_KERNEL_MODE=off")
	}
	return s.w.run(t, prompt)
}
func (s session) ReadFile(rel string) fakemodel.Step           { return read(rel) }
func (s session) WriteFile(rel, content string) fakemodel.Step { return write(rel, content) }
func (s session) Shell(cmd string) fakemodel.Step              { return shell(cmd) }
func (s session) Host() string                                 { return "kilo" }

// No Search: Kilo's grep tool fetches ripgrep from GitHub at first use unless rg is on PATH,
// and fails here without reaching the bank (docs/hosts/kilo.md); grep -rn through bash is the
// search the scenario runs.

// e2eproject.SecretRead runs within TestKiloInjectsMemoryAndGuardsTheBank's turn.

// TestKiloReadGateAndUndo: block mode; a write to src/auth/ is refused until patterns.md was
// read; a script writing into the bank is undone in tool.execute.after and the model reads
// why in the call's output.
func TestKiloReadGateAndUndo(t *testing.T) { e2eproject.ReadGateAndUndo(t, driver{kernelOff: true}) }
