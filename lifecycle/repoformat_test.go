package lifecycle

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// formatRepo is the Cline fixture in a repository git makes with extra init flags.
func formatRepo(t *testing.T, initArgs ...string) (string, error) {
	testgit.Isolate(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	cmd := exec.Command("git", append([]string{"init", "-q"}, initArgs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return root, errors.New(string(out))
	}
	src := filepath.Join("testdata", "cline")
	filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(src, p)
			b, _ := os.ReadFile(p)
			testgit.Write(t, root, filepath.ToSlash(rel), string(b))
		}
		return nil
	})
	return root, nil
}

// SHA-256 and reftable repositories are refused before anything changes, with the way that
// works named; --no-git migrates the files there.
func TestMigrateRepoFormats(t *testing.T) {
	t.Run("sha256", func(t *testing.T) {
		root, err := formatRepo(t, "--object-format=sha256")
		if err != nil {
			t.Fatalf("git cannot make a SHA-256 repository: %v", err)
		}
		testgit.Commit(t, root, "bank")
		head := testgit.Git(t, root, "rev-parse", "HEAD")
		if len(head) != 64 {
			t.Fatalf("not a SHA-256 repository: %s", head)
		}
		_, err = Migrate(context.Background(), opts(root))
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "sha256") || !strings.Contains(err.Error(), "--no-git") {
			t.Fatalf("got %v, want a refusal naming sha256 and --no-git", err)
		}
		if testgit.Git(t, root, "rev-parse", "HEAD") != head || testgit.Git(t, root, "status", "--porcelain") != "" {
			t.Fatal("a refusal changed something")
		}
		if _, err := os.Stat(JournalPath(filepath.Join(root, ".git", "mbguard"))); err == nil {
			t.Error("a journal was written")
		}
		o := opts(root)
		o.NoGit = true
		if _, err := Migrate(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		checkClean(t, root)
	})
	t.Run("reftable", func(t *testing.T) {
		root, err := formatRepo(t, "--ref-format=reftable")
		if err != nil {
			// git before 2.45 cannot make one: declare the extension as a reftable repository
			// does, which is what the refusal reads (this git then cannot commit either).
			if root, err = formatRepo(t); err != nil {
				t.Fatal(err)
			}
			testgit.Commit(t, root, "bank")
			testgit.Git(t, root, "config", "core.repositoryformatversion", "1")
			testgit.Git(t, root, "config", "extensions.refStorage", "reftable")
		} else {
			testgit.Commit(t, root, "bank")
		}
		_, err = Migrate(context.Background(), opts(root))
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "reftable") || strings.Contains(err.Error(), "no commit yet") {
			t.Fatalf("got %v, want a refusal naming reftable", err)
		}
		if read(t, root, "memory-bank/projectbrief.md") == nil {
			t.Fatal("a refusal changed something")
		}
	})
}
