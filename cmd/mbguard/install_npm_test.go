package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// npmInstall lays out in dir/node_modules what `npm install -D mbguard` leaves there: the
// platform package holding the binary (this test binary, which acts as mbguard under that
// name), the main package with the real launcher from npm/mbguard, and the .bin link to it.
func npmInstall(t *testing.T, node, dir string) {
	t.Helper()
	out, err := exec.Command(node, "-p", `process.platform + "-" + process.arch`).Output()
	if err != nil {
		t.Fatal(err)
	}
	plat := "mbguard-" + strings.TrimSpace(string(out))
	nm := filepath.Join(dir, "node_modules")
	testgit.Write(t, nm, plat+"/package.json", `{"name":"`+plat+`","version":"0.0.0"}`+"\n")
	testgit.Write(t, nm, "mbguard/package.json", `{"name":"mbguard","version":"0.0.0","bin":{"mbguard":"bin/mbguard.js"}}`+"\n")
	launcher, err := os.ReadFile(filepath.Join(testhost.ModuleRoot(t), "npm", "mbguard", "bin", "mbguard.js"))
	if err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(nm, "mbguard", "bin", "mbguard.js")
	testgit.Write(t, nm, "mbguard/bin/mbguard.js", string(launcher))
	bin := filepath.Join(nm, plat, "bin", "mbguard")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, self, bin)
	for _, p := range []string{js, bin} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(nm, ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../mbguard/bin/mbguard.js", filepath.Join(nm, ".bin", "mbguard")); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(from, to) == nil {
		return
	}
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestNpmInstallWorksInEveryClone is a team's first day with the npm channel: one developer
// runs npm install and mbguard install (Claude Code, OpenCode, husky, lefthook) in a clone and
// commits the files; a teammate clones at another path, runs npm install, and the hooks there
// gate and the commit hooks check — nothing in the committed files names the first clone.
func TestNpmInstallWorksInEveryClone(t *testing.T) {
	node := testhost.Tool(t, "node", "install Node.js (the npm channel's launcher runs on it)")
	testgit.Isolate(t)
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	// nothing named mbguard on PATH: the hosts and git must find the project's own install
	path := filepath.Dir(node) + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin"
	if g, err := exec.LookPath("git"); err == nil {
		path = filepath.Dir(g) + string(os.PathListSeparator) + path
	}
	t.Setenv("PATH", path)
	for _, k := range []string{"MBGUARD", "MEMORY_BANK_GUARD_MODE", "CLAUDE_PROJECT_DIR", "MBGUARD_BIN"} {
		t.Setenv(k, "")
	}
	run := func(dir string, env []string, stdin, name string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(dir, name string, args ...string) string {
		t.Helper()
		out, err := run(dir, nil, "", name, args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return out
	}

	first := filepath.Join(base, "alice", "jsapp")
	if err := os.MkdirAll(first, 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Git(t, first, "init", "-q")
	testgit.Write(t, first, "package.json", `{ "private": true }`+"\n")
	testgit.Write(t, first, ".gitignore", "node_modules/\n")
	testgit.Write(t, first, ".husky/pre-commit", "#!/bin/sh\n")
	testgit.Write(t, first, "lefthook.yml", "pre-commit:\n  parallel: true\n")
	npmInstall(t, node, first)
	must(first, "node_modules/.bin/mbguard", "init")
	must(first, "node_modules/.bin/mbguard", "install", "--agent", "claude")
	must(first, "node_modules/.bin/mbguard", "install", "--agent", "opencode")
	must(first, "node_modules/.bin/mbguard", "install", "--hooks", "--husky")
	must(first, "node_modules/.bin/mbguard", "install", "--hooks")
	testgit.Commit(t, first, "mbguard for the team")
	for _, f := range strings.Split(testgit.Git(t, first, "ls-files"), "\n") {
		b, err := os.ReadFile(filepath.Join(first, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), first) {
			t.Errorf("committed %s names this clone's path %s:\n%s", f, first, b)
		}
	}

	second := filepath.Join(base, "bob", "work", "jsapp")
	must(base, "git", "clone", "-q", first, second)
	npmInstall(t, node, second)
	testgit.Git(t, second, "config", "core.hooksPath", ".husky") // what husky's prepare script does

	// gate: the PreToolUse hook Claude Code runs, from the project and from a subfolder
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	b, err := os.ReadFile(filepath.Join(second, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	command := settings.Hooks["PreToolUse"][0].Hooks[0].Command
	write := `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"` + second + `","tool_name":"Write","tool_input":{"file_path":"` + second + `/memory-bank/x.json","content":"{}"}}`
	if err := os.MkdirAll(filepath.Join(second, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir string
		env       []string
	}{
		{"CLAUDE_PROJECT_DIR set", second, []string{"CLAUDE_PROJECT_DIR=" + second}},
		{"from a subfolder, no project variable", filepath.Join(second, "src"), nil},
	} {
		out, err := run(c.dir, c.env, write, "sh", "-c", command)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(out, "x.json") {
			t.Errorf("%s: %s in the second clone: %v, want the bank guard's refusal (exit 2)\n%s", c.name, command, err, out)
		}
	}

	// doctor in the second clone finds the hooks
	out, _ := run(second, nil, "", "node_modules/.bin/mbguard", "doctor")
	for _, want := range []string{"OK    binary     node_modules/.bin/mbguard (this project's npm install", "OK    claude ", "OK    opencode "} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor in the second clone lacks %q:\n%s", want, out)
		}
	}

	// gate: the OpenCode plugin starts the second clone's mbguard serve
	plugin := filepath.Join(second, ".opencode", "plugin", "mbguard.js")
	script := `const m = await import(process.argv[1]);
const p = await m.MbguardPlugin({ directory: process.argv[2], worktree: process.argv[2] });
try {
  await p["tool.execute.before"]({ tool: "write", sessionID: "s1", callID: "c1" }, { args: { filePath: process.argv[2] + "/memory-bank/x.json", content: "{}" } });
  console.log("allowed");
} catch (e) { console.log("blocked: " + e.message) }
process.exit(0);`
	// a loaded machine must not turn the answer into the plugin's fail-safe
	out, err = run(filepath.Join(second, "src"), []string{"MBGUARD_TIMEOUT_MS=120000"}, "", node, "--input-type=module", "-e", script, plugin, second)
	if err != nil || !strings.Contains(out, "blocked: ") || !strings.Contains(out, "x.json") {
		t.Errorf("OpenCode plugin in the second clone: %v, want a block naming x.json\n%s", err, out)
	}

	// commit: husky's .husky/pre-commit and lefthook's command, run as each tool runs them
	testgit.Write(t, second, "memory-bank/notes.txt", "a stray file\n")
	testgit.Git(t, second, "add", "-A")
	out, err = run(second, nil, "", "git", "commit", "-q", "-m", "stray")
	if err == nil || !strings.Contains(out, "notes.txt") {
		t.Errorf("husky in the second clone let a stray bank file in: %v\n%s", err, out)
	}
	lefthook, err := os.ReadFile(filepath.Join(second, "lefthook.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var lrun string
	for _, l := range strings.Split(string(lefthook), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "run: "); ok && strings.Contains(v, "mbguard") {
			lrun = v
		}
	}
	if out, err := run(second, nil, "", "sh", "-c", lrun); err == nil || !strings.Contains(out, "notes.txt") {
		t.Errorf("lefthook's %q in the second clone: %v, want the stray file refused\n%s", lrun, err, out)
	}
	testgit.Git(t, second, "rm", "-q", "--cached", "memory-bank/notes.txt")
	testgit.Write(t, second, "README.md", "teammate change\n")
	testgit.Git(t, second, "add", "README.md")
	must(second, "git", "commit", "-q", "-m", "teammate change")
	if out, err := run(second, nil, "", "sh", "-c", lrun); err != nil {
		t.Errorf("lefthook's %q in the second clone: %v\n%s", lrun, err, out)
	}
}

// TestNpxDoctorBinary: under npx, PATH's mbguard is npm's launcher, which runs exactly this
// binary; doctor's binary line says OK rather than "reinstall". (The install is in a folder
// above the repository, as with a workspace's node_modules or npm -g: not the project's own.)
func TestNpxDoctorBinary(t *testing.T) {
	node := testhost.Tool(t, "node", "install Node.js (the npm channel's launcher runs on it)")
	testgit.Isolate(t)
	base := t.TempDir()
	npmInstall(t, node, base)
	dir := filepath.Join(base, "app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Git(t, dir, "init", "-q")
	// npx runs the command with the node_modules/.bin it found first on PATH
	t.Setenv("PATH", filepath.Join(base, "node_modules", ".bin")+string(os.PathListSeparator)+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd := exec.Command("mbguard", "doctor")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "OK    binary ") || strings.Contains(string(out), "not this binary") {
		t.Errorf("doctor under npx:\n%s", out)
	}
}
