package gating_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/watcher"
	"github.com/rogpeppe/go-internal/txtar"
)

// This file is an external test package: it drives both agent protocols (hooks, watcher),
// which import gating, so it cannot live in package gating.

const tablesMemory = "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n## Current Focus\n- x\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n"

// TestTableRowsThroughBothProtocols runs rows of the package-manager and formatter tables with
// the real tools in scratch repositories (offline) in block mode, through `hook claude`
// (Claude Code's PreToolUse) and `serve --stdio` (OpenCode's tool.before): a manager that
// rewrites a manifest or lockfile is refused before the bank is read and allowed after, a
// formatter that cannot write Markdown is never refused, and every file the command really
// wrote (ignored ones included) is among the paths each protocol's decision named.
func TestTableRowsThroughBothProtocols(t *testing.T) {
	// The rows run real npm, go and cargo: seconds each. Under -short they are skipped on a
	// person's machine; with CI set they run in full, -short or not.
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("runs real npm, go and cargo; not in -short (CI runs it)")
	}
	dir := "shell/testdata/projects"
	goMod, crate := projectFiles(t, dir, "gomod"), projectFiles(t, dir, "crate")
	pkgJSON, unformatted := projectFiles(t, dir, "pkgjson"), projectFiles(t, dir, "unformatted")
	cases := []struct {
		name, tool, how string
		files           map[string]string
		cmd             string
		refused         bool // before the bank is read, in block mode
	}{
		{"npm install", "npm", "apt-get install npm", pkgJSON, "npm install --no-audit --no-fund --offline ./dep", true},
		{"npm --prefix install", "npm", "apt-get install npm", map[string]string{"web/package.json": pkgJSON["package.json"], "dep/package.json": pkgJSON["dep/package.json"]},
			"npm --prefix web install --no-audit --no-fund --offline ./dep", true},
		{"npm version", "npm", "apt-get install npm", pkgJSON, "npm version --no-git-tag-version 1.2.0", true},
		{"npm pkg set", "npm", "apt-get install npm", pkgJSON, "npm pkg set description=x", true},
		{"go get", "go", "install Go", goMod, "go get example.com/dep@v0.0.0-00010101000000-000000000000", true},
		{"go mod tidy", "go", "install Go", goMod, "go mod tidy", true},
		{"go mod edit", "go", "install Go", goMod, "go mod edit -go=1.22", true},
		{"go work init", "go", "install Go", goMod, "go work init . ./dep", true},
		{"cd and go mod init", "go", "install Go", map[string]string{"tools/x.go": "package x\n"}, "cd tools && go mod init example.com/tools", true},
		{"cargo add", "cargo", "install Rust (rustup)", crate, "cargo add --offline --path dep", true},
		{"cargo generate-lockfile", "cargo", "install Rust (rustup)", crate, "cargo generate-lockfile --offline", true},
		{"gofmt -w .", "gofmt", "install Go", unformatted, "gofmt -w .", false},
		{"go fmt", "go", "install Go", unformatted, "go fmt ./...", false},
		{"cargo fmt", "cargo", "install Rust (rustup)", crate, "cargo fmt", false},
	}
	rustup := os.Getenv("RUSTUP_HOME")
	if home, err := os.UserHomeDir(); rustup == "" && err == nil {
		rustup = home + "/.rustup"
	}
	toolEnv := []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", "npm_config_update_notifier=false", "RUSTUP_HOME=" + rustup}
	if d, err := os.UserConfigDir(); err == nil {
		toolEnv = append(toolEnv, "XDG_CONFIG_HOME="+d)
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		if out, err := exec.Command("go", "env", k).Output(); err == nil && len(strings.TrimSpace(string(out))) > 0 {
			toolEnv = append(toolEnv, k+"="+strings.TrimSpace(string(out)))
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testhost.Tool(t, c.tool, c.how)
			dir := testgit.New(t)
			testgit.Write(t, dir, "memory-bank/MEMORY.md", tablesMemory)
			testgit.Write(t, dir, "memory-bank/details/patterns.md", "# Patterns\n")
			for p, s := range c.files {
				testgit.Write(t, dir, p, s)
			}
			testgit.Commit(t, dir, "init")
			claude := &claudeRun{t: t, root: dir, now: time.UnixMilli(1_700_000_000_000)}
			claude.call("UserPromptSubmit", map[string]any{"prompt": "add a dependency"})
			before := claude.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c.cmd}})
			if refused := before.Exit == 2; refused != c.refused || before.Decision == nil {
				t.Fatalf("hook claude, nothing read: exit %d (%q), want refused=%v", before.Exit, before.Stderr, c.refused)
			}
			served := serveEvent(t, dir, `"kind":"tool.before","host":"opencode","session":"s","message":"m1","tool":"bash","args":{"command":`+quote(c.cmd)+`}`)
			if refused := served.Verdict == "block"; refused != c.refused {
				t.Fatalf("serve --stdio, nothing read: %+v, want refused=%v", served, c.refused)
			}

			run := exec.Command("bash", "-c", c.cmd)
			run.Dir = dir
			run.Env = append(append(os.Environ(), toolEnv...), "CARGO_HOME="+t.TempDir())
			if out, err := run.CombinedOutput(); err != nil {
				t.Fatalf("%s failed: %v\n%s", c.cmd, err, out)
			}
			wrote := strings.Fields(testgit.Git(t, dir, "ls-files", "-m", "-d", "-o"))
			if len(wrote) == 0 {
				t.Fatalf("%q wrote nothing; the case proves nothing", c.cmd)
			}
			for _, f := range wrote {
				if !coveredBy(f, before.Decision.Paths) {
					t.Errorf("%q wrote %s; hook claude named %q", c.cmd, f, before.Decision.Paths)
				}
				if !coveredBy(f, served.Paths) {
					t.Errorf("%q wrote %s; serve --stdio named %q", c.cmd, f, served.Paths)
				}
				if !c.refused && strings.HasSuffix(f, ".md") {
					t.Errorf("formatter %q wrote %s, a Markdown file", c.cmd, f)
				}
			}

			abs := filepath.Join(dir, "memory-bank/details/patterns.md")
			claude.call("PreToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": abs}})
			claude.call("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": abs},
				"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": abs, "content": "x", "numLines": 1, "startLine": 1, "totalLines": 1}}})
			if after := claude.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c.cmd}}); after.Exit != 0 {
				t.Fatalf("hook claude, bank read: exit %d (%q), want allowed", after.Exit, after.Stderr)
			}
		})
	}
}

