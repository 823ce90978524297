package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

var programs struct {
	once sync.Once
	dir  string
	err  error
}

// built is a folder holding mbguard and mbguard-hook, as a release packs them.
func built(t *testing.T) string {
	t.Helper()
	programs.once.Do(func() {
		dir, err := os.MkdirTemp("", "mbguard-hook-test")
		if err != nil {
			programs.err = err
			return
		}
		programs.dir = dir
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/mbguard", "./cmd/mbguard-hook")
		cmd.Dir = testhost.ModuleRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			programs.err = err
			programs.dir = string(out)
		}
	})
	if programs.err != nil {
		t.Fatalf("go build: %v\n%s", programs.err, programs.dir)
	}
	return programs.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if programs.dir != "" && programs.err == nil {
		os.RemoveAll(programs.dir)
	}
	os.Exit(code)
}

func exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

type answer struct {
	code           int
	stdout, stderr string
}

// call runs program in dir with stdin, HOME and git isolated by env.
func call(t *testing.T, program, dir string, env []string, stdin string, args ...string) answer {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", program, err)
	}
	return answer{code, out.String(), errb.String()}
}

// project is a repository with a bank whose MEMORY.md and one note hold a token.
func project(t *testing.T, token string) (root string, env []string) {
	t.Helper()
	_, env = testgit.Home(t)
	root = t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	git := exec.Command("git", "init", "-q")
	git.Dir, git.Env = root, append(os.Environ(), env...)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for rel, body := range map[string]string{
		"memory-bank/MEMORY.md":        "# Memory\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\nci token " + token + "\n<!-- USER_BLOCK_END -->\n",
		"memory-bank/details/notes.md": "# Notes\n\nGITHUB_TOKEN=" + token + "\n",
		"memory-bank/details/plain.md": "# Plain\n\nnothing to hide\n",
		"src/app.go":                   "package src\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, env
}

// session is a Claude Code session's payloads in order, with ROOT for the project and TOKEN
// for the secret: every kind of call that scans (the injection, a read of a bank file that
// holds the secret, its output, a write of one into the bank, a shell read) and ones that do
// not.
func session(root, token string) []string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	ev := func(name, tool, id string, input map[string]any, extra string) string {
		in, _ := json.Marshal(input)
		s := `{"hook_event_name":"` + name + `","session_id":"s-1","cwd":` + q(root) + `,"transcript_path":""`
		if tool != "" {
			s += `,"tool_name":"` + tool + `","tool_use_id":"` + id + `","tool_input":` + string(in)
		}
		return s + extra + "}"
	}
	note := root + "/memory-bank/details/notes.md"
	return []string{
		ev("SessionStart", "", "", nil, `,"source":"startup"`),
		ev("UserPromptSubmit", "", "", nil, `,"prompt":"fix the build"`),
		ev("PreToolUse", "Read", "t1", map[string]any{"file_path": note}, ""),
		ev("PostToolUse", "Read", "t1", map[string]any{"file_path": note}, `,"tool_response":{"type":"text","file":{"filePath":`+q(note)+`,"content":`+q("# Notes\n\nGITHUB_TOKEN="+token+"\n")+`}}`),
		ev("PreToolUse", "Read", "t2", map[string]any{"file_path": root + "/memory-bank/details/plain.md"}, ""),
		ev("PostToolUse", "Read", "t2", map[string]any{"file_path": root + "/memory-bank/details/plain.md"}, `,"tool_response":{"type":"text","file":{"content":"# Plain\n"}}`),
		ev("PreToolUse", "Write", "t3", map[string]any{"file_path": root + "/memory-bank/details/new.md", "content": "# New\n\nkey " + token + "\n"}, ""),
		ev("PreToolUse", "Edit", "t4", map[string]any{"file_path": root + "/src/app.go", "old_string": "package src", "new_string": "package src // edited"}, ""),
		ev("PostToolUse", "Edit", "t4", map[string]any{"file_path": root + "/src/app.go", "old_string": "package src", "new_string": "package src // edited"}, `,"tool_response":{}`),
		ev("PreToolUse", "Bash", "t5", map[string]any{"command": "cat memory-bank/details/notes.md"}, ""),
		ev("PostToolUse", "Bash", "t5", map[string]any{"command": "cat memory-bank/details/notes.md"}, `,"tool_response":{"stdout":`+q("GITHUB_TOKEN="+token+"\n")+`,"stderr":"","interrupted":false}`),
		ev("PreToolUse", "Bash", "t6", map[string]any{"command": "echo hi > memory-bank/x.txt"}, ""),
	}
}

