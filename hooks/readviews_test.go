package hooks

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/scanner"
	"github.com/mbguard/mbguard/watcher"
)

// runShell runs cmd in root with bash, as the host would after its pre-tool hook allowed it, and
// returns what it printed.
func runShell(t *testing.T, root, cmd string) string {
	t.Helper()
	c := exec.Command("bash", "-c", cmd)
	c.Dir = root
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	return string(out)
}

// harmlessReads are read pipelines over a bank file that write nothing: they run on every host.
var harmlessReads = []string{
	"basenc --base64url memory-bank/MEMORY.md",
	"tar cf - memory-bank/MEMORY.md | tar xf - -O",
	"gzip -c memory-bank/MEMORY.md | gunzip",
}

// The harmless read pipelines are allowed and really run on Claude Code and Qwen Code; the bank
// is as before, and a shell write into the bank afterwards is still refused.
func TestHarmlessReadPipelinesRun(t *testing.T) {
	t.Run("claude", func(t *testing.T) {
		root := bankRepo(t)
		h := newHookRun(t, root, nil)
		h.prompt("show me the memory")
		want := bankState(t, root)
		for _, cmd := range harmlessReads {
			in := map[string]any{"command": cmd}
			if r := h.pre("Bash", in); r.Exit != 0 {
				t.Fatalf("%s: refused: %s", cmd, r.Stderr)
			}
			out := runShell(t, root, cmd)
			r := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": in,
				"tool_response": map[string]any{"stdout": out, "stderr": "", "interrupted": false}})
			if strings.Contains(string(r.Stdout), `"decision":"block"`) {
				t.Fatalf("%s: post-tool reply %s", cmd, r.Stdout)
			}
		}
		sameBank(t, want, bankState(t, root))
		if r := h.pre("Bash", map[string]any{"command": "echo x > memory-bank/a.js"}); r.Exit != 2 {
			t.Fatalf("a shell write into the bank after the reads: exit %d, want the refusal", r.Exit)
		}
	})
	t.Run("qwen", func(t *testing.T) {
		root := bankRepo(t)
		h := newHostRun(t, "qwen", root, nil)
		h.prompt("show me the memory")
		want := bankState(t, root)
		for _, cmd := range harmlessReads {
			ev, in := shapes["qwen"].shell(h, cmd)
			if got := denied(t, "qwen", h.call(ev, in)); got != "" {
				t.Fatalf("%s: refused: %s", cmd, got)
			}
			runShell(t, root, cmd)
		}
		sameBank(t, want, bankState(t, root))
		ev, in := shapes["qwen"].shell(h, "echo x > memory-bank/a.js")
		if got := denied(t, "qwen", h.call(ev, in)); got == "" {
			t.Fatal("a shell write into the bank after the reads was allowed")
		}
	})
}

// injectedBanks are banks whose MEMORY.md shows a bank secret in a form mbguard claims to
// cover: verbatim (gitleaks finds it there), and, with the secret itself in tech.md, its
// base64, hex and reverse (which no scan of MEMORY.md alone finds), and as a path the stale
// check names.
func injectedBanks(secret string) map[string]string {
	forms := scanner.SecretForms(secret)
	enc := func(pick func(string) bool) string {
		for _, f := range forms[1:] {
			if pick(f) {
				return f
			}
		}
		return ""
	}
	return map[string]string{
		"verbatim":   "- ship the retry queue with " + secret,
		"base64":     "- the key is " + enc(func(f string) bool { return strings.HasPrefix(f, "Z2hw") }),
		"hex":        "- the key is " + enc(func(f string) bool { return strings.HasPrefix(f, "676870") }),
		"reverse":    "- the key is " + enc(func(f string) bool { return strings.HasSuffix(f, "_phg") }),
		"stale path": "- see `src/" + secret + ".go` for the client",
		"long line":  "- " + strings.Repeat("word ", 28) + secret + " and the rest of a long focus line",
	}
}

// showsSecret reports the first form of secret (scanner.SecretForms) that text shows.
func showsSecret(text, secret string) string {
	for _, f := range scanner.SecretForms(secret) {
		if strings.Contains(text, f) {
			return f
		}
	}
	return ""
}

