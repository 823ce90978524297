package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// moduleRoot walks up from the test's directory to go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			t.Fatal("no go.mod above the test")
		}
		d = p
	}
}

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
	pc, err := exec.LookPath("pre-commit")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pre-commit is not installed (.ci/run installs it with apt-get install pre-commit)")
		}
		t.Skip("pre-commit is not installed; apt-get install pre-commit to run this test")
	}
	mod := moduleRoot(t)
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
		{"broken-bank", true, []string{"memory-bank/MEMORY.md:2 template-outdated", "memory-bank/MEMORY.md:6 marker-malformed", "memory-bank/details/data.json non-md", "memory-bank/details/progress.md:2 marker-unclosed"}},
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
