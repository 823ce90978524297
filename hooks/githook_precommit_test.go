package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// copyTree copies the example bank src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, r), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, r), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPreCommitFramework runs the real pre-commit framework with this repository's
// .pre-commit-hooks.yaml (the mbguard-system hook, with a freshly built mbguard on PATH)
// against the example banks: the good one passes, the broken one fails with its findings.
func TestPreCommitFramework(t *testing.T) {
	pc := testhost.Tool(t, "pre-commit", "apt-get install pre-commit")
	mod := testhost.ModuleRoot(t)
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "mbguard"), "./cmd/mbguard")
	build.Dir = mod
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building mbguard: %v\n%s", err, out)
	}
	hooksYAML, err := os.ReadFile(filepath.Join(mod, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		bank  string
		fail  bool
		wants []string
	}{
		{"good-bank", false, []string{"Passed"}},
		{"broken-bank", true, []string{"to commit anyway, once: MBGUARD=0 git commit", "memory-bank/MEMORY.md:2 template-outdated", "memory-bank/MEMORY.md:6 marker-malformed", "memory-bank/details/data.json non-md", "memory-bank/details/progress.md:2 marker-unclosed"}},
	}
	for _, c := range cases {
		t.Run(c.bank, func(t *testing.T) {
			// a hooks repository holding only the manifest, so try-repo does not copy the module
			hooksRepo := testgit.New(t)
			testgit.Write(t, hooksRepo, ".pre-commit-hooks.yaml", string(hooksYAML))
			testgit.Commit(t, hooksRepo, "hooks")
			root := testgit.New(t)
			copyTree(t, filepath.Join(mod, "examples", c.bank), root)
			testgit.Git(t, root, "add", ".")
			cmd := exec.Command(pc, "try-repo", hooksRepo, "mbguard-system")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "cache"), "NO_COLOR=1")
			out, err := cmd.CombinedOutput()
			if (err != nil) != c.fail {
				t.Fatalf("pre-commit err = %v, want failure %v\n%s", err, c.fail, out)
			}
			for _, w := range c.wants {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// goCaches returns GOCACHE and GOMODCACHE as the go command sees them before the test isolates
// HOME, so pre-commit's `go install` reuses the build and module caches `go test` already filled
// (pre-commit sets its own GOPATH, which would otherwise move the module cache and re-download).
func goCaches(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 2 {
		t.Fatalf("go env GOCACHE GOMODCACHE printed %q", out)
	}
	return []string{"GOCACHE=" + v[0], "GOMODCACHE=" + v[1]}
}

// snapshotRepo commits the module's working tree (tracked and untracked, not ignored files) to a
// fresh repository: the hooks repository pre-commit clones. try-repo on the checkout itself would
// take tracked edits but not new files, so a half-committed change would build differently from
// what `go test` compiled; in CI's clean checkout both are the same tree.
func snapshotRepo(t *testing.T, mod string) string {
	t.Helper()
	list := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	list.Dir = mod
	out, err := list.Output()
	if err != nil {
		t.Fatalf("listing the module's files (the test needs a git checkout): %v", err)
	}
	snap := testgit.New(t)
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(mod, filepath.FromSlash(rel))
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(snap, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, dst); err != nil {
				t.Fatal(err)
			}
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
				t.Fatal(err)
			}
		}
	}
	testgit.Commit(t, snap, "snapshot of the working tree")
	return snap
}

