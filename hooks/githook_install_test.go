package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

func opts(root string) InstallOptions {
	gd := filepath.Join(root, ".git")
	return InstallOptions{Root: root, GitDir: gd, CommonDir: gd, Binary: "/opt/mb guard/mbguard"}
}

func actions(cs []Change) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.Action+" "+c.Path)
	}
	return strings.Join(s, "; ")
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInstallGitHookFreshIdempotentUninstall(t *testing.T) {
	root := testgit.New(t)
	o := opts(root)
	cs, err := InstallGitHook(o)
	if err != nil {
		t.Fatal(err)
	}
	if actions(cs) != "created .git/hooks/pre-commit" {
		t.Fatalf("changes = %s", actions(cs))
	}
	hook := filepath.Join(root, ".git", "hooks", "pre-commit")
	body := read(t, hook)
	for _, want := range []string{"#!/bin/sh", GitHookMarker, `"${MBGUARD:-}" = "0"`, "exec '/opt/mb guard/mbguard' check --staged"} {
		if !strings.Contains(body, want) {
			t.Errorf("hook lacks %q:\n%s", want, body)
		}
	}
	if strings.Index(body, "MBGUARD:-") > strings.Index(body, "exec ") {
		t.Error("MBGUARD=0 must be checked before the binary starts")
	}
	if out, err := exec.Command("sh", "-n", hook).CombinedOutput(); err != nil {
		t.Errorf("hook is not valid sh: %v %s", err, out)
	}
	if fi, _ := os.Stat(hook); fi.Mode()&0o111 == 0 {
		t.Error("hook is not executable")
	}
	if cs, _ := InstallGitHook(o); actions(cs) != "unchanged .git/hooks/pre-commit" {
		t.Errorf("second install: %s", actions(cs))
	}
	o.Binary = "mbguard"
	if cs, _ := InstallGitHook(o); actions(cs) != "updated .git/hooks/pre-commit" {
		t.Errorf("install with a new binary: %s", actions(cs))
	}
	o.Uninstall = true
	if cs, _ := InstallGitHook(o); actions(cs) != "removed .git/hooks/pre-commit" {
		t.Errorf("uninstall: %s", actions(cs))
	}
	if _, err := os.Stat(hook); !os.IsNotExist(err) {
		t.Error("uninstall left the hook")
	}
	if cs, _ := InstallGitHook(o); actions(cs) != "skipped .git/hooks/pre-commit" {
		t.Errorf("second uninstall: %s", actions(cs))
	}
}

func TestInstallGitHookChainsExisting(t *testing.T) {
	root := testgit.New(t)
	hook := filepath.Join(root, ".git", "hooks", "pre-commit")
	mine := "#!/bin/sh\necho mine\n"
	if err := os.WriteFile(hook, []byte(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	o := opts(root)
	cs, err := InstallGitHook(o)
	if err != nil {
		t.Fatal(err)
	}
	if actions(cs) != "kept .git/hooks/pre-commit.mbguard-chained; created .git/hooks/pre-commit" {
		t.Fatalf("changes = %s", actions(cs))
	}
	if read(t, hook+ChainedSuffix) != mine {
		t.Error("the original hook was not kept as it was")
	}
	if cs, _ := InstallGitHook(o); actions(cs) != "unchanged .git/hooks/pre-commit" {
		t.Errorf("second install must not chain itself: %s", actions(cs))
	}
	o.Uninstall = true
	if _, err := InstallGitHook(o); err != nil {
		t.Fatal(err)
	}
	if read(t, hook) != mine {
		t.Error("uninstall did not restore the original hook")
	}
	if _, err := os.Stat(hook + ChainedSuffix); !os.IsNotExist(err) {
		t.Error("uninstall left the chained copy")
	}
}

func TestInstallGitHookWorktree(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "a", "a")
	testgit.Commit(t, root, "init")
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Git(t, root, "worktree", "add", "-q", wt)
	o := InstallOptions{Root: wt, Binary: "mbguard"}
	if _, err := InstallGitHook(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err != nil {
		t.Errorf("a linked worktree's hook belongs in the common hooks dir: %v", err)
	}
}

func TestInstallGitHookRefusesHooksPath(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, root string)
		want  string
	}{
		{"foreign local hooks path", func(t *testing.T, root string) {
			testgit.Git(t, root, "config", "core.hooksPath", "tools/hooks")
		}, "managed by another tool"},
		{"global hooks path", func(t *testing.T, root string) {
			testgit.Git(t, root, "config", "--global", "core.hooksPath", filepath.Join(t.TempDir(), "hooks"))
		}, "global git config"},
		{"husky", func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".husky", "_"), 0o755)
			testgit.Git(t, root, "config", "core.hooksPath", ".husky/_")
		}, "--husky"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := testgit.New(t)
			c.setup(t, root)
			_, err := InstallGitHook(opts(root))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err == nil {
				t.Error("wrote a hook git would not run")
			}
		})
	}
	t.Run("default hooks path spelled out", func(t *testing.T) {
		root := testgit.New(t)
		testgit.Git(t, root, "config", "core.hooksPath", ".git/hooks")
		if _, err := InstallGitHook(opts(root)); err != nil {
			t.Fatal(err)
		}
	})
}

func TestInstallGitHookHusky(t *testing.T) {
	root := testgit.New(t)
	o := opts(root)
	o.Husky = true
	if _, err := InstallGitHook(o); err == nil || !strings.Contains(err.Error(), "no .husky/") {
		t.Fatalf("want a refusal without .husky/, got %v", err)
	}
	testgit.Write(t, root, ".husky/pre-commit", "npm test")
	if _, err := InstallGitHook(o); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, ".husky", "pre-commit")
	want := "npm test\n" + GitHookMarker + "\n[ \"${MBGUARD:-}\" = \"0\" ] || '/opt/mb guard/mbguard' check --staged\n"
	if got := read(t, p); got != want {
		t.Fatalf(".husky/pre-commit =\n%s\nwant\n%s", got, want)
	}
	if cs, _ := InstallGitHook(o); actions(cs) != "unchanged .husky/pre-commit" {
		t.Errorf("second install: %s", actions(cs))
	}
	o.Uninstall = true
	if _, err := InstallGitHook(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "npm test\n" {
		t.Errorf("after uninstall: %q", got)
	}
}
