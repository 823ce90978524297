package outcome

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

func TestRiskyConfigKey(t *testing.T) {
	for _, tc := range []struct {
		k, v string
		want bool
	}{
		{"core.hookspath", ".githooks", true},
		{"core.fsmonitor", "true", true},
		{"core.sshcommand", "ssh -i x", true},
		{"alias.st", "!rm -rf memory-bank", true},
		{"alias.st", "  !sh", true},
		{"alias.st", "status -sb", false},
		{"filter.lfs.clean", "git-lfs clean -- %f", true},
		{"diff.md.textconv", "sh x", true},
		{"diff.md.command", "sh x", true},
		{"diff.algorithm", "histogram", false},
		{"include.path", "x.cfg", true},
		{"includeif.gitdir:/x/.path", "x.cfg", true},
		{"user.name", "x", false},
		{"remote.origin.url", "https://x", false},
		{"core.autocrlf", "true", false},
	} {
		if got := RiskyConfigKey(tc.k, tc.v); got != tc.want {
			t.Errorf("RiskyConfigKey(%q, %q) = %v, want %v", tc.k, tc.v, got, tc.want)
		}
	}
}

// TestProtectedUndoneAfterCall: a protected file and a risky git config key changed during a
// call are put back by the post check, a harmless config key stays, and the person's change
// between calls is kept.
func TestProtectedUndoneAfterCall(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, ".mbguard.yaml", "gating:\n  mode: block\n")
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	g := New(r, Options{Protected: []string{".mbguard.yaml", ".git/hooks/", ".git/config"}})
	git := func(args ...string) string { return gitOutput(root, args...) }
	call := func(id string, do func()) Report { return shellCall(t, g, id, do) }
	rep := call("1", func() {
		os.WriteFile(filepath.Join(root, ".mbguard.yaml"), []byte("gating:\n  mode: off\n"), 0o644)
		os.WriteFile(filepath.Join(r.CommonDir, "hooks", "post-commit"), []byte("#!/bin/sh\necho x\n"), 0o755)
		git("config", "core.hooksPath", ".githooks")
		git("config", "user.name", "Agent")
	})
	if b, _ := os.ReadFile(filepath.Join(root, ".mbguard.yaml")); string(b) != "gating:\n  mode: block\n" {
		t.Errorf(".mbguard.yaml not restored: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(r.CommonDir, "hooks", "post-commit")); err == nil {
		t.Errorf("the planted hook stays")
	}
	if v := git("config", "--local", "core.hooksPath"); v != "" {
		t.Errorf("core.hooksPath stays %q", v)
	}
	if v := git("config", "--local", "user.name"); v != "Agent\n" {
		t.Errorf("the harmless key was lost: %q", v)
	}
	var paths []string
	for _, u := range rep.Undone {
		paths = append(paths, u.Path)
	}
	for _, want := range []string{".mbguard.yaml", ".git/hooks/post-commit", ".git/config"} {
		if !slices.Contains(paths, want) {
			t.Errorf("report lacks %s: %v", want, paths)
		}
	}
	if rep.Quarantine == "" {
		t.Errorf("the agent's bytes were not kept")
	}
	// the person's change between calls is known-good from then on
	os.WriteFile(filepath.Join(root, ".mbguard.yaml"), []byte("gating:\n  mode: warn\n"), 0o644)
	git("config", "core.hooksPath", ".husky")
	rep = call("2", func() {})
	if len(rep.Undone) > 0 {
		t.Errorf("the person's change was undone: %+v", rep.Undone)
	}
	if v := git("config", "--local", "core.hooksPath"); v != ".husky\n" {
		t.Errorf("the person's core.hooksPath is gone: %q", v)
	}
}

