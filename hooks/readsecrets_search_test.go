package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// searchShapes are the hosts whose protocol cannot hide a tool's output (secretRefuse), with
// their search and shell tools as captured: Qwen Code 0.24.4's grep_search {pattern, glob,
// path, limit}, Droid 0.225.2's Grep {pattern, path, glob_pattern, output_mode,
// case_insensitive, …} and Execute, Crush's grep {pattern, path, include, literal_text} and
// bash.
var searchShapes = map[string]struct {
	search func(pattern string, extra map[string]any) map[string]any
	shell  func(cmd string) map[string]any
}{
	"qwen": {
		search: func(pattern string, extra map[string]any) map[string]any {
			return toolCall("grep_search", map[string]any{"pattern": pattern}, extra)
		},
		shell: func(cmd string) map[string]any {
			return toolCall("run_shell_command", map[string]any{"command": cmd, "description": "search", "is_background": false}, nil)
		},
	},
	"droid": {
		search: func(pattern string, extra map[string]any) map[string]any {
			return toolCall("Grep", map[string]any{"pattern": pattern, "output_mode": "content", "line_numbers": true}, extra)
		},
		shell: func(cmd string) map[string]any {
			return toolCall("Execute", map[string]any{"command": cmd, "summary": "search", "riskLevel": "low", "riskLevelReason": "read"}, nil)
		},
	},
	"crush": {
		search: func(pattern string, extra map[string]any) map[string]any {
			return toolCall("grep", map[string]any{"pattern": pattern}, extra)
		},
		shell: func(cmd string) map[string]any {
			return toolCall("bash", map[string]any{"command": cmd, "description": "search"}, nil)
		},
	},
}

func toolCall(name string, input, extra map[string]any) map[string]any {
	for k, v := range extra {
		input[k] = v
	}
	return map[string]any{"tool_name": name, "tool_input": input}
}

// wantAboveRefusal checks a refusal of a search above the bank: where the secret is, never
// the secret, and the next step.
func wantAboveRefusal(t *testing.T, got string) {
	t.Helper()
	if !strings.Contains(got, readSecretFile+" line 2 holds a secret (gitleaks rule github-pat)") ||
		!strings.Contains(got, "remove the secret at "+readSecretFile+" line 2 (rule github-pat)") {
		t.Fatalf("refusal %q: want the file, line and rule, and where to remove the secret", got)
	}
}

// A structured search above the bank (path = the repository root, or none) on a host that
// cannot hide the output: refused when a line holding a bank secret matches its pattern,
// allowed when the pattern matches no such line; the reply never carries the secret.
func TestSearchAboveBankSecret(t *testing.T) {
	for _, host := range []string{"qwen", "droid", "crush"} {
		t.Run(host, func(t *testing.T) {
			root := secretBankRepo(t)
			h := newHostRun(t, host, root, nil)
			sh := searchShapes[host]
			cases := []struct {
				name    string
				call    map[string]any
				refused bool
			}{
				{"no path, the token's prefix", sh.search("ghp_", nil), true},
				{"the root, the token's prefix", sh.search("ghp_", map[string]any{"path": root}), true},
				{"the root, a word on the secret's line", sh.search("TOKEN:", map[string]any{"path": root}), true},
				{"the root, a pattern Go cannot compile", sh.search(`(?<=token: )\w+`, map[string]any{"path": root}), true},
				{"the root, nothing secret matches", sh.search("queue", map[string]any{"path": root}), false},
				{"the root, a pattern matching nothing", sh.search("no such words here", nil), false},
				{"a directory without the bank", sh.search("ghp_", map[string]any{"path": root + "/src"}), false},
			}
			for _, tc := range cases {
				r := h.call("PreToolUse", tc.call)
				if strings.Contains(string(r.Stdout)+r.Stderr+r.Context, readSecret) {
					t.Fatalf("%s: the reply carries the secret: %s %s", tc.name, r.Stdout, r.Stderr)
				}
				got := denied(t, host, r)
				if !tc.refused {
					if got != "" {
						t.Errorf("%s: refused: %s", tc.name, got)
					}
					continue
				}
				if got == "" {
					t.Errorf("%s: allowed, and its output would show the secret", tc.name)
					continue
				}
				wantAboveRefusal(t, got)
			}
		})
	}
}

// The search tools' own settings decide which lines come back: Droid's file filter, context
// lines and output mode, Crush's include and literal text.
func TestSearchAboveBankSettings(t *testing.T) {
	root := secretBankRepo(t)
	cases := []struct {
		host, name string
		extra      map[string]any
		pattern    string
		refused    bool
	}{
		{"droid", "a file filter that leaves the bank file out", map[string]any{"glob_pattern": "*.go"}, "ghp_", false},
		{"droid", "a file filter that takes it in", map[string]any{"glob_pattern": "**/*.{md,txt}"}, "ghp_", true},
		{"droid", "the bank excluded", map[string]any{"glob_pattern": "!memory-bank/**"}, "ghp_", false},
		{"droid", "file paths only", map[string]any{"output_mode": "file_paths"}, "ghp_", false},
		{"droid", "case kept, the pattern in capitals", map[string]any{"case_insensitive": false}, "TOKEN:", false},
		{"droid", "the line before the secret's, with context", map[string]any{"context_after": 1}, "^# Tech", true},
		{"droid", "the line before the secret's, no context", nil, "^# Tech", false},
		{"crush", "include of another type", map[string]any{"include": "*.{ts,tsx}"}, "ghp_", false},
		{"crush", "literal text", map[string]any{"literal_text": true}, "token: ghp_", true},
		{"crush", "literal text that is no regexp", map[string]any{"literal_text": true}, "ghp_.*", false},
	}
	for _, tc := range cases {
		h := newHostRun(t, tc.host, root, nil)
		r := h.call("PreToolUse", searchShapes[tc.host].search(tc.pattern, tc.extra))
		if got := denied(t, tc.host, r); (got != "") != tc.refused {
			t.Errorf("%s %s: refused %q, want refused %v", tc.host, tc.name, got, tc.refused)
		}
	}
}

