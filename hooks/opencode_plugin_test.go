//go:build unix

package hooks

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/scanner"
)

// harnessStep is one hook call for testdata/opencode/harness.mjs.
type harnessStep struct {
	Hook        string         `json:"hook"`
	Input       map[string]any `json:"input"`
	Output      map[string]any `json:"output,omitempty"`
	KillChild   bool           `json:"killChild,omitempty"`
	KillAfterMs int            `json:"killAfterMs,omitempty"`
	SleepMs     int            `json:"sleepMs,omitempty"`
}

type harnessResult struct {
	Hook    string         `json:"hook"`
	Threw   bool           `json:"threw"`
	Message string         `json:"message"`
	Output  map[string]any `json:"output"`
}

func nodeBinary(t *testing.T) string {
	t.Helper()
	return testhost.Tool(t, "node", "install Node.js 20")
}

// runHarness installs the plugin into dir the way users get it and replays steps against it.
func runHarness(t *testing.T, dir string, env []string, steps []harnessStep) []harnessResult {
	t.Helper()
	node := nodeBinary(t)
	if _, err := InstallOpenCode(InstallOptions{Root: dir, Binary: "mbguard"}); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(steps)
	stepsFile := filepath.Join(t.TempDir(), "steps.json")
	os.WriteFile(stepsFile, b, 0o644)
	harness, _ := filepath.Abs("testdata/opencode/harness.mjs")
	cmd := exec.Command(node, harness, OpenCodePluginPath(InstallOptions{Root: dir}), dir, stepsFile)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("harness: %v\n%s", err, out)
	}
	var res []harnessResult
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r harnessResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("harness printed %q: %v\n%s", l, err, out)
		}
		res = append(res, r)
	}
	if len(res) != len(steps) {
		t.Fatalf("harness ran %d of %d steps:\n%s", len(res), len(steps), out)
	}
	return res
}

func pids(t *testing.T, file string) []int {
	t.Helper()
	b, _ := os.ReadFile(file)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		var p int
		json.Unmarshal([]byte(f), &p)
		out = append(out, p)
	}
	return out
}

func before(session, call, tool string, args map[string]any) harnessStep {
	return harnessStep{Hook: "tool.execute.before", Input: map[string]any{"tool": tool, "sessionID": session, "callID": call}, Output: map[string]any{"args": args}}
}

func after(session, call, tool string, args map[string]any) harnessStep {
	return harnessStep{Hook: "tool.execute.after", Input: map[string]any{"tool": tool, "sessionID": session, "callID": call, "args": args}, Output: map[string]any{"output": "tool said ok"}}
}