// Every text mbguard injects itself — the startup context, the anchor block after a compaction
// (Claude Code's PreCompact and SessionStart "compact", Qwen Code's), Crush's context view,
// the context and compaction answers of the service OpenCode's serve runs — shows no bank
// secret in any form mbguard covers, whichever form MEMORY.md's Current Focus holds it in.
func TestInjectedTextsShowNoBankSecret(t *testing.T) {
	for name, focus := range injectedBanks(readSecret) {
		t.Run(name, func(t *testing.T) {
			mem := strings.Replace(testMemory, "- ship the payment retry queue", focus, 1)
			check := func(where, text string) {
				t.Helper()
				if f := showsSecret(text, readSecret); f != "" {
					t.Errorf("%s shows the secret as %q:\n%s", where, f, text)
				}
			}
			newBank := func(t *testing.T) string {
				root := secretBankRepo(t)
				testgit.Write(t, root, "memory-bank/MEMORY.md", mem)
				return root
			}
			t.Run("claude", func(t *testing.T) {
				h := newHookRun(t, newBank(t), nil)
				for _, ev := range []struct {
					event string
					extra map[string]any
				}{
					{"SessionStart", map[string]any{"source": "startup"}},
					{"UserPromptSubmit", map[string]any{"prompt": "go on"}},
					{"PreCompact", map[string]any{"trigger": "auto"}},
					{"SessionStart", map[string]any{"source": "compact"}},
					{"PreToolUse", map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(h.root, "src/x.go"), "content": "package x\n"}}},
				} {
					r := h.call(ev.event, ev.extra)
					check(ev.event, string(r.Stdout)+r.Stderr)
				}
			})
			t.Run("qwen", func(t *testing.T) {
				h := newHostRun(t, "qwen", newBank(t), nil)
				for _, ev := range []struct {
					event string
					extra map[string]any
				}{
					{"SessionStart", map[string]any{"source": "startup"}},
					{"PreCompact", map[string]any{"trigger": "auto"}},
					{"SessionStart", map[string]any{"source": "compact"}},
				} {
					r := h.call(ev.event, ev.extra)
					check(ev.event, string(r.Stdout)+r.Stderr+r.Context)
				}
			})
			t.Run("crush view", func(t *testing.T) {
				root := newBank(t)
				text, err := crushContextText(repo.Repo{Root: root, GitDir: filepath.Join(root, ".git")}, bank.LayoutV7, 0)
				if err != nil || !strings.Contains(text, "<memory-bank>") {
					t.Fatalf("crushContextText: %v\n%s", err, text)
				}
				check("the Crush view", text)
			})
			t.Run("opencode serve", func(t *testing.T) {
				root := newBank(t)
				r := repo.Repo{Root: root, GitDir: filepath.Join(root, ".git")}
				cfg, err := config.Load(config.Options{RepoRoot: root, Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
				svc := watcher.NewService(r, cfg, watcher.ServiceOptions{Resident: true})
				defer svc.Close()
				ctx := context.Background()
				resp := svc.Handle(ctx, watcher.Request{Op: "context", Session: "s1"})
				check("the context answer", resp.Context+resp.Notice)
				resp = svc.Handle(ctx, watcher.Request{Op: "event", Event: &gating.Event{Kind: gating.EvCompaction, Session: "s1", Host: "opencode", Cwd: root}})
				if resp.Decision == nil || !strings.Contains(resp.Decision.Advice, gating.AnchorSentinel) {
					t.Fatalf("compaction answer %+v: want the anchor block", resp)
				}
				check("the compaction answer", resp.Decision.Advice+resp.Decision.Message+resp.Notice)
			})
		})
	}
}

// copyOutside copies the bank file holding readSecret to a folder outside the repository and
// returns the copy's path and text.
func copyOutside(t *testing.T, root string) (string, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, readSecretFile))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, string(b)
}