// The hook program answers every call of a session exactly as mbguard hook does, the calls
// whose answer needs a secret scan included (made by the mbguard beside it), and never shows
// the secret.
func TestHookAnswersAsMbguard(t *testing.T) {
	dir := built(t)
	token := testgit.FakeGitHubToken(t)
	var got [2][]answer
	for i, prog := range []string{exe("mbguard"), exe("mbguard-hook")} {
		root, env := project(t, token)
		for _, p := range session(root, token) {
			a := call(t, filepath.Join(dir, prog), root, env, p, "hook", "claude")
			a.stdout = strings.ReplaceAll(a.stdout, root, "ROOT")
			a.stderr = strings.ReplaceAll(a.stderr, root, "ROOT")
			got[i] = append(got[i], a)
		}
	}
	scanned := false
	for i := range got[0] {
		full, light := got[0][i], got[1][i]
		if full != light {
			t.Errorf("call %d: mbguard hook answered %+v, mbguard-hook %+v", i+1, full, light)
		}
		if strings.Contains(light.stdout+light.stderr, token) {
			t.Errorf("call %d: the answer shows the secret: %+v", i+1, light)
		}
		if strings.Contains(light.stdout+light.stderr, "github-pat") {
			scanned = true
		}
	}
	if !scanned {
		t.Errorf("no answer names the secret's rule: the session never made the hook scan\n%+v", got[1])
	}
	if w := got[1][6]; w.code != 2 || !strings.Contains(w.stderr, "secret") {
		t.Errorf("a Write of a secret into the bank: %+v, want it refused (exit 2) for the secret", w)
	}
}

// Without the mbguard beside it, the hook program still answers calls that need no scan, and
// refuses those that do (fail closed); any other command line fails with the next step.
func TestHookWithoutMbguardBeside(t *testing.T) {
	alone := t.TempDir()
	b, err := os.ReadFile(filepath.Join(built(t), exe("mbguard-hook")))
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(alone, exe("mbguard-hook"))
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	token := testgit.FakeGitHubToken(t)
	root, env := project(t, token)
	s := session(root, token)

	if a := call(t, prog, root, env, "", "--version"); a.code != 2 || !strings.Contains(a.stderr, "reinstall mbguard") {
		t.Errorf("--version without mbguard beside: %+v, want exit 2 naming the reinstall", a)
	}
	call(t, prog, root, env, s[1], "hook", "claude")
	if a := call(t, prog, root, env, s[7], "hook", "claude"); a.code != 0 {
		t.Errorf("an Edit of code (no scan): %+v, want it answered", a)
	}
	call(t, prog, root, env, s[8], "hook", "claude")
	if a := call(t, prog, root, env, s[6], "hook", "claude"); a.code != 2 || !strings.Contains(a.stderr, "could not be scanned") {
		t.Errorf("a Write into the bank that needs a scan: %+v, want it refused as unscanned", a)
	}
}

// Every command line but a hook call is mbguard's: handed over whole, stdin, output and exit
// code included.
func TestHandsOverOtherCommands(t *testing.T) {
	dir := built(t)
	root, env := project(t, testgit.FakeGitHubToken(t))
	for _, args := range [][]string{{"--version"}, {"hook", "nosuchhost"}, {"hook", "claude", "--set", "gating.mode=block"}, {"check", "--all"}} {
		full := call(t, filepath.Join(dir, exe("mbguard")), root, env, "{}", args...)
		light := call(t, filepath.Join(dir, exe("mbguard-hook")), root, env, "{}", args...)
		if full != light {
			t.Errorf("%v: mbguard answered %+v, mbguard-hook %+v", args, full, light)
		}
	}
}

