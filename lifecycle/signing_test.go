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
	"github.com/mbguard/mbguard/internal/testhost"
)

// With commit.gpgsign, migrate never writes unsigned commits silently: without --git-cli it
// refuses naming the flag; with it, git signs every commit (SSH signing, a key made here).
func TestMigrateSigning(t *testing.T) {
	keygen := testhost.Tool(t, "ssh-keygen", "apt-get install openssh-client")
	root := historyRepo(t, "cline")
	key := filepath.Join(t.TempDir(), "key")
	if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	testgit.Git(t, root, "config", "gpg.format", "ssh")
	testgit.Git(t, root, "config", "user.signingkey", key)
	testgit.Git(t, root, "config", "commit.gpgsign", "true")
	head := testgit.Git(t, root, "rev-parse", "HEAD")
	_, err := Migrate(context.Background(), opts(root))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "--git-cli") {
		t.Fatalf("got %v, want a refusal naming --git-cli", err)
	}
	if testgit.Git(t, root, "rev-parse", "HEAD") != head {
		t.Fatal("refused, yet committed")
	}
	o := opts(root)
	o.GitCLI = true
	res, err := Migrate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commits) < 2 {
		t.Fatalf("commits %+v", res.Commits)
	}
	for _, c := range res.Commits {
		if raw := testgit.Git(t, root, "cat-file", "commit", c.Hash); !strings.Contains(raw, "gpgsig") {
			t.Errorf("commit %s (%s) is not signed", c.Hash[:12], c.Subject)
		}
	}
}

// A pre-commit hook that go-git's commits skip is said, not hidden.
func TestMigrateWarnsHooksSkipped(t *testing.T) {
	root := historyRepo(t, "cline")
	hook := filepath.Join(root, ".git", "hooks", "pre-commit")
	os.MkdirAll(filepath.Dir(hook), 0o755)
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := Migrate(context.Background(), opts(root))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "pre-commit hook does not run") {
		t.Errorf("no warning about the hook: %v", res.Warnings)
	}
}
