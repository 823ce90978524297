package hooks

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/scanner"
)

// readSecret is a GitHub token gitleaks finds (rule github-pat), split so this file holds none.
var readSecret = "ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo"

const readSecretFile = "memory-bank/details/tech.md"

func secretBankRepo(t *testing.T) string {
	t.Helper()
	root := bankRepo(t)
	testgit.Write(t, root, readSecretFile, "# Tech\ntoken: "+readSecret+"\nuse the queue\n")
	return root
}

// claudeUpdated decodes a PostToolUse reply's hookSpecificOutput.
func claudeUpdated(t *testing.T, r Reply) (ctx string, updated json.RawMessage) {
	t.Helper()
	var out struct {
		H struct {
			Event   string          `json:"hookEventName"`
			Ctx     string          `json:"additionalContext"`
			Updated json.RawMessage `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if len(r.Stdout) == 0 {
		return "", nil
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil {
		t.Fatalf("stdout is not hook JSON: %v\n%s", err, r.Stdout)
	}
	return out.H.Ctx, out.H.Updated
}

func wantSecretNotice(t *testing.T, ctx string) {
	t.Helper()
	if !strings.Contains(ctx, readSecretFile+" line 2 holds a secret (gitleaks rule github-pat)") || !strings.Contains(ctx, "remove") {
		t.Fatalf("context %q: want the file, line and rule of the secret, and to remove it", ctx)
	}
}

// A Read of a bank file holding a secret: Claude Code gets the same response with the secret
// replaced (updatedToolOutput) and the model is told where the secret is; the reply never
// carries the secret.
func TestClaudeBankReadSecretIsRedacted(t *testing.T) {
	root := secretBankRepo(t)
	h := newHookRun(t, root, nil)
	abs := filepath.Join(root, readSecretFile)
	content := "# Tech\ntoken: " + readSecret + "\nuse the queue\n"
	r := h.call("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": abs},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": abs, "content": content, "numLines": 3, "startLine": 1, "totalLines": 3}}})
	if strings.Contains(string(r.Stdout)+r.Stderr+r.Context, readSecret) {
		t.Fatalf("the reply carries the secret: %s", r.Stdout)
	}
	ctx, updated := claudeUpdated(t, r)
	wantSecretNotice(t, ctx)
	var resp struct {
		Type string `json:"type"`
		File struct {
			FilePath string `json:"filePath"`
			Content  string `json:"content"`
			NumLines int    `json:"numLines"`
		} `json:"file"`
	}
	if err := json.Unmarshal(updated, &resp); err != nil {
		t.Fatalf("updatedToolOutput %s: %v", updated, err)
	}
	if resp.Type != "text" || resp.File.FilePath != abs || resp.File.NumLines != 3 ||
		resp.File.Content != "# Tech\ntoken: REDACTED\nuse the queue\n" {
		t.Fatalf("updatedToolOutput %s: want the Read response with the secret replaced", updated)
	}
}

// A read-only shell command naming the bank file: its stdout is redacted the same way.
func TestClaudeBankCatSecretIsRedacted(t *testing.T) {
	h := newHookRun(t, secretBankRepo(t), nil)
	r := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat -n " + readSecretFile},
		"tool_response": map[string]any{"stdout": "     2\ttoken: " + readSecret + "\n", "stderr": "", "interrupted": false}})
	if strings.Contains(string(r.Stdout), readSecret) {
		t.Fatalf("the reply carries the secret: %s", r.Stdout)
	}
	ctx, updated := claudeUpdated(t, r)
	wantSecretNotice(t, ctx)
	if !strings.Contains(string(updated), `"stdout":"     2\ttoken: REDACTED\n"`) || !strings.Contains(string(updated), `"interrupted":false`) {
		t.Fatalf("updatedToolOutput %s: want the Bash response with the secret replaced", updated)
	}
}

// PostToolUseFailure cannot replace the output: the model is told, and nothing else is sent.
func TestClaudeBankSecretAfterFailedCommand(t *testing.T) {
	h := newHookRun(t, secretBankRepo(t), nil)
	r := h.call("PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat " + readSecretFile + " missing.md"},
		"error": "token: " + readSecret + "\ncat: missing.md: No such file or directory"})
	if strings.Contains(string(r.Stdout), readSecret) {
		t.Fatalf("the reply carries the secret: %s", r.Stdout)
	}
	ctx, updated := claudeUpdated(t, r)
	wantSecretNotice(t, ctx)
	if updated != nil {
		t.Fatalf("updatedToolOutput %s on PostToolUseFailure, which cannot replace output", updated)
	}
}

// A clean bank file read gets no notice and no rewrite.
func TestClaudeBankReadWithoutSecret(t *testing.T) {
	h := newHookRun(t, secretBankRepo(t), nil)
	r := h.readFile("memory-bank/details/patterns.md")
	ctx, updated := claudeUpdated(t, r)
	if strings.Contains(ctx, "holds a secret") || updated != nil {
		t.Fatalf("clean read: context %q, updatedToolOutput %s", ctx, updated)
	}
}

// Codex, Gemini CLI and Copilot CLI: the post-tool reply that replaces the tool's result
// (Codex {"decision":"block"}, Gemini deny, Copilot modifiedResult) carries the notice and the
// output with the secret redacted; Copilot keeps the call a success.
func TestHostsBankReadSecretIsReplaced(t *testing.T) {
	for _, host := range []string{"codex", "gemini", "copilot"} {
		t.Run(host, func(t *testing.T) {
			if secretWayOf(host) != secretReplace {
				t.Fatalf("%s: secretWays does not replace its output", host)
			}
			h := newHostRun(t, host, secretBankRepo(t), nil)
			_, _, post := shapes[host].read(h, readSecretFile)
			r := h.call(shapes[host].postTool, withSecretOutput(post))
			if strings.Contains(string(r.Stdout)+r.Stderr, readSecret) {
				t.Fatalf("the reply carries the secret: %s", r.Stdout)
			}
			text, ok := replacedText(t, host, r)
			if !ok {
				t.Fatalf("reply %s does not replace the tool's result", r.Stdout)
			}
			wantSecretNotice(t, text)
			if !strings.Contains(text, "token: REDACTED") {
				t.Fatalf("replaced result %q: want the tool's output with the secret redacted", text)
			}
		})
	}
}

// replacedText is the text a post-tool reply puts in place of the tool's result.
func replacedText(t *testing.T, host string, r Reply) (string, bool) {
	t.Helper()
	var out struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
		Modified struct {
			Type string `json:"resultType"`
			Text string `json:"textResultForLlm"`
		} `json:"modifiedResult"`
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil {
		t.Fatalf("stdout %q: %v", r.Stdout, err)
	}
	switch host {
	case "codex":
		return out.Reason, out.Decision == "block"
	case "gemini":
		return out.Reason, out.Decision == "deny"
	case "copilot":
		return out.Modified.Text, out.Modified.Type == "success"
	}
	return "", false
}

// Qwen Code shows the model nothing of a post-tool reply but additionalContext: a read of a
// bank file holding a secret (read tool or shell) is refused before it runs, the reason
// carrying the file redacted and where to remove the secret; the refused read counts as read
// (the agent got the text), so the read gate opens. A write tool is never refused for it.
func TestQwenBankReadSecretIsRefused(t *testing.T) {
	root := secretBankRepo(t)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nkey: "+readSecret+"\nretries go through the queue\n")
	h := newHostRun(t, "qwen", root, map[string]string{"MEMORY_BANK_GUARD_MODE": "block"})
	h.prompt("add a dependency")
	ev, in, _ := shapes["qwen"].read(h, readSecretFile)
	for name, call := range map[string]map[string]any{
		"read_file": in,
		"cat":       {"tool_name": "run_shell_command", "tool_use_id": "call_c", "tool_input": map[string]any{"command": "cat -n " + readSecretFile}},
	} {
		r := h.call(ev, call)
		got := denied(t, "qwen", r)
		if strings.Contains(string(r.Stdout)+r.Stderr, readSecret) {
			t.Fatalf("%s: the reply carries the secret: %s %s", name, r.Stdout, r.Stderr)
		}
		if !strings.Contains(got, "# Tech\ntoken: REDACTED\nuse the queue") ||
			!strings.Contains(got, "remove the secret at "+readSecretFile+" line 2 (rule github-pat)") {
			t.Fatalf("%s: refusal %q: want the file redacted and where to remove the secret", name, got)
		}
	}
	// a bank directory: the files and lines, no text; a search above the bank is not refused
	// (only its output could tell, and Qwen hears of it afterwards)
	grep := func(cmd string) string {
		return denied(t, "qwen", h.call(ev, map[string]any{"tool_name": "run_shell_command", "tool_use_id": "call_g", "tool_input": map[string]any{"command": cmd}}))
	}
	if got := grep("grep -rn token memory-bank/details"); !strings.Contains(got, readSecretFile+" line 2 holds a secret") || strings.Contains(got, "REDACTED") {
		t.Fatalf("grep of the bank: refusal %q: want the file and line without text", got)
	}
	if got := grep("grep -rn queue src"); got != "" {
		t.Fatalf("grep outside the bank refused: %q", got)
	}
	if got := denied(t, "qwen", h.write("go.mod", "module x\n")); !strings.Contains(got, "memory-bank/details/patterns.md") {
		t.Fatalf("before reading patterns.md: refusal %q, want the read gate's", got)
	}
	_, in, _ = shapes["qwen"].read(h, "memory-bank/details/patterns.md")
	if got := denied(t, "qwen", h.call(ev, in)); !strings.Contains(got, "key: REDACTED") {
		t.Fatalf("read of patterns.md: refusal %q, want its text redacted", got)
	}
	if got := denied(t, "qwen", h.write("go.mod", "module x\n")); got != "" {
		t.Fatalf("after the refused read that handed over patterns.md: refused %q", got)
	}
	if got := denied(t, "qwen", h.write(readSecretFile, "# Tech\nuse the queue\n")); strings.Contains(got, "holds a secret") {
		t.Fatalf("a write removing the secret was refused for it: %q", got)
	}
}

// withSecretOutput puts the secret into a captured post-tool payload's output strings, as the
// host would send it after reading the file.
func withSecretOutput(post map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range post {
		out[k] = v
	}
	secretText := "token: " + readSecret + "\n"
	for _, k := range []string{"tool_response", "toolResult"} {
		switch v := out[k].(type) {
		case string:
			out[k] = v + secretText
		case map[string]any:
			m := map[string]any{}
			for kk, vv := range v {
				if s, ok := vv.(string); ok && kk != "resultType" {
					vv = s + secretText
				}
				m[kk] = vv
			}
			out[k] = m
		}
	}
	return out
}

func TestRedactJSON(t *testing.T) {
	raw := json.RawMessage(`{"a":["x SECRET y",1,true,null],"b":{"c":"SECRETSECRET"},"d":"clean"}`)
	v, changed := redactJSON(raw, []string{"SECRET"})
	b, _ := json.Marshal(v)
	if !changed || string(b) != `{"a":["x REDACTED y",1,true,null],"b":{"c":"REDACTEDREDACTED"},"d":"clean"}` {
		t.Fatalf("redactJSON: %s changed=%v", b, changed)
	}
	if _, changed := redactJSON(json.RawMessage(`{"d":"clean"}`), []string{"SECRET"}); changed {
		t.Fatal("redactJSON reported a change in clean output")
	}
	if _, changed := redactJSON(json.RawMessage(`not json`), []string{"SECRET"}); changed {
		t.Fatal("redactJSON changed output it could not decode")
	}
}

// A command that searches a directory holding the bank shows only some files: those whose
// secret its output shows are redacted and named; a command whose output shows none gets
// nothing.
func TestClaudeBankDirectorySearch(t *testing.T) {
	for _, cmd := range []string{"grep -rn token memory-bank", "grep -rn token .", "rg token"} {
		t.Run(cmd, func(t *testing.T) {
			h := newHookRun(t, secretBankRepo(t), nil)
			r := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
				"tool_response": map[string]any{"stdout": readSecretFile + ":2:token: " + readSecret + "\n", "stderr": "", "interrupted": false}})
			if strings.Contains(string(r.Stdout), readSecret) {
				t.Fatalf("the reply carries the secret: %s", r.Stdout)
			}
			ctx, updated := claudeUpdated(t, r)
			wantSecretNotice(t, ctx)
			if !strings.Contains(string(updated), "token: REDACTED") {
				t.Fatalf("updatedToolOutput %s: want the secret replaced", updated)
			}
		})
	}
	h := newHookRun(t, secretBankRepo(t), nil)
	r := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls -R"},
		"tool_response": map[string]any{"stdout": "memory-bank\nsrc\n", "stderr": "", "interrupted": false}})
	if ctx, updated := claudeUpdated(t, r); strings.Contains(ctx, "holds a secret") || updated != nil {
		t.Fatalf("ls at the root: context %q, updatedToolOutput %s", ctx, updated)
	}
}

// Crush has no post-tool event, and its {"context"} reply runs the call: a view or cat of a
// bank file holding a secret is refused, the reason carrying the file redacted.
func TestCrushBankReadSecretIsRefused(t *testing.T) {
	h := newHostRun(t, "crush", secretBankRepo(t), nil)
	for _, call := range []struct {
		tool  string
		input map[string]any
	}{
		{"view", map[string]any{"file_path": readSecretFile}},
		{"bash", map[string]any{"command": "cat " + readSecretFile, "description": "x"}},
	} {
		r := crushCall(h, call.tool, call.input)
		if strings.Contains(string(r.Stdout)+r.Stderr, readSecret) {
			t.Fatalf("the reply carries the secret: %s", r.Stdout)
		}
		got := denied(t, "crush", r)
		wantSecretNotice(t, got)
		if !strings.Contains(got, "token: REDACTED") {
			t.Fatalf("%s: refusal %q: want the file redacted", call.tool, got)
		}
	}
}

// BenchmarkClaudeReadSecrets prices the bank secret check against the whole PostToolUse it is
// part of, both measured in this process: a `grep -rn token .` at the root whose output shows a
// bank secret (the costliest case: the bank is walked and every file's scan looked up) on a
// bank of 40 files. Compare check with handle.
func BenchmarkClaudeReadSecrets(b *testing.B) {
	root := bankRepo(b)
	for i := range 40 {
		testgit.Write(b, root, fmt.Sprintf("memory-bank/details/n%02d.md", i), "# Note\nnothing secret here\n")
	}
	testgit.Write(b, root, readSecretFile, "# Tech\ntoken: "+readSecret+"\nuse the queue\n")
	h := &hookRun{root: root, sess: "bench-session", t: &testing.T{}}
	c := &Claude{Dir: root, Getenv: func(string) string { return "" }}
	ctx := context.Background()
	p := h.payload("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "grep -rn token ."},
		"tool_response": map[string]any{"stdout": readSecretFile + ":2:token: " + readSecret + "\n", "stderr": "", "interrupted": false}})
	if r := c.Handle(ctx, p); !strings.Contains(string(r.Stdout), "REDACTED") {
		b.Fatalf("no redaction: %s", r.Stdout)
	}
	b.Run("handle", func(b *testing.B) {
		for b.Loop() {
			c.Handle(ctx, p)
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			call, err := claudeProto{}.parse(p, "")
			if err != nil {
				b.Fatal(err)
			}
			repos := (&Hook{Host: "claude"}).repos(&call)
			if n, _ := readSecrets(&call, repos, &hookAnswer{}, secretUpdate); n == "" {
				b.Fatal("no notice")
			}
		}
	})
}

// BenchmarkQwenSecretRefusal prices the check Qwen Code's PreToolUse now makes before every
// read (is a bank file it names holding a secret?) against the whole PreToolUse it is part of,
// both measured in this process, on the common case: a read_file of a clean bank file in a bank
// of 40 files, and a shell call reading one. Compare check with handle.
func BenchmarkQwenSecretRefusal(b *testing.B) {
	root := bankRepo(b)
	for i := range 40 {
		testgit.Write(b, root, fmt.Sprintf("memory-bank/details/n%02d.md", i), "# Note\nnothing secret here\n")
	}
	testgit.Write(b, root, readSecretFile, "# Tech\ntoken: "+readSecret+"\nuse the queue\n")
	p, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "bench-session", "cwd": root, "prompt_id": "p1",
		"tool_name": "read_file", "tool_use_id": "call_r", "tool_input": map[string]any{"file_path": filepath.Join(root, "memory-bank/details/n07.md")}})
	h := &Hook{Host: "qwen", Dir: root, Getenv: func(string) string { return "" }}
	ctx := context.Background()
	if r := h.Handle(ctx, p); r.Exit != 0 {
		b.Fatalf("clean read refused: %s", r.Stderr)
	}
	b.Run("handle", func(b *testing.B) {
		for b.Loop() {
			h.Handle(ctx, p)
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			call, err := qwenProto{}.parse(p, "")
			if err != nil {
				b.Fatal(err)
			}
			if reason, _ := secretRefusal(&call, h.repos(&call)); reason != "" {
				b.Fatal("a clean file refused")
			}
		}
	})
	// a shell call: the command is classified for what it reads, carries, runs and searches
	sp, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "bench-session", "cwd": root, "prompt_id": "p1",
		"tool_name": "run_shell_command", "tool_use_id": "call_s", "tool_input": map[string]any{
			"command": "cat memory-bank/details/n07.md && for f in src/*.go; do wc -l $f; done && git diff --stat"}})
	if r := h.Handle(ctx, sp); r.Exit != 0 {
		b.Fatalf("clean shell call refused: %s", r.Stderr)
	}
	b.Run("handle shell", func(b *testing.B) {
		for b.Loop() {
			h.Handle(ctx, sp)
		}
	})
	b.Run("check shell", func(b *testing.B) {
		for b.Loop() {
			call, err := qwenProto{}.parse(sp, "")
			if err != nil {
				b.Fatal(err)
			}
			if reason, _ := secretRefusal(&call, h.repos(&call)); reason != "" {
				b.Fatal("a clean shell call refused")
			}
		}
	})
}

// TestDroidBankReadSecretIsRefused: Factory Droid shows the model no PostToolUse reason or
// replacement (docs/hosts/droid.md), so, as on Qwen, a read of a bank file holding a secret is
// refused before it runs and the refusal hands over the file redacted.
func TestDroidBankReadSecretIsRefused(t *testing.T) {
	root := secretBankRepo(t)
	h := newHostRun(t, "droid", root, nil)
	h.prompt("tidy the docs")
	ev, in, _ := shapes["droid"].read(h, readSecretFile)
	r := h.call(ev, in)
	got := denied(t, "droid", r)
	if strings.Contains(string(r.Stdout)+r.Stderr, readSecret) {
		t.Fatalf("the reply carries the secret: %s %s", r.Stdout, r.Stderr)
	}
	if !strings.Contains(got, "token: REDACTED") || !strings.Contains(got, "remove the secret at "+readSecretFile+" line 2 (rule github-pat)") {
		t.Fatalf("refusal %q: want the file redacted and where to remove the secret", got)
	}
}

// Gemini CLI's read_many_files takes globs (`memory-bank/**/*.md`) that no hook can expand
// before the call: its output is judged after, and every bank secret it shows is replaced.
func TestGeminiReadManyFilesSecretIsReplaced(t *testing.T) {
	for name, paths := range map[string][]any{
		"bank glob":   {"memory-bank/**/*.md"},
		"root glob":   {"**/*.md"},
		"bank folder": {"memory-bank"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHostRun(t, "gemini", secretBankRepo(t), nil)
			post := map[string]any{"tool_name": "read_many_files", "tool_input": map[string]any{"paths": paths},
				"tool_response": map[string]any{"llmContent": "--- " + readSecretFile + " ---\ntoken: " + readSecret + "\n", "returnDisplay": "read 1 file"}}
			r := h.call("AfterTool", post)
			if strings.Contains(string(r.Stdout)+r.Stderr, readSecret) {
				t.Fatalf("the reply carries the secret: %s", r.Stdout)
			}
			text, ok := replacedText(t, "gemini", r)
			if !ok || !strings.Contains(text, "token: REDACTED") {
				t.Fatalf("reply %s does not replace the result with the redacted output", r.Stdout)
			}
			wantSecretNotice(t, text)
		})
	}
}

// Claude Code's Grep with no path searches the project: its output is judged against the
// bank files, and a bank secret it shows is replaced; one that shows no secret is left alone.
func TestClaudeGrepWithoutPathSecretIsRedacted(t *testing.T) {
	h := newHookRun(t, secretBankRepo(t), nil)
	grep := func(content string) Reply {
		return h.call("PostToolUse", map[string]any{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "token", "output_mode": "content"},
			"tool_response": map[string]any{"mode": "content", "numFiles": 1, "filenames": []any{}, "content": content, "numLines": 1}})
	}
	r := grep(readSecretFile + ":2:token: " + readSecret)
	if strings.Contains(string(r.Stdout)+r.Stderr, readSecret) {
		t.Fatalf("the reply carries the secret: %s", r.Stdout)
	}
	ctx, updated := claudeUpdated(t, r)
	wantSecretNotice(t, ctx)
	if !strings.Contains(string(updated), readSecretFile+":2:token: REDACTED") {
		t.Fatalf("updatedToolOutput %s: want the Grep response with the secret replaced", updated)
	}
	if r := grep("src/main.go:1:// token handling"); strings.Contains(string(r.Stdout), "updatedToolOutput") || strings.Contains(r.Context, "holds a secret") {
		t.Fatalf("a search that shows no secret was changed: %s", r.Stdout)
	}
}

// A command that re-encodes the bank file it reads (base64, hex, rev) does not carry the secret
// past the redaction: each encoded form is replaced too.
func TestClaudeReencodedBankSecretIsRedacted(t *testing.T) {
	content := "# Tech\ntoken: " + readSecret + "\nuse the queue\n"
	r := []rune(content)
	slices.Reverse(r)
	for cmd, stdout := range map[string]string{
		"base64 -w0 " + readSecretFile:                      base64.StdEncoding.EncodeToString([]byte(content)),
		"basenc --base64url " + readSecretFile:              base64.URLEncoding.EncodeToString([]byte(content)),
		"od -An -tx1 " + readSecretFile + " | tr -d ' \\n'": hex.EncodeToString([]byte(content)),
		"rev " + readSecretFile:                             string(r),
	} {
		h := newHookRun(t, secretBankRepo(t), nil)
		rep := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"tool_response": map[string]any{"stdout": stdout, "stderr": "", "interrupted": false}})
		ctx, updated := claudeUpdated(t, rep)
		wantSecretNotice(t, ctx)
		if !strings.Contains(string(updated), "REDACTED") {
			t.Errorf("%s: no updatedToolOutput with the encoded secret replaced: %s", cmd, rep.Stdout)
		}
		for _, f := range scanner.SecretForms(readSecret) {
			if strings.Contains(string(updated)+string(rep.Stdout), f) {
				t.Errorf("%s: the reply still carries the secret's form %q", cmd, f)
			}
		}
	}
}
