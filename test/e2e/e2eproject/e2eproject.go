package e2eproject

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

var build struct {
	once sync.Once
	dir  string
	err  error
}

// Binary builds mbguard and mbguard-hook (what install writes into the hosts' hook entries)
// once per test binary and returns the folder that holds them, with the Go caches Main kept
// from the real HOME; Main removes it.
func Binary(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "mbguard-e2e-bin")
		if err != nil {
			build.err = err
			return
		}
		build.dir = dir
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/mbguard", "./cmd/mbguard-hook")
		cmd.Dir = testhost.ModuleRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.dir
}

// Main is every host package's TestMain: the process gets a private git configuration and
// HOME (testgit.IsolateProcess), so the tests can run in parallel, each with its own HOME in
// its Project's Env; afterwards the binary Binary built is removed and each of after runs.
func Main(m *testing.M, after ...func()) {
	// Binary's go build keeps the Go caches of the real HOME, which is about to move.
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: go env:", err)
		os.Exit(1)
	}
	for i, v := range strings.Fields(string(out)) {
		os.Setenv([]string{"GOCACHE", "GOMODCACHE", "GOPATH"}[i], v)
	}
	cleanup, err := testgit.IsolateProcess()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: isolating git:", err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	for _, f := range after {
		f()
	}
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// Project is one test's isolated machine: a repository with a memory bank, its own HOME, and
// the environment every command of the test runs with.
type Project struct {
	Root string
	Home string
	Bin  string
	// Env is the base environment: the test process's, less every variable an agent host or
	// mbguard reads, with HOME isolated and mbguard first on PATH.
	Env []string
}

// Marker is written into MEMORY.md's Current Focus, so a test can tell whether the memory
// bank reached the model.
const Marker = "e2e-memory-7f3a"

