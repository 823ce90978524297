package gitexec

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testhost.Missing(t, "git", "apt-get install git")
	}
	dir := testgit.New(t)
	testgit.Write(t, dir, "a.txt", "hello\n")
	testgit.Commit(t, dir, "one")
	return dir
}

func TestRun(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	out, err := Run(ctx, dir, "rev-parse", "--is-inside-work-tree")
	if err != nil || string(out) != "true\n" {
		t.Fatalf("stdout %q, %v", out, err)
	}
	// stdin reaches git
	out, err = Cmd{Dir: dir, Stdin: strings.NewReader("hello\n")}.Run(ctx, "hash-object", "--stdin")
	if err != nil || strings.TrimSpace(string(out)) != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Fatalf("hash-object --stdin: %q, %v", out, err)
	}
	// Env is added to the environment, the rest is inherited
	out, err = Cmd{Dir: dir, Env: []string{"GIT_AUTHOR_NAME=Env Added"}}.Run(ctx, "var", "GIT_AUTHOR_IDENT")
	if err != nil || !strings.HasPrefix(string(out), "Env Added <test@example.invalid>") {
		t.Fatalf("var GIT_AUTHOR_IDENT: %q, %v", out, err)
	}
}

// A failure names the subcommand and what git said, and keeps the exit code reachable.
func TestRunError(t *testing.T) {
	dir := repo(t)
	_, err := Run(context.Background(), dir, "-c", "core.quotePath=false", "rev-parse", "--verify", "no-such-ref")
	var ge *Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %T %v, want *Error", err, err)
	}
	if !strings.HasPrefix(err.Error(), "git rev-parse: fatal:") {
		t.Errorf("message %q, want git's stderr after the subcommand", err)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ExitCode(err) != 128 {
		t.Errorf("exit code %d, want 128 through errors.As", ExitCode(err))
	}
	if ExitCode(nil) != 0 || ExitCode(errors.New("x")) != -1 {
		t.Error("ExitCode of nil or a non-exit error")
	}
	// quiet failure: the exit status stands in for the empty stderr
	_, err = Run(context.Background(), dir, "rev-parse", "-q", "--verify", "no-such-ref")
	if err == nil || err.Error() != "git rev-parse: exit status 1" || ExitCode(err) != 1 {
		t.Errorf("quiet failure: %v", err)
	}
	// git outside any repository
	_, err = Run(context.Background(), t.TempDir(), "status")
	if ExitCode(err) != 128 || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("outside a repository: %v", err)
	}
}

func TestStream(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	s, err := Cmd{Dir: dir}.Stream(ctx, "cat-file", "blob", "HEAD:a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(s)
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// a failure shows at Close, with stderr
	s, err = Cmd{Dir: dir}.Stream(ctx, "cat-file", "blob", "HEAD:missing.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); ExitCode(err) != 128 || !strings.Contains(err.Error(), "git cat-file: fatal:") {
		t.Fatalf("Close: %v", err)
	}
	// Stop ends a git that still has much to say
	var in bytes.Buffer
	for range 20000 {
		in.WriteString("HEAD:a.txt\n")
	}
	s, err = Cmd{Dir: dir, Stdin: &in}.Stream(ctx, "cat-file", "--batch")
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 10)
	if _, err := io.ReadFull(s, head); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if s.cmd.ProcessState == nil {
		t.Fatal("Stop returned before git ended")
	}
}

func TestSubcommand(t *testing.T) {
	for args, want := range map[string]string{
		"diff --cached":                  "diff",
		"-c core.quotePath=false diff":   "diff",
		"-C /x -c a=b --no-pager log -p": "log",
		"--version":                      "--version",
	} {
		if got := subcommand(strings.Fields(args)); got != want {
			t.Errorf("subcommand(%q) = %q, want %q", args, got, want)
		}
	}
}

// Inside a git hook GIT_DIR and GIT_INDEX_FILE point at the repository being committed to; the
// runner must pass them on, with or without Env, or the hook's checks read another repository.
func TestRunKeepsGitDir(t *testing.T) {
	dir := repo(t)
	t.Setenv("GIT_DIR", dir+"/.git")
	elsewhere := t.TempDir()
	for name, c := range map[string]Cmd{"plain": {Dir: elsewhere}, "with env": {Dir: elsewhere, Env: []string{"GIT_OPTIONAL_LOCKS=0"}}} {
		out, err := c.Run(context.Background(), "ls-files")
		if err != nil || string(out) != "a.txt\n" {
			t.Errorf("%s: ls-files from outside the work tree with GIT_DIR set: %q, %v", name, out, err)
		}
	}
}

// TestGitNotFound (issue 31, point 6): without git on PATH the error says so in mbguard's
// words, with the next step, instead of exec's "executable file not found in %PATH%".
func TestGitNotFound(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Run(context.Background(), t.TempDir(), "status")
	if err == nil || err.Error() != NotFound || !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("err = %v, want %q wrapping exec.ErrNotFound", err, NotFound)
	}
	if !strings.Contains(err.Error(), "install Git") || !strings.Contains(err.Error(), "PATH") {
		t.Fatalf("no next step in %q", err)
	}
}
