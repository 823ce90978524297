package hooks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testhost"
)

// A symlink inside a repository that points into another repository's bank leads to that
// repository, even though the link lies below the repository already found from cwd.
func TestTargetThroughSymlinkInsideTheRepository(t *testing.T) {
	root := bankRepo(t)
	other := bankRepo(t)
	if err := os.Symlink(other, filepath.Join(root, "vendor-link")); err != nil {
		testhost.Missing(t, "symlinks ("+err.Error()+")", "a file system that has them")
	}
	h := newHostRun(t, "codex", root, nil)
	if got := denied(t, "codex", h.write("vendor-link/memory-bank/x.json", "{}")); got == "" {
		t.Fatal("a write through a link into another repository's bank was allowed")
	}
	r, ok := findBankRepo(filepath.Join(root, "vendor-link/memory-bank/x.json"), newRepoFor(t, root))
	if !ok || r.Root != other {
		t.Fatalf("findBankRepo = %q %v, want %s", r.Root, ok, other)
	}
}

func newRepoFor(t *testing.T, root string) repo.Repo {
	t.Helper()
	r, ok := findBankRepo(root)
	if !ok {
		t.Fatalf("no bank repository at %s", root)
	}
	return r
}