// TestWorktreeConfigJudgedLikeConfig: with extensions.worktreeConfig, git reads the
// worktree's config.worktree too; a risky key an agent sets there is undone like one in
// .git/config, a harmless one stays, and the person's own between calls is kept.
func TestWorktreeConfigJudgedLikeConfig(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "a.txt", "x\n")
	testgit.Commit(t, root, "init")
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	g := New(r, Options{Protected: []string{".git/config", ".git/config.worktree"}})
	git := func(args ...string) string { return gitOutput(root, args...) }
	call := func(id string, do func()) Report { return shellCall(t, g, id, do) }
	rep := call("1", func() {
		git("config", "extensions.worktreeConfig", "true")
		git("config", "--worktree", "core.hooksPath", ".githooks")
		git("config", "--worktree", "alias.st", "!rm -rf memory-bank")
		git("config", "--worktree", "user.name", "Agent")
	})
	if v := git("config", "--get-all", "core.hooksPath"); v != "" {
		t.Errorf("core.hooksPath from config.worktree stays %q", v)
	}
	if v := git("config", "--get-all", "alias.st"); v != "" {
		t.Errorf("the ! alias from config.worktree stays %q", v)
	}
	if v := git("config", "--worktree", "user.name"); v != "Agent\n" {
		t.Errorf("the harmless key was lost: %q", v)
	}
	found := false
	for _, u := range rep.Undone {
		found = found || u.Path == ".git/config.worktree"
	}
	if !found || rep.Quarantine == "" {
		t.Errorf("report lacks .git/config.worktree or its quarantine: %+v", rep)
	}
	// the person's own, between calls, is known-good
	git("config", "--worktree", "core.hooksPath", ".husky")
	if rep := call("2", func() {}); len(rep.Undone) > 0 {
		t.Errorf("the person's change was undone: %+v", rep.Undone)
	}
	if v := git("config", "--worktree", "core.hooksPath"); v != ".husky\n" {
		t.Errorf("the person's core.hooksPath is gone: %q", v)
	}
}

// TestUserFileChangeRestoredOrUnguarded: a user-level file the hooks depend on, changed
// during an agent's call, is put back from what mbguard kept (a small file's bytes; a large
// one — the executable — from its copy in the user's state folder, checked by its sha256), the
// agent's bytes kept in the quarantine; a file created where there was none (a stub earlier on
// PATH) is removed. A change between calls is the person's. What cannot be put back (a folder
// in the file's place, a damaged copy) leaves the session unguarded, said by every check after
// it, until the person confirms (ConfirmUserFiles).
func TestUserFileChangeRestoredOrUnguarded(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // its copies are damaged below: a state folder of its own
	root := testgit.New(t)
	testgit.Write(t, root, "a.txt", "x\n")
	testgit.Commit(t, root, "init")
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	user := filepath.Join(dir, "settings.json")
	os.WriteFile(user, []byte(`{"hooks":{}}`), 0o644)
	stub := filepath.Join(dir, "bin", "mbguard")
	big := filepath.Join(dir, "go", "bin", "mbguard")
	os.MkdirAll(filepath.Dir(big), 0o755)
	binary := bytes.Repeat([]byte("mbguard binary "), maxProtectedFile/10)
	os.WriteFile(big, binary, 0o755)
	g := New(r, Options{Protected: []string{".git/config"}, UserProtected: []string{user, stub, big}})
	call := func(id string, do func()) Report {
		pre, err := g.Before(Call{ID: id, Session: "s", Tool: "bash"})
		if err != nil {
			t.Fatal(err)
		}
		do()
		rep, err := g.After(Call{ID: id, Session: "s", Tool: "bash", Check: true})
		if err != nil {
			t.Fatal(err)
		}
		rep.Unguarded = append(slices.Clip(pre.Unguarded), rep.Unguarded...)
		return rep
	}
	undone := func(rep Report, p string) bool {
		return slices.ContainsFunc(rep.Undone, func(u Undone) bool { return u.Path == p })
	}
	call("0", func() {})
	person := `{"hooks":{},"theme":"dark"}`
	os.WriteFile(user, []byte(person), 0o644) // the person's, between calls
	if rep := call("1", func() {}); len(rep.Unguarded) > 0 || len(rep.Undone) > 0 {
		t.Fatalf("a change between calls was undone or unguarded the session: %+v", rep)
	}
	rep := call("2", func() {
		os.WriteFile(user, []byte(`{"disableAllHooks":true}`), 0o644)
		os.MkdirAll(filepath.Dir(stub), 0o755)
		os.WriteFile(stub, []byte("#!/bin/sh\nexit 0\n"), 0o755)
		os.WriteFile(big, []byte("#!/bin/sh\nMBGUARD=0 exec /tmp/real \"$@\"\n"), 0o755)
	})
	if len(rep.Unguarded) > 0 || !undone(rep, user) || !undone(rep, stub) || !undone(rep, big) {
		t.Fatalf("the changes during the call were not all undone: %+v", rep)
	}
	if b, _ := os.ReadFile(user); string(b) != person {
		t.Errorf("settings.json = %q, want the person's %q back", b, person)
	}
	if b, _ := os.ReadFile(big); !bytes.Equal(b, binary) {
		t.Errorf("the executable was not put back (%d bytes)", len(b))
	}
	if fi, err := os.Stat(big); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the executable's mode: %v %v", fi, err)
	}
	if _, err := os.Lstat(stub); !os.IsNotExist(err) {
		t.Errorf("the stub on PATH is still there: %v", err)
	}
	if !quarantineHas(t, r, "disableAllHooks") || !quarantineHas(t, r, "exit 0") {
		t.Error("the agent's bytes are not in the quarantine")
	}
	// what cannot be put back: a folder in the settings' place, a damaged copy of the executable
	rep = call("3", func() {
		os.Remove(user)
		os.Mkdir(user, 0o755)
		os.WriteFile(big, []byte("stub"), 0o755)
		copies, _ := filepath.Glob(filepath.Join(copyDir(), "*"))
		for _, c := range copies {
			os.WriteFile(c, []byte("damaged"), 0o600)
		}
	})
	if !slices.Contains(rep.Unguarded, user) || !slices.Contains(rep.Unguarded, big) {
		t.Fatalf("what could not be put back did not unguard the session: %+v", rep)
	}
	for _, id := range []string{"4", "5"} {
		if rep := call(id, func() {}); !slices.Contains(rep.Unguarded, user) || !strings.Contains(rep.Notice(), "--confirm-user-files") {
			t.Fatalf("check %s no longer says the session is unguarded: %+v", id, rep)
		}
	}
	if got := UnguardedFiles(r); !slices.Contains(got, user) {
		t.Errorf("UnguardedFiles = %v", got)
	}
	was, err := ConfirmUserFiles(r, []string{user, stub, big})
	if err != nil || !slices.Contains(was, user) {
		t.Fatalf("ConfirmUserFiles = %v, %v", was, err)
	}
	if rep := call("6", func() {}); len(rep.Unguarded) > 0 || len(UnguardedFiles(r)) > 0 {
		t.Errorf("still unguarded after the person confirmed: %v", rep.Unguarded)
	}
}