// TestOpenCodePluginFailSafe runs the real plugin file under Node with a child that hangs,
// answers garbage or dies, and checks the fail-safe answers of SPEC §4.
func TestOpenCodePluginFailSafe(t *testing.T) {
	write := map[string]any{"filePath": "src/a.ts", "content": "x"}
	read := map[string]any{"filePath": "README.md"}
	cases := []struct {
		name  string
		env   []string
		steps []harnessStep
		// wantStarts is how many child starts to wait for before checking.
		wantStarts int
		check      func(t *testing.T, res []harnessResult, pidList []int)
	}{
		{
			name:  "timeout in warn mode allows with a warning",
			env:   []string{"FAKE_MODE=hang"},
			steps: []harnessStep{before("s", "c1", "write", write), after("s", "c1", "write", write)},
			check: func(t *testing.T, res []harnessResult, _ []int) {
				if res[0].Threw {
					t.Errorf("write blocked in warn mode: %s", res[0].Message)
				}
				if o, _ := res[1].Output["output"].(string); !strings.Contains(o, "gate is unavailable") || !strings.HasPrefix(o, "tool said ok") {
					t.Errorf("tool output = %q, want the original output and a warning", o)
				}
			},
		},
		{
			name: "timeout in block mode blocks writes only",
			env:  []string{"FAKE_MODE=hang", "FAKE_ANSWER=1", "FAKE_GATE_MODE=block"},
			steps: []harnessStep{
				{Hook: "chat.message", Input: map[string]any{"sessionID": "s"}, Output: map[string]any{"message": map[string]any{"id": "m1"}, "parts": []any{}}},
				before("s", "c1", "write", write),
				// during the restart backoff: the plugin answers alone, from the last mode it saw
				{Hook: "tool.execute.before", Input: map[string]any{"tool": "bash", "sessionID": "s", "callID": "c2"}, Output: map[string]any{"args": map[string]any{"command": "ls"}}},
				before("s", "c3", "read", read),
			},
			check: func(t *testing.T, res []harnessResult, _ []int) {
				if res[0].Threw {
					t.Fatalf("chat.message threw: %s", res[0].Message)
				}
				for _, i := range []int{1, 2} {
					if !res[i].Threw || !strings.Contains(res[i].Message, "in block mode") {
						t.Errorf("step %d: threw=%v %q, want a block naming block mode", i, res[i].Threw, res[i].Message)
					}
				}
				if res[3].Threw {
					t.Errorf("a read was blocked: %s", res[3].Message)
				}
			},
		},
		{
			name:  "garbage answers fail safe",
			env:   []string{"FAKE_MODE=garbage"},
			steps: []harnessStep{before("s", "c1", "edit", write), after("s", "c1", "edit", write)},
			check: func(t *testing.T, res []harnessResult, _ []int) {
				if res[0].Threw {
					t.Errorf("blocked in warn mode: %s", res[0].Message)
				}
				if o, _ := res[1].Output["output"].(string); !strings.Contains(o, "gate is unavailable") {
					t.Errorf("tool output = %q, want a warning", o)
				}
			},
		},
		{
			name:       "a hung child is killed and restarted after backoff",
			env:        []string{"FAKE_MODE=hang"},
			wantStarts: 2,
			steps: []harnessStep{
				before("s", "c1", "write", write),
				{SleepMs: 400, Hook: "tool.execute.before", Input: map[string]any{"tool": "write", "sessionID": "s", "callID": "c2"}, Output: map[string]any{"args": write}},
			},
			check: func(t *testing.T, _ []harnessResult, pidList []int) {
				if len(pidList) != 2 {
					t.Fatalf("child started %d times, want 2", len(pidList))
				}
				if err := syscall.Kill(pidList[0], 0); err == nil {
					t.Errorf("the hung child %d is still running", pidList[0])
				}
			},
		},
		{
			name:       "a child that dies at once is retried with backoff",
			env:        []string{"FAKE_MODE=die"},
			wantStarts: 2,
			steps: []harnessStep{
				before("s", "c1", "bash", map[string]any{"command": "echo hi > x"}),
				before("s", "c2", "bash", map[string]any{"command": "echo hi > x"}),
				{SleepMs: 400, Hook: "tool.execute.before", Input: map[string]any{"tool": "read", "sessionID": "s", "callID": "c3"}, Output: map[string]any{"args": read}},
			},
			check: func(t *testing.T, res []harnessResult, pidList []int) {
				for i, r := range res {
					if r.Threw {
						t.Errorf("step %d blocked in warn mode: %s", i, r.Message)
					}
				}
				if len(pidList) < 2 || len(pidList) > 3 {
					t.Errorf("child started %d times, want a retry after backoff but no spin", len(pidList))
				}
			},
		},
	}
	fake, _ := filepath.Abs("testdata/opencode/fakechild.mjs")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pids")
			env := append([]string{"MBGUARD_BIN=" + fake, "MBGUARD_TIMEOUT_MS=1500", "FAKE_PIDS=" + pidFile}, c.env...)
			res := runHarness(t, dir, env, c.steps)
			// A restarted child records its pid once node has started, which on a loaded
			// machine can be after the harness returned: wait for the starts the case expects.
			pl := pids(t, pidFile)
			for deadline := time.Now().Add(10 * time.Second); len(pl) < c.wantStarts && time.Now().Before(deadline); pl = pids(t, pidFile) {
				time.Sleep(50 * time.Millisecond)
			}
			c.check(t, res, pl)
		})
	}
}