// A copy of a bank file holding a secret, outside the bank, is judged by its content: its Read
// and its Grep on Claude Code come back redacted with the notice, and so does a hex dump of
// the bank file (xxd, od -An -tx1: the tools' real output); a Read of a file without a secret
// is left alone. The bank stays as it was and the guard stays on.
func TestClaudeCopyOfBankSecretIsRedacted(t *testing.T) {
	root := secretBankRepo(t)
	h := newHookRun(t, root, nil)
	h.prompt("look at the notes")
	want := bankState(t, root)
	cp, body := copyOutside(t, root)
	clean := filepath.Join(filepath.Dir(cp), "clean.txt")
	if err := os.WriteFile(clean, []byte("nothing to hide\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(p, content string) ClaudeReply {
		return h.call("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": p},
			"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": p, "content": content, "numLines": 3, "startLine": 1, "totalLines": 3}}})
	}
	calls := map[string]ClaudeReply{
		"Read": read(cp, body),
		"Grep": h.call("PostToolUse", map[string]any{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "token", "path": filepath.Dir(cp), "output_mode": "content"},
			"tool_response": map[string]any{"mode": "content", "numFiles": 1, "filenames": []any{}, "content": cp + ":2:token: " + readSecret, "numLines": 1}}),
	}
	for _, cmd := range []string{"xxd " + readSecretFile, "od -An -tx1 " + readSecretFile, "xxd -g1 " + cp, "hexdump -C " + cp} {
		out := runShell(t, root, cmd)
		calls[cmd] = h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"tool_response": map[string]any{"stdout": out, "stderr": "", "interrupted": false}})
	}
	for name, r := range calls {
		ctx, updated := claudeUpdated(t, r)
		if f := showsSecret(string(r.Stdout)+r.Stderr, readSecret); f != "" || !strings.Contains(string(updated), "REDACTED") {
			t.Errorf("%s: the reply shows %q or redacts nothing: %s", name, f, r.Stdout)
			continue
		}
		wantSecretNotice(t, ctx)
	}
	if ctx, updated := claudeUpdated(t, read(clean, "nothing to hide\n")); updated != nil || strings.Contains(ctx, "holds a secret") {
		t.Errorf("a clean file's Read was changed: %q %s", ctx, updated)
	}
	sameBank(t, want, bankState(t, root))
	if r := h.pre("Bash", map[string]any{"command": "echo x > memory-bank/a.js"}); r.Exit != 2 {
		t.Fatalf("a shell write into the bank afterwards: exit %d, want the refusal", r.Exit)
	}
}