// runCmd runs name in dir with env and returns its combined output and error.
func runCmd(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPreCommitGolangHook runs the `mbguard` hook the way a new user meets it: language golang,
// so pre-commit clones this repository and builds it with its own `go install ./...` (no mbguard
// on PATH, no GOFLAGS from this machine's go env — HOME is isolated). Each case is a fixture
// repository holding the good example bank in its first commit.
func TestPreCommitGolangHook(t *testing.T) {
	pc := testhost.Tool(t, "pre-commit", "apt-get install pre-commit")
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("go is not on PATH; pre-commit's golang hook builds with it")
	}
	mod := testhost.ModuleRoot(t)
	caches := goCaches(t)
	snap := snapshotRepo(t, mod)
	rev := testgit.Git(t, snap, "rev-parse", "HEAD")
	broken := filepath.Join(mod, "examples", "broken-bank", "memory-bank", "details")
	brokenFindings := []string{
		"memory-bank/details/progress.md:2 marker-unclosed",
		"memory-bank/details/data.json non-md",
	}

	cases := []struct {
		name  string
		run   func(t *testing.T, root string, env []string) (string, error)
		fail  bool
		wants []string
	}{
		{
			name: "try-repo-all-files-good-bank",
			run: func(t *testing.T, root string, env []string) (string, error) {
				return runCmd(root, env, pc, "try-repo", snap, "mbguard", "--all-files")
			},
			wants: []string{"mbguard check (memory-bank/)", "Passed"},
		},
		{
			name: "try-repo-staged-broken-files",
			run: func(t *testing.T, root string, env []string) (string, error) {
				copyTree(t, broken, filepath.Join(root, "memory-bank", "details"))
				testgit.Git(t, root, "add", ".")
				return runCmd(root, env, pc, "try-repo", snap, "mbguard")
			},
			fail:  true,
			wants: append([]string{"Failed", "- hook id: mbguard", "- exit code: 1"}, brokenFindings...),
		},
		{
			name: "try-repo-staged-outside-bank",
			run: func(t *testing.T, root string, env []string) (string, error) {
				testgit.Write(t, root, "notes/data.json", "{}\n")
				testgit.Git(t, root, "add", ".")
				return runCmd(root, env, pc, "try-repo", snap, "mbguard")
			},
			wants: []string{"(no files to check)Skipped"},
		},
		{
			// mbguard-files checks the working tree files pre-commit passes, in one process
			name: "try-repo-files-hook-all-files-broken",
			run: func(t *testing.T, root string, env []string) (string, error) {
				copyTree(t, broken, filepath.Join(root, "memory-bank", "details"))
				testgit.Commit(t, root, "broken bank")
				return runCmd(root, env, pc, "try-repo", snap, "mbguard-files", "--all-files")
			},
			fail:  true,
			wants: append([]string{"- hook id: mbguard-files", "2 problem(s)"}, brokenFindings...),
		},
		{
			// the installed git hook, with the repository pinned in .pre-commit-config.yaml: a
			// broken staged bank stops the commit, so HEAD stays at the good one
			name: "installed-hook-blocks-commit",
			run: func(t *testing.T, root string, env []string) (string, error) {
				cfg := "repos:\n- repo: " + snap + "\n  rev: " + rev + "\n  hooks:\n  - id: mbguard\n"
				testgit.Write(t, root, ".pre-commit-config.yaml", cfg)
				testgit.Commit(t, root, "pre-commit config")
				if out, err := runCmd(root, env, pc, "install"); err != nil {
					t.Fatalf("pre-commit install: %v\n%s", err, out)
				}
				head := testgit.Git(t, root, "rev-parse", "HEAD")
				copyTree(t, broken, filepath.Join(root, "memory-bank", "details"))
				testgit.Git(t, root, "add", ".")
				out, err := runCmd(root, env, "git", "commit", "-q", "-m", "broken bank")
				if got := testgit.Git(t, root, "rev-parse", "HEAD"); got != head {
					t.Errorf("the commit went through (HEAD %s, want %s)", got, head)
				}
				return out, err
			},
			fail:  true,
			wants: append([]string{"Installing environment for " + snap, "Failed"}, brokenFindings...),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := testgit.New(t)
			copyTree(t, filepath.Join(mod, "examples", "good-bank"), root)
			testgit.Commit(t, root, "good bank")
			env := append(os.Environ(), caches...)
			env = append(env, "PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit"), "NO_COLOR=1")
			out, err := c.run(t, root, env)
			if (err != nil) != c.fail {
				t.Fatalf("err = %v, want failure %v\n%s", err, c.fail, out)
			}
			for _, w := range c.wants {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestPreCommitManifestGoVersion: the manifest's note on Go names go.mod's own go line.
func TestPreCommitManifestGoVersion(t *testing.T) {
	mod := testhost.ModuleRoot(t)
	manifest, err := os.ReadFile(filepath.Join(mod, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(mod, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, l := range strings.Split(string(gomod), "\n") {
		if v, ok := strings.CutPrefix(l, "go "); ok {
			want = strings.TrimSpace(v)
		}
	}
	m := regexp.MustCompile(`go line \(([0-9.]+)\)`).FindAllStringSubmatch(string(manifest), -1)
	if len(m) == 0 {
		t.Fatal(".pre-commit-hooks.yaml no longer names go.mod's go line: update this test")
	}
	for _, g := range m {
		if g[1] != want {
			t.Errorf(".pre-commit-hooks.yaml says go.mod's go line is %s; go.mod says %s", g[1], want)
		}
	}
}