// claudeRun sends Claude Code hook payloads for one session in block mode.
type claudeRun struct {
	t    *testing.T
	root string
	now  time.Time
}

func (h *claudeRun) call(event string, extra map[string]any) hooks.ClaudeReply {
	m := map[string]any{"hook_event_name": event, "session_id": "0b6c1c7e-8f6e-4a1e-9d6a-000000000020", "cwd": h.root,
		"transcript_path": filepath.Join(h.root, ".t.jsonl")}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		h.t.Fatal(err)
	}
	h.now = h.now.Add(time.Second)
	c := &hooks.Claude{Dir: h.root, Getenv: blockMode, Now: func() time.Time { return h.now }}
	return c.Handle(context.Background(), b)
}

func blockMode(k string) string {
	if k == "MEMORY_BANK_GUARD_MODE" {
		return "block"
	}
	return ""
}

// serveEvent sends one event through serve --stdio in block mode and returns its decision.
func serveEvent(t *testing.T, dir, event string) struct {
	Verdict, Gate, Message string
	Paths                  []string
} {
	t.Helper()
	r, err := repo.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{RepoRoot: r.Root, Getenv: blockMode})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	svc := watcher.NewService(r, cfg, watcher.ServiceOptions{Resident: true})
	if err := watcher.Serve(context.Background(), svc, strings.NewReader(`{"id":1,"op":"event","event":{`+event+`}}`+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Decision *struct {
			Verdict, Gate, Message string
			Paths                  []string
		}
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out.String())), &resp); err != nil || resp.Decision == nil {
		t.Fatalf("bad response %q", out.String())
	}
	return *resp.Decision
}

// coveredBy reports a repository-relative path among the named paths or below a named
// directory ("." and "" name the whole tree).
func coveredBy(f string, paths []string) bool {
	for _, p := range paths {
		p = strings.TrimSuffix(p, "/")
		if p == "." || p == "" || f == p || strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// projectFiles is one of the scratch projects both real-tool table tests start from
// (gating/shell/testdata/projects/<name>.txtar): file path → content.
func projectFiles(t *testing.T, dir, name string) map[string]string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join(dir, name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range a.Files {
		files[f.Name] = string(f.Data)
	}
	return files
}
