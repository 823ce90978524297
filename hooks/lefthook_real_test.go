package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// TestLefthookReal drives the real lefthook (test/lefthook, pinned by its lockfile): after
// install --hooks and lefthook install, a commit of a broken bank is refused through
// lefthook, a good one passes, and LEFTHOOK_EXCLUDE=mbguard skips the check once. doctor's
// source of truth agrees at each step.
func TestLefthookReal(t *testing.T) {
	mod := testhost.ModuleRoot(t)
	lh := filepath.Join(mod, "test", "lefthook", "node_modules", ".bin", "lefthook")
	if _, err := os.Stat(lh); err != nil {
		testhost.Missing(t, "lefthook under test/lefthook", "npm ci --prefix test/lefthook --ignore-scripts --no-audit --no-fund (its postinstall would install hooks into this repository)")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "mbguard"), "./cmd/mbguard")
	build.Dir = mod
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building mbguard: %v\n%s", err, out)
	}
	root := testgit.New(t)
	copyTree(t, filepath.Join(mod, "examples", "good-bank"), root)
	testgit.Write(t, root, "lefthook.yml", "# our hooks\npre-commit:\n  commands:\n    hello:\n      run: echo hello-from-lefthook\n")
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+filepath.Dir(lh)+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	o := opts(root)
	o.Binary = "mbguard"
	if out, err := run(filepath.Join(bin, "mbguard"), "install", "--hooks"); err != nil || !strings.Contains(out, "lefthook.yml") {
		t.Fatalf("install --hooks: %v\n%s", err, out)
	}
	if st := GitHookState(o); st.Installed || st.Next != "lefthook install" {
		t.Fatalf("before lefthook install: %+v", st)
	}
	if out, err := run(lh, "install"); err != nil {
		t.Fatalf("lefthook install: %v\n%s", err, out)
	}
	if st := GitHookState(o); !st.Installed {
		t.Fatalf("after lefthook install: %+v", st)
	}
	testgit.Git(t, root, "add", ".")
	if out, err := run("git", "commit", "-qm", "good bank"); err != nil || !strings.Contains(out, "hello-from-lefthook") {
		t.Fatalf("good bank through lefthook: %v\n%s", err, out)
	}
	testgit.Write(t, root, "memory-bank/details/stray.json", "{}")
	testgit.Git(t, root, "add", ".")
	out, err := run("git", "commit", "-qm", "stray file")
	if err == nil || !strings.Contains(out, "memory-bank/details/stray.json") {
		t.Fatalf("a stray file was committed through lefthook: %v\n%s", err, out)
	}
	env = append(env, "LEFTHOOK_EXCLUDE=mbguard")
	if out, err := run("git", "commit", "-qm", "skip once"); err != nil || !strings.Contains(out, "hello-from-lefthook") {
		t.Fatalf("LEFTHOOK_EXCLUDE=mbguard did not skip only mbguard: %v\n%s", err, out)
	}
}
