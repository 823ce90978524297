package qwen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

func TestMain(m *testing.M) { e2eproject.Main(m) }

// qwenEntry finds Qwen Code's bundled entry point; missing, it fails under CI and skips elsewhere.
func qwenEntry(t *testing.T) string {
	t.Helper()
	return testhost.HostBinary(t, "Qwen Code (@qwen-code/qwen-code@0.24.4)", "@qwen-code/qwen-code/cli-entry.js")
}

type world struct {
	*e2eproject.Project
	node  string
	entry string
	model *fakemodel.Server
}

func newWorld(t *testing.T) *world {
	t.Helper()
	testhost.Short(t, "real Qwen Code runs")
	w := &world{Project: e2eproject.New(t), node: testhost.Tool(t, "node", "install Node.js 20"), entry: qwenEntry(t)}
	w.model = fakemodel.Start(t, fakemodel.Chat)
	// user settings: OpenAI auth against the fake, no folder trust step, nothing phoning home
	settings := `{"security":{"auth":{"selectedType":"openai"},"folderTrust":{"enabled":false}},` +
		`"general":{"enableAutoUpdate":false},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}`
	if err := os.MkdirAll(filepath.Join(w.Home, ".qwen"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Home, ".qwen", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) run(t *testing.T, prompt string, env ...string) string {
	t.Helper()
	base := []string{"OPENAI_API_KEY=sk-fake", "OPENAI_BASE_URL=" + w.model.URL + "/v1", "OPENAI_MODEL=qwen3-coder-plus",
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}
	out := w.Run(t, 90*time.Second, append(base, env...), w.node, w.entry, "--yolo", "--auth-type", "openai", "-p", prompt)
	t.Logf("fake model requests:\n%s", w.model.Log())
	return out
}

func writeFile(path, content string) fakemodel.Step {
	return fakemodel.Call("write_file", map[string]any{"file_path": path, "content": content})
}

func shell(cmd string) fakemodel.Step {
	return fakemodel.Call("run_shell_command", map[string]any{"command": cmd, "description": "scripted"})
}

// TestQwenInjectsMemoryAndGuardsTheBank: MEMORY.md reaches the model at session start; a
// non-.md write into the bank (absolute path: Qwen's file tools take no other) and a shell
// write are refused with the reason in the tool result the model reads, nothing on disk; a
// learnings .md goes through.
func TestQwenInjectsMemoryAndGuardsTheBank(t *testing.T) {
	w := newWorld(t)
	shapes := []e2eproject.Shape{
		{Name: "write_file of memory-bank/x.json", Refused: true, Says: "memory-bank/x.json", Absent: "memory-bank/x.json",
			Step: writeFile(w.Abs("memory-bank/x.json"), "{\"a\": 1}\n")},
		{Name: "write_file of a learnings .md (allowed)", Present: "memory-bank/details/learnings/retries.md",
			Step: writeFile(w.Abs("memory-bank/details/learnings/retries.md"), "# Retries\n\n- go through the queue\n")},
	}
	shapes = append(shapes, e2eproject.ShellShapes(shell)...)
	w.model.Script(e2eproject.Steps(shapes)...)
	if out := w.Install(t, "qwen"); !strings.Contains(w.File(t, ".qwen/settings.json"), "mbguard-hook hook qwen") {
		t.Fatalf("install wrote no hook:\n%s", out)
	}
	secret := w.PlantSecret(t)
	kept := w.Snapshot(t, shapes)
	out := w.run(t, "tidy the memory bank")
	e2eproject.CheckMemoryInjected(t, w.model, out, secret)
	w.CheckShapes(t, w.model, shapes, kept, out)
}

func readFile(path string) fakemodel.Step {
	return fakemodel.Call("read_file", map[string]any{"file_path": path})
}

// TestQwenRecoveryAfterCompaction: one turn reports 900k prompt tokens (qwen3-coder-plus
// compacts past min(0.85 × 1M, 1M − 33k)), Qwen asks for its <state_snapshot> summary and
// fires PreCompact and SessionStart(compact); a high-risk write is then refused naming the
// anchors until they are read, then allowed; the decision log shows armed once and cleared.
func TestQwenRecoveryAfterCompaction(t *testing.T) {
	w := newWorld(t)
	big := readFile(w.Abs("memory-bank/details/progress.md"))
	big.Tokens = 900000
	w.model.Script(
		big,
		writeFile(w.Abs("src/auth/token.go"), "package auth // first\n"),
		readFile(w.Abs("memory-bank/MEMORY.md")),
		readFile(w.Abs("memory-bank/details/patterns.md")),
		readFile(w.Abs("memory-bank/details/progress.md")),
		writeFile(w.Abs("src/auth/token.go"), "package auth // second\n"),
	)
	w.Install(t, "qwen")
	out := w.run(t, "add a token module")

	if len(w.model.Summaries()) == 0 {
		t.Fatalf("Qwen Code did not compact (no summary request)\n%s\nrequests:\n%s", out, w.model.Log())
	}
	if r := e2eproject.Result(t, w.model, 1, out); !e2eproject.Contains(r, "[mbguard recovery gate] blocked", "memory-bank/MEMORY.md") {
		t.Errorf("the recovery gate's refusal naming the anchors did not reach the model; it got %q", r)
	}
	if !w.Exists("src/auth/token.go") || !strings.Contains(w.File(t, "src/auth/token.go"), "// second") {
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