// Dropped are the prefixes of the variables a test never inherits: the hosts' own, and
// mbguard's, which would change the decisions.
var Dropped = []string{"OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "COPILOT_", "GH_", "GITHUB_",
	"ANTHROPIC_", "CLAUDE", "OPENCODE", "KILO", "MEMORY_BANK_", "MBGUARD", "XDG_", "NODE_OPTIONS", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"}

// Script is a committed build script that writes into memory-bank/ behind a harmless command
// line: what the outcome check after a tool call has to catch and undo.
const Script = "scripts/regen.sh"

// ScriptBody writes a non-.md file into the bank and appends to progress.md.
const ScriptBody = `#!/bin/sh
# regenerate the build cache
echo '{"cache": true}' > memory-bank/cache.json
printf '\n- noted by a script\n' >> memory-bank/details/progress.md
echo regenerated
`

// New makes the project: git repository, `mbguard init`, the marker in MEMORY.md, source
// files and Script, all committed. The test runs in parallel with the package's others (Main
// isolated the process; the Project has a HOME of its own).
func New(t *testing.T) *Project {
	t.Helper()
	t.Parallel()
	p := Bare(t)
	p.Mbguard(t, "init")

	mem := p.File(t, "memory-bank/MEMORY.md")
	const placeholder = "- (nothing recorded yet: write the task in hand, what is done and what is next)"
	if !strings.Contains(mem, placeholder) {
		t.Fatalf("mbguard init's MEMORY.md has no Current Focus placeholder to replace:\n%s", mem)
	}
	p.Write(t, "memory-bank/MEMORY.md", strings.Replace(mem, placeholder, "- ship the payment retry queue (marker: "+Marker+")", 1))
	p.Write(t, "memory-bank/details/patterns.md", p.File(t, "memory-bank/details/patterns.md")+"\n- Retries go through the queue (pattern-zebra).\n")
	p.Write(t, "src/app.go", "package app\n")
	p.Write(t, "src/auth/session.go", "package auth\n") // src/auth/ exists: Copilot's create needs the parent
	p.Write(t, Script, ScriptBody)
	if err := os.Chmod(p.Abs(Script), 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Commit(t, p.Root, "initial")
	return p
}

// Bare is an empty repository with its own HOME and Env, mbguard first on PATH: what New
// starts from, for a test that writes its own project. Call t.Parallel first, and only in a
// package whose TestMain is Main.
func Bare(t *testing.T) *Project {
	t.Helper()
	if os.Getenv("GIT_CONFIG_GLOBAL") == "" {
		t.Fatal("e2eproject: the package's TestMain must be e2eproject.Main (git is not isolated)")
	}
	bin := Binary(t)
	home, isolated := testgit.Home(t)
	root := testgit.Repo(t)
	p := &Project{Root: root, Home: home, Bin: bin, Env: Environ(isolated)}
	p.Env = append(p.Env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "PWD="+root, "NO_COLOR=1")
	return p
}

// Environ is this process's environment less PATH, PWD, testgit's variables and every
// Dropped one, with isolated (testgit.Home's) added.
func Environ(isolated []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "PWD" || slices.Contains(testgit.Vars, k) || hasAnyPrefix(k, Dropped) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, isolated...)
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// NewSecret returns a GitHub token made up for this run (gitleaks' github-pat rule finds it).
func NewSecret() string { return "ghp_" + (rand.Text() + rand.Text())[:36] }

// PlantSecret commits a GitHub token made up for this run into MEMORY.md's Current Focus and
// returns it: mbguard must redact it before MEMORY.md goes to the model.
func (p *Project) PlantSecret(t *testing.T) string {
	t.Helper()
	secret := NewSecret()
	mem := p.File(t, "memory-bank/MEMORY.md")
	line := "- ship the payment retry queue (marker: " + Marker + ")"
	if !strings.Contains(mem, line) {
		t.Fatalf("MEMORY.md has no marker line to put the secret after:\n%s", mem)
	}
	p.Write(t, "memory-bank/MEMORY.md", strings.Replace(mem, line, line+"\n- deploy token for staging: "+secret, 1))
	testgit.Commit(t, p.Root, "a token slipped into the memory")
	return secret
}

// BlockMode writes .mbguard.yaml with gating.mode: block, so a high-risk write is refused
// until the memory bank was read.
func (p *Project) BlockMode(t *testing.T) {
	t.Helper()
	p.Write(t, ".mbguard.yaml", "gating:\n  mode: block\n")
}

// Mbguard runs the built mbguard in the project and returns its combined output.
func (p *Project) Mbguard(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(p.Bin, "mbguard"), args...)
	cmd.Dir = p.Root
	cmd.Env = p.Env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mbguard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Install runs `mbguard install --agent host --no-skill` and returns its output.
func (p *Project) Install(t *testing.T, host string) string {
	t.Helper()
	return p.Mbguard(t, "install", "--agent", host, "--no-skill")
}

// Run runs a host binary in the project with Env plus env, stdin closed, and returns its
// combined output. It fails the test when the host does not exit 0 within limit.
func (p *Project) Run(t *testing.T, limit time.Duration, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = p.Root
	cmd.Env = append(append([]string(nil), p.Env...), env...)
	cmd.Stdin = nil // /dev/null: hosts wait on a piped stdin
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState != nil {
		// the CPU the host and the children it waited for used: what a quiet machine pays
		t.Logf("%s ran %.1fs (%.1fs of CPU)", filepath.Base(name), time.Since(start).Seconds(),
			(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds())
	} else {
		t.Logf("%s ran %.1fs", filepath.Base(name), time.Since(start).Seconds())
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("%s did not finish within %s\n%s", filepath.Base(name), limit, out)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(name), err, out)
	}
	return string(out)
}

// Abs is rel's absolute path in the project.
func (p *Project) Abs(rel string) string { return filepath.Join(p.Root, filepath.FromSlash(rel)) }

// File returns rel's content; a missing file fails the test.
func (p *Project) File(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(p.Abs(rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Exists reports whether rel exists (as anything, a dangling symlink included).
func (p *Project) Exists(rel string) bool {
	_, err := os.Lstat(p.Abs(rel))
	return err == nil
}

// Write creates rel with content, parents included.
func (p *Project) Write(t *testing.T, rel, content string) {
	t.Helper()
	testgit.Write(t, p.Root, rel, content)
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// DecisionLog returns mbguard's decision log (empty when nothing was logged).
func (p *Project) DecisionLog() string {
	b, _ := os.ReadFile(filepath.Join(p.Root, ".git", "mbguard", "decisions.jsonl"))
	return string(b)
}

// AnchorLine is a line of the anchor block mbguard gives the model after a compaction; it is
// matched instead of the <memory-bank-anchors> tag, which Gemini CLI escapes in hook context.
const AnchorLine = "Compaction occurred. Before any write, read:"

// FakePluginPackage writes into dir an empty stand-in for the plugin package name@version that
// a host with OpenCode's plugin API (OpenCode's @opencode-ai/plugin, Kilo Code's
// @kilocode/plugin) npm-installs into each of its configuration folders unless they already
// list it: mbguard's plugin imports nothing from it, so the stand-in keeps the run offline.
func FakePluginPackage(t *testing.T, dir, name, version string) {
	t.Helper()
	dep := `{"` + name + `":"` + version + `"}`
	files := map[string]string{
		"package.json": `{"dependencies":` + dep + `}`,
		"package-lock.json": `{"name":"plugins","lockfileVersion":3,"requires":true,"packages":{"":{"dependencies":` + dep +
			`},"node_modules/` + name + `":{"version":"` + version + `"}}}`,
		"node_modules/" + name + "/package.json": `{"name":"` + name + `","version":"` + version + `","type":"module","main":"index.js"}`,
		"node_modules/" + name + "/index.js":     "export {}\n",
		".gitignore":                             "node_modules\npackage.json\npackage-lock.json\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