// On the hosts that refuse before a call (Qwen Code, Droid, Crush), a read or search of a copy
// of a bank secret outside the bank is refused, the reason carrying the copy redacted and where
// the secret is; a read of a clean file, and a search of a folder without a copy, run.
func TestRefuseHostsCopyOfBankSecret(t *testing.T) {
	for _, host := range []string{"qwen", "droid", "crush"} {
		t.Run(host, func(t *testing.T) {
			root := secretBankRepo(t)
			cp, _ := copyOutside(t, root)
			// a line no bank line matches: only the copy's content can show the secret
			if err := os.WriteFile(filepath.Join(root, "src", "notes.txt"), []byte("deploy key "+readSecret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cleanDir := t.TempDir()
			clean := filepath.Join(cleanDir, "clean.txt")
			if err := os.WriteFile(clean, []byte("token: none here\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			h := newHostRun(t, host, root, nil)
			want := bankState(t, root)
			readCall := func(p string) map[string]any {
				_, in, _ := shapes[host].read(h, readSecretFile)
				in = maps.Clone(in)
				args := maps.Clone(in["tool_input"].(map[string]any))
				args["file_path"] = p
				in["tool_input"] = args
				return in
			}
			for _, tc := range []struct {
				name    string
				call    map[string]any
				refused bool
			}{
				{"read the copy", readCall(cp), true},
				{"cat the copy", searchShapes[host].shell("cat " + cp), true},
				{"grep the copy's folder", searchShapes[host].search("token", map[string]any{"path": filepath.Dir(cp)}), true},
				{"grep with no path, a copy in the repository", searchShapes[host].search("deploy key", nil), true},
				{"read a clean file", readCall(clean), false},
				{"grep a clean folder", searchShapes[host].search("token", map[string]any{"path": cleanDir}), false},
			} {
				r := h.call("PreToolUse", tc.call)
				if f := showsSecret(string(r.Stdout)+r.Stderr+r.Context, readSecret); f != "" {
					t.Fatalf("%s: the reply shows %q", tc.name, f)
				}
				got := denied(t, host, r)
				switch {
				case tc.refused && !strings.Contains(got, readSecretFile+" line 2 holds a secret"):
					t.Errorf("%s: refusal %q, want where the secret is", tc.name, got)
				case !tc.refused && got != "":
					t.Errorf("%s: refused: %s", tc.name, got)
				}
				if tc.name == "read the copy" && !strings.Contains(got, "token: REDACTED") {
					t.Errorf("read the copy: refusal %q, want the copy's text redacted", got)
				}
			}
			sameBank(t, want, bankState(t, root))
			ev, in := shapes[host].shell(h, "echo x > memory-bank/a.js")
			if got := denied(t, host, h.call(ev, in)); got == "" {
				t.Fatal("a shell write into the bank afterwards was allowed")
			}
		})
	}
}

// OpenCode (serve): a read of a copy of a bank secret outside the bank, sent with its output,
// gets the secret's forms to redact and the notice.
func TestServeCopyOfBankSecretIsRedacted(t *testing.T) {
	root := secretBankRepo(t)
	cp, body := copyOutside(t, root)
	cfg, err := config.Load(config.Options{RepoRoot: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	svc := watcher.NewService(repo.Repo{Root: root, GitDir: filepath.Join(root, ".git")}, cfg, watcher.ServiceOptions{Resident: true})
	defer svc.Close()
	ev := gating.Event{Kind: gating.EvToolAfter, Session: "s1", Host: "opencode", Cwd: root, Tool: "read", Args: map[string]any{"filePath": cp}}
	resp := svc.Handle(context.Background(), watcher.Request{Op: "event", Event: &ev, Redact: true, Output: body})
	if !slices.Contains(resp.Redact, readSecret) || !strings.Contains(resp.Notice, readSecretFile+" line 2 holds a secret") {
		t.Fatalf("redact %d texts, notice %q: want the secret's forms and where it is", len(resp.Redact), resp.Notice)
	}
	ev.Args = map[string]any{"filePath": filepath.Join(root, "src/app.go")}
	if resp := svc.Handle(context.Background(), watcher.Request{Op: "event", Event: &ev, Redact: true, Output: "package app\n"}); len(resp.Redact) != 0 {
		t.Fatalf("a clean read: redact %d texts", len(resp.Redact))
	}
}

// A bank file that gains a secret after the bank's secrets were summarised (scanner's bank
// summary) has it redacted from the next session start's context: MEMORY.md shows the
// secret's base64, which only the secret in tech.md makes a secret.
func TestSessionStartRedactsASecretAddedAfterTheSummary(t *testing.T) {
	defer scanner.SetBankSettle(0)() // summarise the files this test just wrote
	b64 := injectedBanks(readSecret)["base64"]
	root := bankRepo(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", strings.Replace(testMemory, "- ship the payment retry queue", b64, 1))
	testgit.Write(t, root, readSecretFile, "# Tech\nuse the queue\n")
	h := newHookRun(t, root, nil)
	if ctx := additional(t, h.call("SessionStart", map[string]any{"source": "startup"})); !strings.Contains(ctx, strings.TrimPrefix(b64, "- the key is ")) {
		t.Fatalf("before tech.md holds the secret, the context should show the text as it is:\n%s", ctx)
	}
	if _, err := os.Stat(filepath.Join(root, ".git/mbguard", scanner.BankSummaryFile)); err != nil {
		t.Fatalf("no bank summary after a session start: %v", err)
	}
	testgit.Write(t, root, readSecretFile, "# Tech\ntoken: "+readSecret+"\nuse the queue\n")
	for _, source := range []string{"startup", "resume"} {
		r := h.call("SessionStart", map[string]any{"source": source})
		if f := showsSecret(string(r.Stdout)+r.Stderr, readSecret); f != "" {
			t.Fatalf("%s after tech.md gained the secret shows it as %q:\n%s", source, f, r.Stdout)
		}
	}
}

// A call's scanners keep the bank's secrets between its scans, but every request to the
// Service forgets them: the Service may change the bank (an outcome check putting a file
// back), and what the hook redacts after it must see the bank as it is then.
func TestCallForgetsBankSecretsAtEachRequest(t *testing.T) {
	root := bankRepo(t)
	r := repo.Repo{Root: root, GitDir: filepath.Join(root, ".git")}
	c := &hookCall{}
	if got := newSecretScan(c).bank(r); len(got) != 0 {
		t.Fatalf("secrets in a clean bank: %+v", got)
	}
	k := &asking{ctx: context.Background(), c: c, r: r, do: func(context.Context, watcher.Request) (watcher.Response, error) {
		testgit.Write(t, root, readSecretFile, "# Tech\ntoken: "+readSecret+"\n") // the Service puts a file back
		return watcher.Response{Context: "the key is " + readSecret}, nil
	}}
	resp, ok := k.send(watcher.Request{Op: "context", Session: "s"})
	if !ok {
		t.Fatal(k.a.err)
	}
	a := hookAnswer{Context: resp.Context}
	redactAnswer(&a, []repo.Repo{r}, newSecretScan(c))
	if f := showsSecret(a.Context, readSecret); f != "" {
		t.Fatalf("the answer after the request shows the secret as %q: %s", f, a.Context)
	}
}
