package e2eproject

import (
	"strings"
	"testing"

	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// Shape is one tool call of a bank-guard scenario, in the host's own tool dialect, and what
// must come of it.
type Shape struct {
	Name string
	Step fakemodel.Step
	// Refused: the model must read "[mbguard bank] blocked" in the call's result. Otherwise the call
	// must not be refused by any mbguard gate.
	Refused bool
	// Says is more text the result must hold (e.g. the path the refusal names).
	Says string
	// Absent must not exist afterwards; Kept must keep its content; Present must exist, and
	// hold Holds when that is set.
	Absent, Kept, Present, Holds string
}

// UserBlockLine is a line of MEMORY.md's USER_BLOCK as mbguard init writes it: an edit of it
// must be refused.
const UserBlockLine = "(Yours to edit. Agents never change this block.)"

// ConventionLine is a line of details/patterns.md as mbguard init writes it, outside any
// protected block: an edit of it into NewConvention is an allowed bank write.
const (
	ConventionLine = "- (naming, layout, error handling and testing habits the code follows)"
	NewConvention  = "- retries go through the queue"
)

// Steps returns the shapes' steps, in order, for fakemodel.Start.
func Steps(shapes []Shape) []fakemodel.Step {
	var out []fakemodel.Step
	for _, s := range shapes {
		out = append(out, s.Step)
	}
	return out
}

// Snapshot records the content of every Kept file before the run.
func (p *Project) Snapshot(t *testing.T, shapes []Shape) map[string]string {
	t.Helper()
	kept := map[string]string{}
	for _, s := range shapes {
		if s.Kept != "" {
			kept[s.Kept] = p.File(t, s.Kept)
		}
	}
	return kept
}

// CheckShapes asserts each shape's outcome on disk and in what the model was told.
func (p *Project) CheckShapes(t *testing.T, model *fakemodel.Server, shapes []Shape, kept map[string]string, out string) {
	t.Helper()
	for i, s := range shapes {
		r, ok := model.Told(i) // the result, and what a host adds right after it (Cline's hook context)
		if !ok {
			t.Errorf("%s: the model never got this call's result\n%s\nrequests:\n%s", s.Name, out, model.Log())
			continue
		}
		switch {
		case s.Refused && !strings.Contains(r, "[mbguard bank] blocked"):
			t.Errorf("%s: the bank guard's refusal did not reach the model; it got %q", s.Name, r)
		case !s.Refused && strings.Contains(r, "[mbguard") && strings.Contains(r, "blocked"):
			t.Errorf("%s: refused, but it is an allowed write: %q", s.Name, r)
		case s.Says != "" && !strings.Contains(r, s.Says):
			t.Errorf("%s: the result does not say %q: %q", s.Name, s.Says, r)
		}
		if s.Absent != "" && p.Exists(s.Absent) {
			t.Errorf("%s: %s exists", s.Name, s.Absent)
		}
		if s.Kept != "" {
			if got, _ := readFile(p.Abs(s.Kept)); got != kept[s.Kept] {
				t.Errorf("%s: %s changed:\n%s", s.Name, s.Kept, got)
			}
		}
		if s.Present != "" {
			if got, err := readFile(p.Abs(s.Present)); err != nil || !strings.Contains(got, s.Holds) {
				t.Errorf("%s: %s was not written (%v):\n%s", s.Name, s.Present, err, got)
			}
		}
	}
}

// CheckMemoryInjected asserts that MEMORY.md (its Marker and the protocol block around it)
// reached the model in the first agent request, exactly once, and that secret (when not
// empty) reached it in no request at all.
func CheckMemoryInjected(t *testing.T, model *fakemodel.Server, out, secret string) {
	t.Helper()
	if secret != "" {
		for i, r := range model.Requests() {
			if strings.Contains(r.Text(), secret) {
				t.Errorf("request #%d (%s) carries the secret planted in MEMORY.md: it was injected unredacted", i, r.Kind)
				break
			}
		}
	}
	agent := model.Agent()
	if len(agent) == 0 {
		t.Fatalf("the host sent no agent request\n%s", out)
	}
	first := agent[0].Text()
	if !strings.Contains(first, Marker) || !strings.Contains(first, "Memory-bank protocol") {
		t.Errorf("MEMORY.md's Current Focus (marker %s) did not reach the model in the first request", Marker)
	} else if n := strings.Count(first, Marker); n != 1 {
		t.Errorf("MEMORY.md was injected %d times into the first request, want once", n)
	}
}

// Result is what the model got back for step i of its script — its result and what the host
// added right after it (Told: Cline gives a hook's text as a message after the result); the
// test ends, with the requests it saw, when the model never got it.
func Result(t *testing.T, model *fakemodel.Server, i int, out string) string {
	t.Helper()
	r, ok := model.Told(i)
	if !ok {
		t.Fatalf("the model never got the result of step %d\n%s\nrequests:\n%s", i, out, model.Log())
	}
	return r
}

// Contains reports whether s holds every one of subs.
func Contains(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// CheckReadGate checks the read gate in block mode for a script of three steps: a write of
// src/auth/token.go refused with patterns.md named, a read of patterns.md, and the same
// write, now allowed, ending with "// second".
func CheckReadGate(t *testing.T, p *Project, model *fakemodel.Server, out string) {
	t.Helper()
	if r := Result(t, model, 0, out); !Contains(r, "[mbguard read gate] blocked", "memory-bank/details/patterns.md") {
		t.Errorf("the read gate's refusal naming patterns.md did not reach the model; it got %q", r)
	}
	if r := Result(t, model, 1, out); !Contains(r, "pattern-zebra") {
		t.Errorf("reading patterns.md returned %q", r)
	}
	if r := Result(t, model, 2, out); strings.Contains(r, "[mbguard") && strings.Contains(r, "blocked") {
		t.Errorf("the write after reading patterns.md was refused: %q", r)
	}
	if !p.Exists("src/auth/token.go") || !strings.Contains(p.File(t, "src/auth/token.go"), "// second") {
		t.Errorf("src/auth/token.go does not hold the second, allowed write")
	}
}

// ShellShapes are the bank-guard shapes every host's shell tool must meet, in its dialect
// (shell makes the host's call for a command line): redirects, tee, rm, cp and sed -i into
// the bank refused with nothing reaching the disk, reads and git diff of the bank allowed.
func ShellShapes(shell func(cmd string) fakemodel.Step) []Shape {
	return []Shape{
		{Name: "shell redirect into progress.md", Refused: true, Kept: "memory-bank/details/progress.md",
			Step: shell("echo '- done' >> memory-bank/details/progress.md")},
		{Name: "shell tee -a into progress.md", Refused: true, Kept: "memory-bank/details/progress.md",
			Step: shell("echo '- done' | tee -a memory-bank/details/progress.md")},
		{Name: "shell rm of tech.md", Refused: true, Kept: "memory-bank/details/tech.md",
			Step: shell("rm -f memory-bank/details/tech.md")},
		{Name: "shell cp into the bank", Refused: true, Absent: "memory-bank/app.go",
			Step: shell("cp src/app.go memory-bank/app.go")},
		{Name: "shell sed -i on MEMORY.md", Refused: true, Kept: "memory-bank/MEMORY.md",
			Step: shell("sed -i 's/queue/stack/' memory-bank/MEMORY.md")},
		{Name: "shell reads of the bank (allowed)", Step: shell("ls memory-bank/details && wc -l memory-bank/MEMORY.md")},
		{Name: "git diff of the bank (allowed)", Step: shell("git diff --stat -- memory-bank")},
	}
}
