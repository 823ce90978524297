package copilot

import (
	"os"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// Copilot CLI's tools with a Claude model: create, edit, view, bash; with a GPT model it writes
// through apply_patch, a custom tool whose hook payload carries the patch text as toolArgs.

func create(path, text string) fakemodel.Step {
	return fakemodel.Call("create", map[string]any{"path": path, "file_text": text})
}

func view(path string) fakemodel.Step {
	return fakemodel.Call("view", map[string]any{"path": path})
}

func shell(cmd string) fakemodel.Step {
	return fakemodel.Call("bash", map[string]any{"command": cmd, "description": "scripted"})
}

// TestCopilotInjectsMemoryAndGuardsTheBank: MEMORY.md reaches the model once at session start,
// with the token planted in it redacted;
// then, in the same session, the ways Copilot CLI writes into the bank — create, edit by absolute
// path, uncleaned paths, shell redirects, copies and in-place edits — are refused with the reason
// in the tool result the model reads and nothing reaching the disk, while an allowed .md write
// into the bank goes through.
func TestCopilotInjectsMemoryAndGuardsTheBank(t *testing.T) {
	w := newWorld(t)
	shapes := []e2eproject.Shape{
		{Name: "create of memory-bank/x.json", Refused: true, Says: "memory-bank/x.json", Absent: "memory-bank/x.json",
			Step: create("memory-bank/x.json", "{\"a\": 1}\n")},
		{Name: "edit in the USER_BLOCK by absolute path", Refused: true, Kept: "memory-bank/MEMORY.md",
			Step: fakemodel.Call("edit", map[string]any{"path": w.Abs("memory-bank/MEMORY.md"),
				"old_str": e2eproject.UserBlockLine, "new_str": "(edited by the agent)"})},
		{Name: "create of a .yaml by absolute path", Refused: true, Absent: "memory-bank/notes.yaml",
			Step: create(w.Abs("memory-bank/notes.yaml"), "a: 1\n")},
		{Name: "create of a .json through src/..", Refused: true, Absent: "memory-bank/y.json",
			Step: create("src/../memory-bank/y.json", "{}\n")},
		{Name: "create of a learnings .md that holds a token", Refused: true, Absent: "memory-bank/details/learnings/deploy.md",
			Step: create("memory-bank/details/learnings/deploy.md", "# Deploy\n\nuse "+e2eproject.NewSecret()+"\n")},
		{Name: "create of a learnings .md (allowed)", Present: "memory-bank/details/learnings/retries.md",
			Step: create("memory-bank/details/learnings/retries.md", "# Retries\n\n- go through the queue\n")},
		{Name: "edit of a patterns.md convention (allowed)", Present: "memory-bank/details/patterns.md", Holds: e2eproject.NewConvention,
			Step: fakemodel.Call("edit", map[string]any{"path": "memory-bank/details/patterns.md",
				"old_str": e2eproject.ConventionLine, "new_str": e2eproject.NewConvention})},
	}
	shapes = append(shapes, e2eproject.ShellShapes(shell)...)
	w.model.Script(e2eproject.Steps(shapes)...)
	w.install(t)
	secret := w.PlantSecret(t)
	kept := w.Snapshot(t, shapes)
	out := w.run(t, "tidy the memory bank")
	e2eproject.CheckMemoryInjected(t, w.model, out, secret)
	w.CheckShapes(t, w.model, shapes, kept, out)
}

// TestCopilotGPTApplyPatch runs a GPT model, for which Copilot CLI offers apply_patch instead
// of create/edit, and the hook's toolArgs is the patch as a string: the bank guard and the read
// gate (block mode) hold there too.
func TestCopilotGPTApplyPatch(t *testing.T) {
	add := func(path, line string) fakemodel.Step {
		return fakemodel.Custom("apply_patch", "*** Begin Patch\n*** Add File: "+path+"\n+"+line+"\n*** End Patch\n")
	}
	w := newWorld(t,
		add("memory-bank/x.json", `{"a": 1}`),
		add("src/auth/token.go", "package auth // first"),
		view("memory-bank/details/patterns.md"),
		add("src/auth/token.go", "package auth // second"),
	)
	w.BlockMode(t)
	w.install(t)
	out := w.run(t, "add a token module", "COPILOT_MODEL=gpt-5.4")

	if w.Exists("memory-bank/x.json") {
		t.Errorf("memory-bank/x.json was created by apply_patch despite the bank guard")
	}
	if r := w.resultOf(t, 0, out); !e2eproject.Contains(r, "[mbguard bank] blocked", "memory-bank/x.json") {
		t.Errorf("the refusal of the apply_patch into memory-bank/x.json did not reach the model; it got %q", r)
	}
	if r := w.resultOf(t, 1, out); !e2eproject.Contains(r, "[mbguard read gate] blocked", "memory-bank/details/patterns.md") {
		t.Errorf("the read gate's refusal of the apply_patch into src/auth did not reach the model; it got %q", r)
	}
	if !strings.Contains(w.File(t, "src/auth/token.go"), "// second") {
		t.Errorf("src/auth/token.go does not hold the apply_patch made after reading patterns.md")
	}
}

// TestCopilotRecoveryAfterCompaction forces a real auto-compaction: a small provider prompt
// limit and one turn that reports 98 % of it. Copilot CLI fires preCompact and waits for the
// hook before its next request; from then on a high-risk write is refused until every anchor
// is read again.
func TestCopilotRecoveryAfterCompaction(t *testing.T) {
	big := view("memory-bank/details/progress.md")
	big.Tokens = 29500
	w := newWorld(t,
		big,
		create("src/auth/token.go", "package auth // first\n"),
		view("memory-bank/MEMORY.md"),
		view("memory-bank/details/patterns.md"),
		view("memory-bank/details/progress.md"),
		create("src/auth/token.go", "package auth // second\n"),
	)
	w.install(t)
	out := w.run(t, "add a token module", "COPILOT_PROVIDER_MAX_PROMPT_TOKENS=30000")

	// Copilot CLI summarises in the background after preCompact: in a short run the summary
	// request may still be on its way when the run ends, so preCompact arming recovery (the
	// decision log) counts as the compaction too.
	if len(w.model.Summaries()) == 0 && !strings.Contains(w.DecisionLog(), `"recovery":"armed"`) {
		t.Fatalf("Copilot CLI did not compact (no summary request, no preCompact)\n%s\nrequests:\n%s", out, w.model.Log())
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

// TestCopilotPascalCaseDialect: a hook file written with the PascalCase (VS Code compatible)
// event names makes Copilot CLI send snake_case payloads with Claude tool names (create →
// Write, bash → Bash) and read Claude-style replies. The installed file is rewritten to that
// dialect, as a user sharing one hook file with VS Code would have it.
func TestCopilotPascalCaseDialect(t *testing.T) {
	w := newWorld(t,
		create("memory-bank/x.json", "{\"a\": 1}\n"),
		shell("echo '- done' >> memory-bank/details/progress.md"),
	)
	w.install(t)
	entries, _ := os.ReadDir(w.Abs(".github/hooks"))
	for _, e := range entries {
		rel := ".github/hooks/" + e.Name()
		body := w.File(t, rel)
		for _, ev := range []string{"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUseFailure", "postToolUse", "preCompact", "sessionEnd"} {
			pascal := strings.ToUpper(ev[:1]) + ev[1:]
			if ev == "userPromptSubmitted" {
				pascal = "UserPromptSubmit"
			}
			body = strings.ReplaceAll(body, `"`+ev+`"`, `"`+pascal+`"`)
			body = strings.ReplaceAll(body, " "+ev+`"`, " "+pascal+`"`)
		}
		if strings.Contains(body, `"preToolUse"`) || !strings.Contains(body, `"PreToolUse"`) {
			t.Fatalf("%s was not rewritten to the PascalCase dialect:\n%s", rel, body)
		}
		w.Write(t, rel, body)
	}
	progress := w.File(t, "memory-bank/details/progress.md")
	out := w.run(t, "note the progress")

	e2eproject.CheckMemoryInjected(t, w.model, out, "")
	if w.Exists("memory-bank/x.json") {
		t.Errorf("memory-bank/x.json was created despite the bank guard")
	}
	if r := w.resultOf(t, 0, out); !e2eproject.Contains(r, "[mbguard bank] blocked", "memory-bank/x.json") {
		t.Errorf("the refusal of create (Write in this dialect) did not reach the model; it got %q", r)
	}
	if got := w.File(t, "memory-bank/details/progress.md"); got != progress {
		t.Errorf("the shell redirect reached progress.md:\n%s", got)
	}
	if r := w.resultOf(t, 1, out); !e2eproject.Contains(r, "[mbguard bank] blocked") {
		t.Errorf("the refusal of the shell write did not reach the model; it got %q", r)
	}
}

// TestCopilotReadGateWarnsByDefault: in the default warn mode the same high-risk write goes
// through, and the model is told what it should have read.
func TestCopilotReadGateWarnsByDefault(t *testing.T) {
	w := newWorld(t, create("src/auth/token.go", "package auth\n"))
	w.install(t)
	out := w.run(t, "add a token module")
	if !w.Exists("src/auth/token.go") {
		t.Errorf("src/auth/token.go was not written in warn mode")
	}
	if r, ok := w.model.After(0); !ok || !e2eproject.Contains(r.Text(), "[mbguard read gate] warning", "memory-bank/details/patterns.md") {
		t.Errorf("the read gate's warning did not reach the model in the next turn\n%s", out)
	}
}