// TestOpenCodePluginChildKilled SIGKILLs the real mbguard serve child mid-session: the plugin
// restarts it, the restarted child still knows the armed recovery, and no state file is corrupt.
func TestOpenCodePluginChildKilled(t *testing.T) {
	nodeBinary(t)
	binDir := buildMbguard(t)
	wrapper := filepath.Join(binDir, "mbguard-wrapper")
	os.WriteFile(wrapper, []byte("#!/bin/sh\necho $$ >> \"$FAKE_PIDS\"\nexec "+filepath.Join(binDir, "mbguard")+" \"$@\"\n"), 0o755)

	dir := testgit.New(t)
	testgit.Write(t, dir, "memory-bank/MEMORY.md", "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n## Current Focus\n- x\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
	testgit.Write(t, dir, "memory-bank/details/patterns.md", "# P\n")
	pidFile := filepath.Join(dir, ".git", "pids")
	risky := map[string]any{"filePath": "src/auth/login.ts", "content": "x"}
	steps := []harnessStep{
		{Hook: "chat.message", Input: map[string]any{"sessionID": "s"}, Output: map[string]any{"message": map[string]any{"id": "m1"}, "parts": []any{}}},
		{Hook: "experimental.session.compacting", Input: map[string]any{"sessionID": "s"}, Output: map[string]any{"context": []any{}}},
		{Hook: "tool.execute.before", Input: map[string]any{"tool": "write", "sessionID": "s", "callID": "c1"}, Output: map[string]any{"args": risky}, KillChild: true, KillAfterMs: 0},
		{SleepMs: 400, Hook: "tool.execute.before", Input: map[string]any{"tool": "write", "sessionID": "s", "callID": "c2"}, Output: map[string]any{"args": risky}},
	}
	res := runHarness(t, dir, []string{"MBGUARD_BIN=" + wrapper, "FAKE_PIDS=" + pidFile, "MBGUARD_TIMEOUT_MS=2000"}, steps)
	if ctx, _ := res[1].Output["context"].([]any); len(ctx) != 1 || !strings.Contains(ctx[0].(string), "<memory-bank-anchors>") {
		t.Fatalf("compaction context = %v, want the anchor block once", res[1].Output["context"])
	}
	if !res[2].Threw {
		t.Errorf("the write during the kill went through; recovery is armed, want it blocked")
	}
	if !res[3].Threw || !strings.Contains(res[3].Message, "recovery") {
		t.Errorf("after the restart: threw=%v %q, want the recovery gate", res[3].Threw, res[3].Message)
	}
	if p := pids(t, pidFile); len(p) != 2 {
		t.Errorf("mbguard serve started %d times, want a restart (2)", len(p))
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".git", "mbguard", "sessions", "*"))
	if len(files) == 0 {
		t.Fatal("no session state persisted")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if !json.Valid(b) {
			t.Errorf("state file %s is corrupt: %q", f, b)
		}
	}
}

// buildMbguard builds the real CLI for the plugin to start, before any test moves HOME (so the
// build uses the warm Go cache).
func buildMbguard(t *testing.T) string {
	t.Helper()
	binDir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "mbguard"), "../cmd/mbguard")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building mbguard: %v\n%s", err, out)
	}
	return binDir
}

