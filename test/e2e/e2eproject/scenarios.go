package e2eproject

import (
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/scanner"
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

// Session is one project with its host and fake model. Turn runs the host with the
// Project's Env, so a scenario may add to it.
type Session interface {
	Project() *Project
	Model() *fakemodel.Server
	// Install writes mbguard's hooks with the real `mbguard install --agent <host>` and checks
	// the host's configuration names them.
	Install(t *testing.T)
	// Turn runs one headless session on prompt (a user message) and returns its output.
	Turn(t *testing.T, prompt string) string
	// ReadFile is the host's own call reading rel (project-relative), through its read tool
	// where it has one; WriteFile creates rel with content through its write tool; Shell runs
	// cmd in the project through its shell tool.
	ReadFile(rel string) fakemodel.Step
	WriteFile(rel, content string) fakemodel.Step
	Shell(cmd string) fakemodel.Step
	// Host is the host's name for `mbguard install --agent`.
	Host() string
}

// SecretMarker is a line of the bank file SecretRead plants its token in: it must reach the
// model (the agent keeps its memory), the token must not.
const SecretMarker = "deploys go through the queue (marker deploy-kiwi)"

// SecretRead: memory-bank/details/deploy.md holds a token made up for the run. The agent reads
// it with the host's read tool and with `cat`, searches the whole project for the token's
// prefix — with the host's search tool where the driver has one (Searcher), then with
// `grep -rn` at the root — greps again with the bank left out, and prints the file in base64. No request the fake model
// received carries the token. Each read's result still carries the file's other text and says
// which line holds a secret (redacted, or the read stopped with the text redacted), so the
// agent keeps its memory and knows what to remove. Each search's result is its output redacted
// or, on the hosts that cannot hide a tool's output afterwards (Qwen Code, Droid, Crush), a
// refusal naming the line and how to search without the bank; the search that leaves the bank
// out runs. The base64 of the file comes back with the token's encoded form replaced, or refused.
func SecretRead(t *testing.T, d Driver) {
	t.Helper()
	s := d.Start(t)
	s.Install(t)
	r := PrepareSecretRead(t, s, 0)
	s.Model().Script(r.Steps...)
	r.Check(t, s.Turn(t, "what do we know about deploys?"))
}

// SecretReadTurn is SecretRead's calls and checks for a host whose start costs so much that
// its package runs SecretRead within the turn of another scenario: Steps go into that turn's
// script at the index PrepareSecretRead was given, and Check runs on the turn's output.
type SecretReadTurn struct {
	Steps []fakemodel.Step
	Check func(t *testing.T, out string)
}

// PrepareSecretRead plants SecretRead's token in the session's bank (committed) and returns
// its steps, the first of which is the first-th call of the turn.
func PrepareSecretRead(t *testing.T, s Session, first int) SecretReadTurn {
	t.Helper()
	p := s.Project()
	const rel = "memory-bank/details/deploy.md"
	secret := NewSecret()
	p.Write(t, rel, "# Deploy\n\n- staging token: "+secret+"\n- "+SecretMarker+"\n")
	testgit.Commit(t, p.Root, "a token slipped into the bank")
	prefix := secret[:4] // ghp_
	steps := []fakemodel.Step{s.ReadFile(rel), s.Shell("cat " + rel)}
	searches := []string{"grep -rn"}
	if sr, ok := s.(Searcher); ok {
		steps, searches = append(steps, sr.Search(prefix)), append([]string{"search tool"}, searches...)
	}
	steps = append(steps, s.Shell("grep -rn "+prefix+" ."), s.Shell("grep -rn --exclude-dir=memory-bank "+prefix+" ."),
		s.Shell("base64 "+rel))
	return SecretReadTurn{Steps: steps, Check: func(t *testing.T, out string) {
		t.Helper()
		checkSecretRead(t, s.Model(), out, first, rel, secret, searches)
	}}
}

func checkSecretRead(t *testing.T, model *fakemodel.Server, out string, first int, rel, secret string, searches []string) {
	t.Helper()
	// the host's own output may show it: that is the user's terminal, not the model; base64
	// wraps its lines, and a JSON body escapes them
	for i, r := range model.Requests() {
		text := strings.NewReplacer(`\n`, "", "\n", "").Replace(r.Text())
		for _, f := range scanner.SecretForms(secret) {
			if strings.Contains(text, f) {
				t.Errorf("request #%d (%s) to the model carries the secret read from %s (as %q)", i, r.Kind, rel, f)
			}
		}
	}
	where := rel + " line 3 holds a secret (gitleaks rule github-pat)"
	for i, how := range []string{"read tool", "cat"} {
		r := Result(t, model, first+i, out)
		if !Contains(r, where, "REDACTED", "deploy-kiwi") {
			t.Errorf("%s: the result the model got does not carry the file redacted and where the secret is: %q", how, r)
		}
	}
	for i, how := range searches {
		r := Result(t, model, first+2+i, out)
		redacted := Contains(r, where, "- staging token: REDACTED") // grep's and each tool's line format
		refused := Contains(r, where, "stopped before it ran") &&
			(strings.Contains(r, "--exclude-dir=memory-bank") || strings.Contains(r, "does not hold memory-bank/"))
		if !redacted && !refused {
			t.Errorf("%s: the result the model got is neither the redacted output nor a refusal naming the line and how to search without the bank: %q", how, r)
		}
	}
	if r := Result(t, model, first+2+len(searches), out); strings.Contains(r, "stopped before it ran") {
		t.Errorf("grep with the bank left out was refused: %q", r)
	}
	if r := Result(t, model, first+3+len(searches), out); !Contains(r, where) || !strings.Contains(r, "REDACTED") && !strings.Contains(r, "stopped before it ran") {
		t.Errorf("base64 of the file: the result the model got is neither redacted nor a refusal naming the line: %q", r)
	}
}

// bankWrite is the call EscapeHatch and Uninstall make: a non-.md file into the bank, which
// the bank guard refuses in every mode while mbguard runs.
const bankWrite = "memory-bank/x.json"

// EscapeHatch: MBGUARD=0 in the environment the host runs in reaches mbguard and lets a write
// the bank guard refuses go through.
func EscapeHatch(t *testing.T, d Driver) {
	t.Helper()
	s := d.Start(t)
	p := s.Project()
	s.Install(t)
	s.Model().Script(s.WriteFile(bankWrite, "{\"a\": 1}\n"))
	p.Env = append(p.Env, "MBGUARD=0")
	out := s.Turn(t, "write the json")
	if !p.Exists(bankWrite) {
		r, _ := s.Model().ResultOf(0)
		t.Errorf("with MBGUARD=0 the write was still refused: %q\n%s", r, out)
	}
}

// Uninstall: after `mbguard install --agent <host> --uninstall`, what is left of the host's
// configuration still loads and no mbguard hook runs: the same write goes through and nothing
// reaches the decision log.
func Uninstall(t *testing.T, d Driver) {
	t.Helper()
	s := d.Start(t)
	p := s.Project()
	s.Install(t)
	p.Mbguard(t, "install", "--agent", s.Host(), "--uninstall")
	s.Model().Script(s.WriteFile(bankWrite, "{\"a\": 1}\n"))
	out := s.Turn(t, "write the json")
	if !p.Exists(bankWrite) {
		r, _ := s.Model().ResultOf(0)
		t.Errorf("after --uninstall the write was still refused: %q\n%s", r, out)
	}
	if log := p.DecisionLog(); log != "" {
		t.Errorf("mbguard still decided after --uninstall:\n%s", log)
	}
}

// ReadGateAndUndo, one session in block mode (each host start costs seconds): a write to
// src/auth/ is refused naming details/patterns.md, and allowed after the host's read tool read
// it (CheckReadGate). Then the model runs Script through the shell, a command line that shows
// nothing of the bank; the script writes memory-bank/cache.json and appends to progress.md.
// After the call the bank is back as it was, the model is told what was undone with the call's
// result (in it, or in a message the host adds right after it), and the decision log holds the
// outcome gate's decision.
func ReadGateAndUndo(t *testing.T, d Driver) {
	t.Helper()
	s := d.Start(t)
	p := s.Project()
	p.BlockMode(t)
	s.Install(t)
	s.Model().Script(
		s.WriteFile("src/auth/token.go", "package auth // first\n"),
		s.ReadFile("memory-bank/details/patterns.md"),
		s.WriteFile("src/auth/token.go", "package auth // second\n"),
		s.Shell("cat "+Script+" | sh"),
	)
	progress := p.File(t, "memory-bank/details/progress.md")
	out := s.Turn(t, "add a token module, then regenerate the cache")
	CheckReadGate(t, p, s.Model(), out)
	if p.Exists("memory-bank/cache.json") {
		t.Errorf("memory-bank/cache.json, written by the script, is still in the bank: the outcome check (issue 8) did not run on this host's post-tool event")
	}
	if got := p.File(t, "memory-bank/details/progress.md"); got != progress {
		t.Errorf("progress.md keeps the script's append:\n%s", got)
	}
	if r, ok := s.Model().Told(3); !ok || !Contains(r, "[mbguard]", "memory-bank/") {
		t.Errorf("the model was not told what was undone; after the call it got %q\n%s\nrequests:\n%s", r, out, s.Model().Log())
	}
	if log := p.DecisionLog(); !strings.Contains(log, `"gate":"outcome"`) {
		t.Errorf("no outcome decision in the decision log:\n%s", log)
	}
}

// Searcher is a Session whose host has a structured content-search tool (Qwen's grep_search,
// Droid's Grep): Search is its call for pattern with no path, so it searches the whole project.
type Searcher interface {
	Search(pattern string) fakemodel.Step
}
