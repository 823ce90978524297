package outcome

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// With a state folder mbguard cannot write, the pre check records nothing: a person's edit
// and chmod made before the call are reported, never undone as the agent's, and still stand
// once the folder is writable again.
func TestUnwritableStateNeverBlamesTheAgent(t *testing.T) {
	if os.Geteuid() != 0 {
		testhost.Missing(t, "root (an immutable state folder needs chattr +i; an owner repairs a chmod)", "run the tests as root, e.g. in the CI container")
	}
	chattr := testhost.Tool(t, "chattr", "apt-get install e2fsprogs")
	root, g := newBank(t)
	call(t, g, "a", "")
	st := filepath.Join(root, ".git", "mbguard")
	os.MkdirAll(QuarantineDir(g.r), 0o755) // writable inside: an undo could run
	if out, err := exec.Command(chattr, "+i", st).CombinedOutput(); err != nil {
		testhost.Missing(t, "chattr +i on the test's file system ("+string(out)+")", "run the tests on ext4 or tmpfs as root")
	}
	t.Cleanup(func() { exec.Command(chattr, "-i", st).Run() })
	progress := filepath.Join(root, "memory-bank/details/progress.md")
	os.Chmod(progress, 0o600)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nhuman\n")
	c := Call{ID: "b", Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err == nil {
		t.Fatal("the pre check did not say it could not record the call")
	}
	// the post check runs in another process (a hook): a fresh Guard
	post, err := New(g.r, Options{Rules: rulesFor(root)}).After(Call{ID: "b", Session: "s", Tool: "Bash", Check: true})
	if post.Blocked() {
		t.Fatalf("the person's changes were undone as the agent's: %+v", post.Undone)
	}
	// The person's changes came before the pre check, so they are the person's: the pre check
	// may already have taken them into the known-good copy kept outside the repository (then
	// the post check sees nothing to report), or the post check lists them as kept. Either
	// way the unwritable state itself must be reported, with the fix.
	if err == nil || !strings.Contains(err.Error(), "make ") {
		t.Errorf("the unwritable state was not reported with its fix: %v", err)
	}
	for _, p := range post.Noticed {
		if !strings.Contains(p.Text, "kept") {
			t.Errorf("a change was reported as not kept: %+v", p)
		}
	}
	exec.Command(chattr, "-i", st).Run()
	if rep := call(t, tracked(t, New(g.r, Options{Rules: rulesFor(root)})), "c", ""); rep.Blocked() {
		t.Fatalf("the next call undid the person's changes: %+v", rep.Undone)
	}
	if fi, _ := os.Stat(progress); fi.Mode().Perm() != 0o600 {
		t.Errorf("the person's chmod was undone: %v", fi.Mode())
	}
	if got := readBank(t, root, "memory-bank/details/patterns.md"); got != "# Patterns\nhuman\n" {
		t.Errorf("patterns.md = %q", got)
	}
}

// A person's chmod, edit and new file made before a session whose state folder mbguard cannot
// write: the pre check says so with the fix, nothing is undone, and once the folder is
// writable again the next check neither undoes them nor takes mbguard's own unsaved state
// for a forgery (its outside copy never vouched for a manifest it could not write).
func TestUnwritableStateIsReportedWithItsFix(t *testing.T) {
	if os.Geteuid() != 0 {
		testhost.Missing(t, "root (an immutable state folder needs chattr +i)", "run the tests as root, e.g. in the CI container")
	}
	chattr := testhost.Tool(t, "chattr", "apt-get install e2fsprogs")
	root, g := newBank(t)
	call(t, g, "a", "")
	progress := filepath.Join(root, "memory-bank/details/progress.md")
	os.Chmod(progress, 0o600)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nhuman\n")
	testgit.Write(t, root, "memory-bank/details/person.md", "# Mine\n")
	st := filepath.Join(root, ".git", "mbguard")
	if out, err := exec.Command(chattr, "+i", st).CombinedOutput(); err != nil {
		testhost.Missing(t, "chattr +i on the test's file system ("+string(out)+")", "run the tests on ext4 or tmpfs as root")
	}
	t.Cleanup(func() { exec.Command(chattr, "-i", st).Run() })
	fresh := func() *Guard { return New(g.r, Options{Rules: rulesFor(root)}) }
	c := Call{ID: "b", Session: "s2", Tool: "Bash"}
	_, err := fresh().Before(c)
	if err == nil || !strings.Contains(err.Error(), "make it writable") || !strings.Contains(err.Error(), st) {
		t.Fatalf("the pre check did not name the unwritable state and its fix: %v", err)
	}
	if post, _ := fresh().After(Call{ID: "b", Session: "s2", Tool: "Bash", Check: true}); post.Blocked() {
		t.Fatalf("the person's changes were undone: %+v", post.Undone)
	}
	exec.Command(chattr, "-i", st).Run()
	rep := call(t, fresh(), "c", "")
	if rep.Blocked() {
		t.Fatalf("the next call undid the person's changes: %+v", rep.Undone)
	}
	if len(rep.Tampered) > 0 {
		t.Errorf("mbguard's own unsaved state was reported as tampered with: %q", rep.Tampered)
	}
	if fi, _ := os.Stat(progress); fi.Mode().Perm() != 0o600 {
		t.Errorf("the person's chmod was undone: %v", fi.Mode())
	}
	if got := readBank(t, root, "memory-bank/details/person.md"); got != "# Mine\n" {
		t.Errorf("person.md = %q", got)
	}
}

// BenchmarkDirWritable is what a manifest save now pays first (access(2) on the state folder);
// baseline: a stat of the same folder (BenchmarkStatStateDir).
func BenchmarkDirWritable(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		if err := dirWritable(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStatStateDir(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		if _, err := os.Stat(dir); err != nil {
			b.Fatal(err)
		}
	}
}