// quarantineHas reports whether a file in r's quarantine holds want.
func quarantineHas(t *testing.T, r repo.Repo, want string) bool {
	t.Helper()
	found := false
	filepath.WalkDir(QuarantineDir(r), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), want) {
				found = true
			}
		}
		return nil
	})
	return found
}

// gitOutput runs git in root as an agent's shell would, its errors ignored: what it printed.
func gitOutput(root string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	b, _ := cmd.Output()
	return string(b)
}

// shellCall runs do as one shell call checked before and after.
func shellCall(t *testing.T, g *Guard, id string, do func()) Report {
	t.Helper()
	if _, err := g.Before(Call{ID: id, Session: "s", Tool: "bash"}); err != nil {
		t.Fatal(err)
	}
	do()
	rep, err := g.After(Call{ID: id, Session: "s", Tool: "bash", Check: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestGitSampleHooksNotKept: git's example hooks (hooks/*.sample) never run, so the
// known-good state neither keeps nor guards them (every hook call decoded their ~20 KB);
// turning one into a hook is a new file in the folder and is undone.
func TestGitSampleHooksNotKept(t *testing.T) {
	root := testgit.New(t)
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(r.CommonDir, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	sample := filepath.Join(hooks, "pre-push.sample")
	if err := os.WriteFile(sample, []byte("#!/bin/sh\n# an example\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := New(r, Options{Protected: []string{".git/hooks/"}})
	shellCall(t, g, "0", func() {})
	if b, _ := os.ReadFile(g.protPath()); bytes.Contains(b, []byte(".sample")) {
		t.Errorf("the known-good state keeps an example hook:\n%.300s", b)
	}
	rep := shellCall(t, g, "1", func() {
		os.WriteFile(sample, []byte("#!/bin/sh\n# edited\n"), 0o755)
		os.WriteFile(filepath.Join(hooks, "pre-push"), []byte("#!/bin/sh\nrm -rf memory-bank\n"), 0o755)
	})
	var paths []string
	for _, u := range rep.Undone {
		paths = append(paths, u.Path)
	}
	if !slices.Contains(paths, ".git/hooks/pre-push") {
		t.Errorf("the hook made from the example stays: undone %v", paths)
	}
	if slices.Contains(paths, ".git/hooks/pre-push.sample") {
		t.Errorf("an edit of an example hook was undone: %v", paths)
	}
	if _, err := os.Lstat(filepath.Join(hooks, "pre-push")); err == nil {
		t.Error(".git/hooks/pre-push is still there")
	}
}
