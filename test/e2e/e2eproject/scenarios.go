package e2eproject

import (
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// The scenarios below are written once and run for every real host through its Driver: each
// host package implements Driver over its own headless run and calls the scenario from a test
// of its own (so `go test -run` picks one host's run).

// Driver runs one real host headless against a fake model.
type Driver interface {
	// Start makes the project and a fake model speaking the host's API, with nothing
	// installed yet.
	Start(t *testing.T) Session
}

// Session is one project with its host and fake model.
type Session interface {
	Project() *Project
	Model() *fakemodel.Server
	// Install writes mbguard's hooks with the real `mbguard install --agent <host>` and checks
	// the host's configuration names them.
	Install(t *testing.T)
	// Turn runs one headless session on prompt (a user message) and returns its output.
	Turn(t *testing.T, prompt string) string
	// ReadFile is the host's own call reading rel (project-relative), through its read tool
	// where it has one; Shell runs cmd in the project through its shell tool.
	ReadFile(rel string) fakemodel.Step
	Shell(cmd string) fakemodel.Step
}

// SecretMarker is a line of the bank file SecretRead plants its token in: it must reach the
// model (the agent keeps its memory), the token must not.
const SecretMarker = "deploys go through the queue (marker deploy-kiwi)"

// SecretRead: the agent reads memory-bank/details/deploy.md, which holds a token made up for
// the run, with the host's read tool and then with `cat`. No request the fake model received
// carries the token; each read's result still carries the file's other text and says which
// line holds a secret (and that it was redacted or the read stopped), so the agent keeps its
// memory and knows what to remove.
func SecretRead(t *testing.T, d Driver) {
	t.Helper()
	s := d.Start(t)
	p := s.Project()
	s.Install(t)
	const rel = "memory-bank/details/deploy.md"
	secret := NewSecret()
	p.Write(t, rel, "# Deploy\n\n- staging token: "+secret+"\n- "+SecretMarker+"\n")
	testgit.Commit(t, p.Root, "a token slipped into the bank")
	s.Model().Script(s.ReadFile(rel), s.Shell("cat "+rel))
	out := s.Turn(t, "what do we know about deploys?")
	// the host's own output may show it: that is the user's terminal, not the model
	for i, r := range s.Model().Requests() {
		if strings.Contains(r.Text(), secret) {
			t.Errorf("request #%d (%s) to the model carries the secret read from %s", i, r.Kind, rel)
		}
	}
	for i, how := range []string{"read tool", "cat"} {
		r := Result(t, s.Model(), i, out)
		if !Contains(r, rel+" line 3 holds a secret (gitleaks rule github-pat)", "REDACTED", "deploy-kiwi") {
			t.Errorf("%s: the result the model got does not carry the file redacted and where the secret is: %q", how, r)
		}
	}
}
