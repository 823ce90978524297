// Package testgit builds real git repositories for tests, with an isolated git configuration
// (no system or user config leaks in, no signing, a fixed identity and branch name).
package testgit

import (
	"crypto/rand"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Home makes a private HOME holding git's configuration and returns it with the variables that
// point git, and every program a test runs, at it. It changes nothing in this process: a test
// that runs in parallel passes env to each command it starts (t.Setenv is not allowed there).
func Home(t testing.TB) (home string, env []string) {
	t.Helper()
	home = t.TempDir()
	if r, err := filepath.EvalSymlinks(home); err == nil {
		home = r
	}
	env, err := writeHome(home)
	if err != nil {
		t.Fatal(err)
	}
	return home, env
}

// writeHome writes git's configuration into home and returns the isolating variables.
func writeHome(home string) ([]string, error) {
	cfg := filepath.Join(home, ".gitconfig")
	body := "[user]\n\tname = mbguard test\n\temail = test@example.invalid\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[core]\n\tautocrlf = false\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		return nil, err
	}
	return []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + cfg,
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
		"GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	}, nil
}

// Vars are the names of the variables Home sets.
var Vars = []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"}

// Isolate points git at a private configuration for the rest of the test (t.Setenv), so the
// developer's or CI's git config never changes what a test sees. It returns the fake HOME.
func Isolate(t testing.TB) string {
	t.Helper()
	home, env := Home(t)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return home
}

// IsolateProcess points this whole test binary at one private HOME and git configuration, for
// the TestMain of a package whose tests run in parallel and take their own HOME from Home. It
// returns a function that removes the folder.
func IsolateProcess() (cleanup func(), err error) {
	home, err := os.MkdirTemp("", "testgit-home")
	if err != nil {
		return nil, err
	}
	env, err := writeHome(home)
	if err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	return func() { os.RemoveAll(home) }, nil
}

// New makes an isolated, empty repository and returns its (symlink-resolved) root.
func New(t testing.TB) string {
	t.Helper()
	Isolate(t)
	return Repo(t)
}

// Repo makes an empty repository with this process's git configuration (after Isolate or
// IsolateProcess) and returns its (symlink-resolved) root.
func Repo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	Git(t, dir, "init", "-q")
	return dir
}

// Git runs git in dir and returns its trimmed stdout; a failure fails the test with stderr.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// Write creates rel (and its parents) under dir with content.
func Write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Commit stages everything and commits with msg.
func Commit(t testing.TB, dir, msg string) {
	t.Helper()
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", msg)
}

// FakeGitHubToken builds a token gitleaks' github-pat rule matches, fresh for every test run
// (gitleaks ignores the documented example keys on purpose).
func FakeGitHubToken(t testing.TB) string {
	t.Helper()
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	b.WriteString("ghp_")
	for range 36 {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alnum))))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteByte(alnum[n.Int64()])
	}
	return b.String()
}
