package gemini

import (
	"strings"
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// Gemini CLI's tools as --yolo offers them: write_file, replace, run_shell_command, read_file.

func writeFile(path, content string) fakemodel.Step {
	return fakemodel.Call("write_file", map[string]any{"file_path": path, "content": content})
}

func readFile(path string) fakemodel.Step {
	return fakemodel.Call("read_file", map[string]any{"file_path": path})
}

func shell(cmd string) fakemodel.Step {
	return fakemodel.Call("run_shell_command", map[string]any{"command": cmd, "description": "scripted"})
}

// TestGeminiInjectsMemoryAndGuardsTheBank: MEMORY.md reaches the model once at session start,
// with the token planted in it redacted;
// then, in the same session, the ways Gemini CLI writes into the bank — write_file, replace,
// absolute and uncleaned paths, shell redirects, copies and in-place edits — are refused with the reason
// in the tool result the model reads and nothing reaching the disk, while an allowed .md write
// into the bank goes through.
func TestGeminiInjectsMemoryAndGuardsTheBank(t *testing.T) {
	w := newWorld(t)
	shapes := []e2eproject.Shape{
		{Name: "write_file of memory-bank/x.json", Refused: true, Says: "memory-bank/x.json", Absent: "memory-bank/x.json",
			Step: writeFile("memory-bank/x.json", "{\"a\": 1}\n")},
		{Name: "replace in the USER_BLOCK", Refused: true, Kept: "memory-bank/MEMORY.md",
			Step: fakemodel.Call("replace", map[string]any{"file_path": "memory-bank/MEMORY.md", "instruction": "reword the notes",
				"old_string": e2eproject.UserBlockLine, "new_string": "(edited by the agent)"})},
		{Name: "write_file of a .yaml by absolute path", Refused: true, Absent: "memory-bank/notes.yaml",
			Step: writeFile(w.Abs("memory-bank/notes.yaml"), "a: 1\n")},
		{Name: "write_file of a .json through src/..", Refused: true, Absent: "memory-bank/y.json",
			Step: writeFile("src/../memory-bank/y.json", "{}\n")},
		{Name: "shell redirect with dir_path memory-bank", Refused: true, Absent: "memory-bank/wd.json",
			Step: fakemodel.Call("run_shell_command", map[string]any{"command": "echo '{}' > wd.json", "description": "scripted", "dir_path": "memory-bank"})},
		{Name: "write_file of a learnings .md that holds a token", Refused: true, Absent: "memory-bank/details/learnings/deploy.md",
			Step: writeFile("memory-bank/details/learnings/deploy.md", "# Deploy\n\nuse "+e2eproject.NewSecret()+"\n")},
		{Name: "write_file of a learnings .md (allowed)", Present: "memory-bank/details/learnings/retries.md",
			Step: writeFile("memory-bank/details/learnings/retries.md", "# Retries\n\n- go through the queue\n")},
		{Name: "replace of a patterns.md convention (allowed)", Present: "memory-bank/details/patterns.md", Holds: e2eproject.NewConvention,
			Step: fakemodel.Call("replace", map[string]any{"file_path": "memory-bank/details/patterns.md", "instruction": "record the convention",
				"old_string": e2eproject.ConventionLine, "new_string": e2eproject.NewConvention})},
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

// TestGeminiRecoveryAfterResumedCompression: Gemini CLI has no hook that says a compression
// happened (PreCompress fires before every model call), and it compresses only at a real user
// message — in practice when a session is resumed. So mbguard treats a resume as a compaction.
// Run 1 reads progress.md; run 2 resumes it with a tiny compression threshold, Gemini CLI
// really compresses the history, and a high-risk write is refused until the anchors are read.
func TestGeminiRecoveryAfterResumedCompression(t *testing.T) {
	w := newWorld(t,
		readFile("memory-bank/details/progress.md"),
		fakemodel.Say("Read it."),
		// run 2
		writeFile("src/auth/token.go", "package auth // first\n"),
		readFile("memory-bank/MEMORY.md"),
		readFile("memory-bank/details/patterns.md"),
		readFile("memory-bank/details/progress.md"),
		writeFile("src/auth/token.go", "package auth // second\n"),
	)
	// A user setting install must keep: it makes Gemini CLI compress the resumed history.
	w.Write(t, ".gemini/settings.json", `{"model":{"compressionThreshold":0.000001}}`+"\n")
	w.install(t)
	if !strings.Contains(w.File(t, ".gemini/settings.json"), "compressionThreshold") {
		t.Fatalf("install dropped the user's own setting from .gemini/settings.json:\n%s", w.File(t, ".gemini/settings.json"))
	}
	out := w.run(t, "what is the progress?")
	if n := len(w.model.Summaries()); n != 0 {
		t.Fatalf("Gemini CLI compressed in the first run already (%d summary requests)\n%s", n, w.model.Log())
	}
	out += w.run(t, "now add a token module", "--resume", "latest")

	if len(w.model.Summaries()) == 0 {
		t.Fatalf("Gemini CLI did not compress the resumed session (no :generateContent summary request)\n%s\nrequests:\n%s", out, w.model.Log())
	}
	anchors := false
	for _, r := range w.model.Agent() {
		anchors = anchors || strings.Contains(r.Text(), e2eproject.AnchorLine)
	}
	if !anchors {
		t.Errorf("the anchor block (SessionStart source resume) never reached the model")
	}
	if r := w.resultOf(t, 2, out); !e2eproject.Contains(r, "[mbguard recovery gate] blocked", "memory-bank/MEMORY.md") {
		t.Errorf("the recovery gate's refusal naming the anchors did not reach the model; it got %q", r)
	}
	if !strings.Contains(w.File(t, "src/auth/token.go"), "// second") {
		t.Errorf("src/auth/token.go does not hold the write made after the anchors were read")
	}
	log := w.DecisionLog()
	if !strings.Contains(log, `"recovery":"armed"`) || !strings.Contains(log, `"recovery":"cleared"`) {
		t.Errorf("recovery was not armed and then cleared in the decision log:\n%s", log)
	}
}

// TestGeminiReadGateWarnsByDefault: in the default warn mode the same high-risk write goes
// through, and the model is told what it should have read (BeforeTool cannot add context on
// this host, so the warning comes with AfterTool).
func TestGeminiReadGateWarnsByDefault(t *testing.T) {
	w := newWorld(t, writeFile("src/auth/token.go", "package auth\n"))
	w.install(t)
	out := w.run(t, "add a token module")
	if !w.Exists("src/auth/token.go") {
		t.Errorf("src/auth/token.go was not written in warn mode")
	}
	if r, ok := w.model.After(0); !ok || !e2eproject.Contains(r.Text(), "[mbguard read gate] warning", "memory-bank/details/patterns.md") {
		t.Errorf("the read gate's warning did not reach the model in the next turn\n%s", out)
	}
}
