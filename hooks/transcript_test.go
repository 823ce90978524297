package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capturedTranscript is a Claude Code 2.1.332 transcript captured with the real CLI against
// the fake model (test/e2e/claude, --permission-mode default, trimmed to the tool calls):
// toolu_1 (Bash with a redirect) and toolu_2 (Write) were refused before they ran, toolu_3
// (Bash `false`) ran and failed.
const capturedTranscript = "testdata/claude-transcript-denied.jsonl"

func TestClaudeFatesFromCapturedTranscript(t *testing.T) {
	fates := claudeFates(capturedTranscript, []string{"toolu_1", "toolu_2", "toolu_3", "toolu_9"})
	want := map[string]callFate{"toolu_1": fateNeverRan, "toolu_2": fateNeverRan, "toolu_3": fateRan, "toolu_9": fateUnknown}
	for id, f := range want {
		if fates[id] != f {
			t.Errorf("%s: fate %d, want %d", id, fates[id], f)
		}
	}
	// a transcript larger than the tail read: only its end is read, and a call recorded
	// there is still found
	big := filepath.Join(t.TempDir(), "big.jsonl")
	b, _ := os.ReadFile(capturedTranscript)
	pad := bytes.Repeat([]byte(`{"type":"progress","data":"`+strings.Repeat("x", 1000)+`"}`+"\n"), transcriptTail/1000+10)
	os.WriteFile(big, append(pad, b...), 0o644)
	if got := claudeFates(big, []string{"toolu_1"})["toolu_1"]; got != fateNeverRan {
		t.Errorf("in a large transcript: fate %d", got)
	}
	if got := claudeFates(filepath.Join(t.TempDir(), "none.jsonl"), []string{"toolu_1"})["toolu_1"]; got != fateUnknown {
		t.Errorf("without a transcript: fate %d", got)
	}
}

// transcriptLines returns the captured transcript's lines that record the calls ids.
func transcriptLines(t *testing.T, ids ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(capturedTranscript)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		for _, id := range ids {
			if bytes.Contains(line, []byte(`"`+id+`"`)) {
				out = append(append(out, line...), '\n')
				break
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no line for %v in %s", ids, capturedTranscript)
	}
	return out
}

// A call the user refused at Claude Code's permission prompt sends no hook event; its
// window stays open until the next event that closes every window. The transcript records
// the refusal, so a person's edit made after it stands — at the next user message and at
// Stop alike. The same call recorded as run (its result in the transcript) is judged as its
// own: the change in its window is undone.
func TestClaudeRefusedCallClaimsNothing(t *testing.T) {
	for _, tc := range []struct {
		name, id, closing string
		stands            bool
	}{
		{"refused, next prompt", "toolu_1", "UserPromptSubmit", true},
		{"refused, stop", "toolu_2", "Stop", true},
		{"ran, next prompt", "toolu_3", "UserPromptSubmit", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := bankRepo(t)
			h := newHookRun(t, root, nil)
			h.prompt("write the notes")
			input := map[string]any{"command": "echo hi > notes.txt", "description": "write notes"}
			if pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": tc.id}); pre.Exit != 0 {
				t.Fatalf("pre refused: %s", pre.Stderr)
			}
			os.WriteFile(filepath.Join(root, ".t.jsonl"), transcriptLines(t, tc.id), 0o600)
			human := "# Progress\nthe person's words\n"
			progress := filepath.Join(root, "memory-bank/details/progress.md")
			os.WriteFile(progress, []byte(human), 0o644)
			switch tc.closing {
			case "Stop":
				h.call("Stop", map[string]any{"stop_hook_active": false})
			default:
				h.prompt("no, do it differently")
			}
			bashCall(t, h, "toolu_next", "true")
			b, _ := os.ReadFile(progress)
			if stands := string(b) == human; stands != tc.stands {
				t.Errorf("progress.md = %q; the person's edit stands: %v, want %v", b, stands, tc.stands)
			}
		})
	}
}

// A call whose fate no record tells (the transcript does not name it) claims nothing when
// its window closes: what changed in it is kept, and a change that breaks a rule is reported
// with the next call, not undone.
func TestClaudeUnprovenCallKeepsAndReports(t *testing.T) {
	root := bankRepo(t)
	h := newHookRun(t, root, nil)
	h.prompt("tidy up")
	input := map[string]any{"command": "make tidy", "description": "tidy"}
	if pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_x"}); pre.Exit != 0 {
		t.Fatalf("pre refused: %s", pre.Stderr)
	}
	os.WriteFile(filepath.Join(root, ".t.jsonl"), transcriptLines(t, "toolu_3"), 0o600) // another call's result only
	stray := filepath.Join(root, "memory-bank/notes.json")
	os.WriteFile(stray, []byte("{}\n"), 0o644)
	h.prompt("thanks")
	input = map[string]any{"command": "true", "description": "next"}
	pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_y"})
	if b, err := os.ReadFile(stray); err != nil || string(b) != "{}\n" {
		t.Errorf("notes.json = %q, %v: undone without evidence", b, err)
	}
	if text := string(pre.Stdout) + pre.Stderr; !strings.Contains(text, "memory-bank/notes.json") {
		t.Errorf("the kept change was not reported: %s", text)
	}
}

// BenchmarkClaudeFates is what a new user message costs when a call of the session is still
// open without its post: the tail of a transcript larger than the bound, read and searched
// for the open calls. Baseline: reading the same tail alone (BenchmarkTranscriptTailRead).
func BenchmarkClaudeFates(b *testing.B) {
	path := bigTranscript(b)
	ids := []string{"toolu_1", "toolu_9"}
	for b.Loop() {
		claudeFates(path, ids)
	}
}

func BenchmarkTranscriptTailRead(b *testing.B) {
	path := bigTranscript(b)
	for b.Loop() {
		readTail(path, transcriptTail)
	}
}

// bigTranscript is the captured transcript after 4 MiB of other lines of a session.
func bigTranscript(b *testing.B) string {
	b.Helper()
	tail, err := os.ReadFile(capturedTranscript)
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("x", 2000) + `"}]}}` + "\n")
	body := append(bytes.Repeat(line, (4<<20)/len(line)), tail...)
	p := filepath.Join(b.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, body, 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}