// TestOpenCodePluginAttachedFile: a file attached with @ to the user's message counts as read,
// through the plugin's chat.message mapping and the real serve child.
func TestOpenCodePluginAttachedFile(t *testing.T) {
	nodeBinary(t)
	bin := filepath.Join(buildMbguard(t), "mbguard")
	dir := testgit.New(t)
	testgit.Write(t, dir, "memory-bank/MEMORY.md", "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
	testgit.Write(t, dir, "memory-bank/details/patterns.md", "# P\n")
	risky := map[string]any{"filePath": "src/auth/login.ts", "content": "x"}
	msg := func(id string, parts []any) harnessStep {
		return harnessStep{Hook: "chat.message", Input: map[string]any{"sessionID": "s"}, Output: map[string]any{"message": map[string]any{"id": id}, "parts": parts}}
	}
	res := runHarness(t, dir, []string{"MBGUARD_BIN=" + bin, "MEMORY_BANK_GUARD_MODE=block"}, []harnessStep{
		msg("m1", []any{map[string]any{"type": "text", "text": "fix login"}}),
		before("s", "c1", "write", risky),
		msg("m2", []any{map[string]any{"type": "text", "text": "see"}, map[string]any{"type": "file", "mime": "text/plain", "filename": "patterns.md", "url": "file://" + filepath.Join(dir, "memory-bank/details/patterns.md")}}),
		before("s", "c2", "write", risky),
	})
	if !res[1].Threw || !strings.Contains(res[1].Message, "read gate") {
		t.Errorf("write without reading: threw=%v %q, want the read gate", res[1].Threw, res[1].Message)
	}
	if res[3].Threw {
		t.Errorf("write after @patterns.md was blocked: %s", res[3].Message)
	}
}

// TestOpenCodePluginRedactsBankSecret: the output of a read (read tool, cat) of a bank file
// holding a secret reaches the model with the secret replaced and told where it is, through
// the plugin's tool.execute.after and the real serve child; a clean read is left alone.
func TestOpenCodePluginRedactsBankSecret(t *testing.T) {
	nodeBinary(t)
	bin := filepath.Join(buildMbguard(t), "mbguard")
	dir := secretBankRepo(t)
	testgit.Write(t, dir, "memory-bank/details/patterns.md", "# P\n")
	read := map[string]any{"filePath": filepath.Join(dir, readSecretFile)}
	cat := map[string]any{"command": "cat " + readSecretFile}
	clean := map[string]any{"filePath": filepath.Join(dir, "memory-bank/details/patterns.md")}
	// base64 of the file, wrapped at 76 columns as base64 does: the secret's encoded form is
	// replaced across the line breaks
	b64 := map[string]any{"command": "base64 " + readSecretFile}
	// (text before the token puts its encoded form across the first line break)
	enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("# Tech notes ", 2) + "\ntoken: " + readSecret + "\nuse the queue\n"))
	wrapped := ""
	for ; len(enc) > 76; enc = enc[76:] {
		wrapped += enc[:76] + "\n"
	}
	wrapped += enc + "\n"
	withOutput := func(s harnessStep, out string) harnessStep {
		s.Output = map[string]any{"output": out, "title": "", "metadata": map[string]any{}}
		return s
	}
	res := runHarness(t, dir, []string{"MBGUARD_BIN=" + bin}, []harnessStep{
		before("s", "c1", "read", read),
		withOutput(after("s", "c1", "read", read), "<file>\n00002| token: "+readSecret+"\n</file>"),
		before("s", "c2", "bash", cat),
		withOutput(after("s", "c2", "bash", cat), "# Tech\ntoken: "+readSecret+"\n"),
		before("s", "c3", "read", clean),
		withOutput(after("s", "c3", "read", clean), "<file>\n00001| # P\n</file>"),
		before("s", "c4", "bash", b64),
		withOutput(after("s", "c4", "bash", b64), wrapped),
	})
	for _, i := range []int{1, 3} {
		out, _ := res[i].Output["output"].(string)
		if strings.Contains(out, readSecret) || !strings.Contains(out, "token: REDACTED") {
			t.Errorf("step %d: output %q: want the secret replaced", i, out)
		}
		wantSecretNotice(t, out)
	}
	if out, _ := res[5].Output["output"].(string); out != "<file>\n00001| # P\n</file>" {
		t.Errorf("clean read: output changed to %q", out)
	}
	if out, _ := res[7].Output["output"].(string); !strings.Contains(out, "REDACTED") {
		t.Errorf("base64 of the bank file: output %q: want the encoded secret replaced", out)
	} else {
		for _, f := range scanner.SecretForms(readSecret) {
			if strings.Contains(strings.ReplaceAll(out, "\n", ""), f) {
				t.Errorf("base64 of the bank file: form %q of the secret reached the output", f)
			}
		}
	}
}