// A shell command that reads at any depth from a directory holding the bank (grep -r at the
// root, rg with no path, find -exec, xargs, a glob over the bank) is refused on the hosts
// that cannot hide its output while any bank file holds a secret; told to leave the bank out,
// or not searching, it runs. The reply never carries the secret.
func TestShellSearchAboveBankSecret(t *testing.T) {
	cases := []shellCase{
		{"grep -rn ghp_ .", true},
		{"grep -r token", true},
		{"rg ghp_", true},
		{"rg -i 'TOKEN' | head -5", true},
		{"cd src && cd .. && grep -R queue .", true},
		{"find . -name '*.md' -exec cat {} +", true},
		{"find . -name '*.md' | xargs cat", true},
		{"git grep -n token", true},
		{"cat memory-bank/*/*", true},
		{"head -n 3 */*/*.md", true},
		{"grep -r --exclude-dir=memory-bank ghp_ .", false},
		{"rg -g '!memory-bank' ghp_", false},
		{"rg --glob '!memory-bank/**' ghp_", false},
		{"git grep -n token -- ':!memory-bank'", false},
		{"rg -l ghp_", false},
		{"ls -la", false},
		{"go version", false},
		{"find . -name '*.md'", false},
		{"grep -rn ghp_ src", false},
		{"grep -rn --include='*.go' ghp_ .", false},
		{"grep -rn --include='*.md' ghp_ .", true},
		{"rg -t go ghp_", false},
	}
	refusePlay{cases: cases, leak: "its output would show the secret",
		check: func(t *testing.T, cmd, got string) {
			if strings.Contains(cmd, "*/") {
				wantSecretNotice(t, got) // a glob names the files: their text is handed over, redacted
				return
			}
			wantAboveRefusal(t, got)
			if !strings.Contains(got, "--exclude-dir=memory-bank") {
				t.Errorf("%s: refusal %q: want the way to search with the bank left out", cmd, got)
			}
		}}.run(t)
}

// FuzzSearchOf: any search call's arguments are read without a panic, and a file filter that
// excludes nothing by name admits every file it does not exclude.
func FuzzSearchOf(f *testing.F) {
	for _, seed := range [][3]string{
		{"ghp_", "*.{md,txt}", "memory-bank/details/tech.md"},
		{`(?<=x)`, "!memory-bank/**", "memory-bank/a.md"},
		{"a{", "{a,{b}}", "x/y"},
		{"", "**/", ""},
		{"[", "[", "["},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, pattern, glob, rel string) {
		c := hookCall{Tool: "Grep", Cwd: "/p", Args: map[string]any{"pattern": pattern, "glob": glob, "-C": float64(len(rel) % 4)}}
		s, ok := searchOf(&c)
		if !ok {
			t.Fatal("a Grep call is a search")
		}
		body := []byte("a\n" + rel + "\nb")
		s.shows(bankSecret{line: 2, secret: rel}, body, rel)
		if globsAdmit(nil, rel) != true {
			t.Fatal("no filter leaves a file out")
		}
	})
}

// BenchmarkQwenSearchAbove prices the check a search above the bank now costs on Qwen Code's
// PreToolUse against the whole PreToolUse it is part of, both measured in this process, on the
// costliest allowed case: a grep_search of the whole project whose pattern matches no secret
// line, in a bank of 40 files one of which holds a secret (every file is walked, the secret's
// file scanned). Compare check with handle; shell is the same for `grep -rn queue .`.
func BenchmarkQwenSearchAbove(b *testing.B) {
	root := bankRepo(b)
	for i := range 40 {
		testgit.Write(b, root, fmt.Sprintf("memory-bank/details/n%02d.md", i), "# Note\nnothing secret here\n")
	}
	testgit.Write(b, root, readSecretFile, "# Tech\ntoken: "+readSecret+"\nuse the queue\n")
	h := &Hook{Host: "qwen", Dir: root, Getenv: func(string) string { return "" }}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		tool string
		in   map[string]any
	}{
		{"search", "grep_search", map[string]any{"pattern": "queue"}},
		{"shell", "run_shell_command", map[string]any{"command": "grep -rn --exclude-dir=memory-bank queue .", "description": "x"}},
	} {
		p, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "bench-session", "cwd": root, "prompt_id": "p1",
			"tool_name": tc.tool, "tool_use_id": "call_s", "tool_input": tc.in})
		if r := h.Handle(ctx, p); r.Exit != 0 {
			b.Fatalf("%s refused: %s", tc.name, r.Stderr)
		}
		b.Run(tc.name+"/handle", func(b *testing.B) {
			for b.Loop() {
				h.Handle(ctx, p)
			}
		})
		b.Run(tc.name+"/check", func(b *testing.B) {
			for b.Loop() {
				call, err := qwenProto{}.parse(p, "")
				if err != nil {
					b.Fatal(err)
				}
				if reason, _ := secretRefusal(&call, h.repos(&call)); reason != "" {
					b.Fatal("refused")
				}
			}
		})
	}
}