// `mbguard install` writes mbguard-hook, found beside it, into the hosts' hook entries (by
// absolute path: this folder is not on PATH), and doctor checks the pair: with the mbguard
// beside mbguard-hook gone, the hooks' line names what is missing.
func TestInstallWritesTheHookProgram(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{exe("mbguard"), exe("mbguard-hook")} {
		b, err := os.ReadFile(filepath.Join(built(t), p))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root, env := project(t, testgit.FakeGitHubToken(t))
	full, light := filepath.Join(dir, exe("mbguard")), filepath.Join(dir, exe("mbguard-hook"))
	if a := call(t, full, root, env, "", "install", "--agent", "claude", "--no-skill"); a.code != 0 {
		t.Fatalf("install: %+v", a)
	}
	settings, err := os.ReadFile(filepath.Join(root, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(settings, &s); err != nil {
		t.Fatal(err)
	}
	pre := s.Hooks["PreToolUse"]
	if len(pre) == 0 || len(pre[0].Hooks) == 0 || !strings.Contains(pre[0].Hooks[0].Command, light) ||
		!strings.HasSuffix(pre[0].Hooks[0].Command, " hook claude") {
		t.Fatalf("PreToolUse does not run mbguard-hook:\n%s", settings)
	}
	doctor := func() string {
		t.Helper()
		a := call(t, filepath.Join(built(t), exe("mbguard")), root, env, "", "doctor")
		for _, line := range strings.Split(a.stdout+a.stderr, "\n") {
			if strings.Contains(line, "Claude Code") {
				return line
			}
		}
		t.Fatalf("doctor has no Claude Code line:\n%s%s", a.stdout, a.stderr)
		return ""
	}
	if line := doctor(); strings.Contains(line, "missing") || strings.Contains(line, "not on PATH") {
		t.Errorf("doctor with the pair in place: %s", line)
	}
	if err := os.Remove(full); err != nil {
		t.Fatal(err)
	}
	if line := doctor(); !strings.Contains(line, "the mbguard it needs beside it") {
		t.Errorf("doctor without the mbguard beside mbguard-hook: %q, want it named", line)
	}
}

// The engine starts early for payloads that write text (a guess that decides only when it
// starts): writes and edits of each host's shape do, reads do not.
func TestWritesText(t *testing.T) {
	for payload, want := range map[string]bool{
		`{"tool_name":"Write","tool_input":{"file_path":"memory-bank/a.md","content":"x"}}`:                      true,
		`{"tool_name":"Edit","tool_input":{"file_path":"memory-bank/a.md","new_string":"x"}}`:                    true,
		`{"toolName":"create","toolArgs":"{\"path\":\"memory-bank/a.md\",\"file_text\":\"x\"}"}`:                 true,
		`{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: memory-bank/a.md"}}`: true,
		`{"tool_name":"Read","tool_input":{"file_path":"memory-bank/MEMORY.md"}}`:                                false,
		`{"tool_name":"Bash","tool_input":{"command":"cat memory-bank/MEMORY.md"}}`:                              false,
	} {
		if got := writesText([]byte(payload)); got != want {
			t.Errorf("writesText(%s) = %v, want %v", payload, got, want)
		}
	}
}

// A watcher mbguard runs (`mbguard watch`) is asked by mbguard-hook: the hook trusts its pair
// installed beside it as it trusts itself, so no "stray watcher" report is written and the
// answers are those of the hook without it.
func TestHookAsksTheWatcherBeside(t *testing.T) {
	dir := built(t)
	token := testgit.FakeGitHubToken(t)
	root, env := project(t, token)
	full, light := filepath.Join(dir, exe("mbguard")), filepath.Join(dir, exe("mbguard-hook"))
	if a := call(t, full, root, env, "", "watch", "--detach"); a.code != 0 {
		t.Fatalf("watch --detach: %+v", a)
	}
	t.Cleanup(func() { call(t, full, root, env, "", "watch", "--stop") })
	s := session(root, token)
	for i, p := range s[:3] {
		if a := call(t, light, root, env, p, "hook", "claude"); a.code != 0 {
			t.Fatalf("call %d: %+v", i+1, a)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, ".git", "mbguard", "watch.stray")); err == nil {
		t.Errorf("mbguard-hook did not trust the watcher mbguard runs: %s", b)
	}
	if a := call(t, full, root, env, "", "watch", "--status"); !strings.Contains(a.stdout+a.stderr, "hooks: ask this watcher") {
		t.Errorf("watch --status: %+v", a)
	}
	if a := call(t, light, root, env, s[6], "hook", "claude"); a.code != 2 || !strings.Contains(a.stderr, "github-pat") {
		t.Errorf("a Write of a secret into the bank, asked of the watcher: %+v, want it refused naming the rule", a)
	}
}
