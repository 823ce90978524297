package codex

import (
	"strings"
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// Codex writes only through apply_patch (a custom tool whose input is the patch text) and
// reads only through its shell tool, exec_command, which reaches hooks as Bash.

func addFile(path, body string) fakemodel.Step {
	return fakemodel.Custom("apply_patch", "*** Begin Patch\n*** Add File: "+path+"\n+"+body+"\n*** End Patch\n")
}

func patch(body string) fakemodel.Step {
	return fakemodel.Custom("apply_patch", "*** Begin Patch\n"+body+"*** End Patch\n")
}

func shell(cmd string) fakemodel.Step {
	return fakemodel.Call("exec_command", map[string]any{"cmd": cmd})
}

// TestCodexInjectsMemoryAndGuardsTheBank: MEMORY.md reaches the model once at session start,
// with the token planted in it redacted;
// then, in the same session, the ways Codex writes into the bank — patch adds, updates and
// moves, paths the model did not clean, shell redirects, copies and in-place edits — are refused with the reason
// in the tool result the model reads and nothing reaching the disk, while an allowed .md write
// into the bank goes through.
func TestCodexInjectsMemoryAndGuardsTheBank(t *testing.T) {
	shapes := []e2eproject.Shape{
		{Name: "apply_patch adding memory-bank/x.json", Refused: true, Says: "memory-bank/x.json", Absent: "memory-bank/x.json",
			Step: addFile("memory-bank/x.json", `{"a": 1}`)},
		{Name: "patch that edits the USER_BLOCK", Refused: true, Kept: "memory-bank/MEMORY.md",
			Step: patch("*** Update File: memory-bank/MEMORY.md\n@@\n-" + e2eproject.UserBlockLine + "\n+(edited by the agent)\n")},
		{Name: "patch that moves tech.md to a .json", Refused: true, Kept: "memory-bank/details/tech.md", Absent: "memory-bank/details/tech.json",
			Step: patch("*** Update File: memory-bank/details/tech.md\n*** Move to: memory-bank/details/tech.json\n@@\n-# Tech Stack\n+# Tech\n")},
		{Name: "patch adding a .json through src/..", Refused: true, Absent: "memory-bank/y.json",
			Step: addFile("src/../memory-bank/y.json", "{}")},
		{Name: "shell redirect from workdir memory-bank (the hook's cwd)", Refused: true, Absent: "memory-bank/wd.json",
			Step: fakemodel.Call("exec_command", map[string]any{"cmd": "echo '{}' > wd.json", "workdir": "memory-bank"})},
		{Name: "patch deleting MEMORY.md", Refused: true, Kept: "memory-bank/MEMORY.md",
			Step: patch("*** Delete File: memory-bank/MEMORY.md\n")},
		{Name: "patch adding a learnings .md that holds a token", Refused: true, Absent: "memory-bank/details/learnings/deploy.md",
			Step: addFile("memory-bank/details/learnings/deploy.md", "deploy with "+e2eproject.NewSecret())},
		{Name: "patch adding a learnings .md (allowed)", Present: "memory-bank/details/learnings/retries.md",
			Step: addFile("memory-bank/details/learnings/retries.md", "# Retries")},
		{Name: "patch editing a patterns.md convention (allowed)", Present: "memory-bank/details/patterns.md", Holds: e2eproject.NewConvention,
			Step: patch("*** Update File: memory-bank/details/patterns.md\n@@\n-" + e2eproject.ConventionLine + "\n+" + e2eproject.NewConvention + "\n")},
	}
	shapes = append(shapes, e2eproject.ShellShapes(shell)...)
	w := newWorld(t, e2eproject.Steps(shapes)...)
	w.install(t)
	secret := w.PlantSecret(t)
	kept := w.Snapshot(t, shapes)
	out := w.run(t, "tidy the memory bank")
	e2eproject.CheckMemoryInjected(t, w.model, out, secret)
	w.CheckShapes(t, w.model, shapes, kept, out)
}

// TestCodexRecoveryAfterCompaction forces a real auto-compaction (a tiny token limit and one
// turn that reports a large usage): Codex sends its compaction request, fires PreCompact,
// PostCompact and SessionStart(compact), and from then on a high-risk write is refused until
// every anchor is read again.
func TestCodexRecoveryAfterCompaction(t *testing.T) {
	big := shell("cat memory-bank/details/progress.md")
	big.Tokens = 200000
	w := newWorld(t,
		big,
		addFile("src/auth/token.go", "package auth // first"),
		shell("nl -ba memory-bank/MEMORY.md | sed -n '1,160p'"),
		shell("sed -n '1,200p' memory-bank/details/patterns.md"),
		shell("cat memory-bank/details/progress.md"),
		addFile("src/auth/token.go", "package auth // second"),
	)
	w.install(t)
	out := w.run(t, "add a token module", "-c", "model_auto_compact_token_limit=1000")

	if len(w.model.Summaries()) == 0 {
		t.Fatalf("Codex did not compact (no compaction request)\n%s\nrequests:\n%s", out, w.model.Log())
	}
	anchors := false
	for _, r := range w.model.Agent() {
		anchors = anchors || strings.Contains(r.Text(), e2eproject.AnchorLine)
	}
	if !anchors {
		t.Errorf("the anchor block (SessionStart source compact) never reached the model")
	}
	r := w.resultOf(t, 1, out)
	if !e2eproject.Contains(r, "[mbguard recovery gate] blocked", "memory-bank/MEMORY.md", "memory-bank/details/progress.md") {
		t.Errorf("the recovery gate's refusal naming the anchors did not reach the model; it got %q", r)
	}
	if !strings.Contains(w.File(t, "src/auth/token.go"), "// second") {
		t.Errorf("src/auth/token.go does not hold the write made after the anchors were read")
	}
	log := w.DecisionLog()
	if n := strings.Count(log, `"recovery":"armed"`); n != 1 {
		t.Errorf("recovery armed %d times in the decision log, want once:\n%s", n, log)
	}
	if !strings.Contains(log, `"recovery":"cleared"`) {
		t.Errorf("recovery was never cleared in the decision log:\n%s", log)
	}
}

// TestCodexReadGateWarnsByDefault: in the default warn mode the same high-risk write goes
// through, and the model is told what it should have read.
func TestCodexReadGateWarnsByDefault(t *testing.T) {
	w := newWorld(t, addFile("src/auth/token.go", "package auth"))
	w.install(t)
	out := w.run(t, "add a token module")
	if !w.Exists("src/auth/token.go") {
		t.Errorf("src/auth/token.go was not written in warn mode")
	}
	if r, ok := w.model.After(0); !ok || !e2eproject.Contains(r.Text(), "[mbguard read gate] warning", "memory-bank/details/patterns.md") {
		t.Errorf("the read gate's warning did not reach the model in the next turn\n%s", out)
	}
}

// TestCodexReadsCountPerMessage: reading patterns.md satisfies the read gate for the user
// message it was read in, not for the next one (Codex's UserPromptSubmit starts a message).
func TestCodexReadsCountPerMessage(t *testing.T) {
	w := newWorld(t,
		shell("sed -n '1,200p' memory-bank/details/patterns.md"),
		fakemodel.Say("Read."),
		// the resumed session's new message
		addFile("src/auth/token.go", "package auth"),
	)
	w.BlockMode(t)
	w.install(t)
	out := w.run(t, "read the patterns")
	out += w.resume(t, "now add a token module")

	if r := w.resultOf(t, 2, out); !e2eproject.Contains(r, "[mbguard read gate] blocked", "memory-bank/details/patterns.md") {
		t.Errorf("the read of the previous message satisfied this message's read gate; the write got %q", r)
	}
	if w.Exists("src/auth/token.go") {
		t.Errorf("src/auth/token.go was written in block mode without a read in this message")
	}
}
