package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// killedMain is mbguard that kills itself (SIGKILL on Unix, TerminateProcess on Windows) when
// it is about to put its MBGUARD_TEST_KILL_AT-th atomically written file in place: the
// temporary file is complete and nothing has cleaned it yet, the moment a kill -9 does most
// harm.
func killedMain() {
	n, _ := strconv.Atoi(os.Getenv("MBGUARD_TEST_KILL_AT"))
	var seen atomic.Int64 // the known-good store writes from several goroutines
	fsutil.BeforePlace = func(string) {
		if seen.Add(1) == int64(n) {
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Kill()
			}
			select {} // the kill is on its way
		}
	}
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// TestMigrateKilledAnywhere kills `mbguard migrate --apply` at each of its file writes in turn
// (git objects, the journal, MEMORY.md, the known-good store the run primes) and wants
// `git fsck --strict` to find nothing wrong, and a second `migrate --apply` to finish the work
// (issue #27: a kill left .git/objects/xx/.<hash>.tmp<digits>, a "bad sha1 file" for ever).
func TestMigrateKilledAnywhere(t *testing.T) {
	testhost.Tool(t, "git", "install git")
	testhost.Short(t, "migrate runs killed at each of their writes")
	testgit.Isolate(t)
	for n := 1; ; n++ {
		if n > 500 {
			t.Fatal("migrate --apply still killed after 500 writes: the run never ends")
		}
		root := testgit.Repo(t)
		for _, f := range []string{"brief.md", "active.md", "tech.md", "patterns.md", "progress.md"} {
			testgit.Write(t, root, "memory-bank/"+f, "# "+strings.TrimSuffix(f, ".md")+"\n\nnotes on "+f+"\n")
		}
		testgit.Write(t, root, "docs/pay.md", "see [tech](../memory-bank/tech.md)\n")
		testgit.Commit(t, root, "start")

		cmd := exec.Command("mbguard-killed", "migrate", "--apply")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "MBGUARD_TEST_KILL_AT="+strconv.Itoa(n))
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		killed := errors.As(err, &ee) && !ee.Exited()
		if err != nil && !killed {
			t.Fatalf("migrate --apply (kill at write %d) failed without being killed: %v\n%s", n, err, out)
		}
		fsck := exec.Command("git", "fsck", "--strict", "--no-dangling", "--no-progress")
		fsck.Dir = root
		if got, err := fsck.CombinedOutput(); err != nil || len(strings.TrimSpace(string(got))) > 0 {
			t.Fatalf("git fsck --strict after a kill at write %d: %v\n%s\nleft in .git/objects:\n%s", n, err, got, looseNames(root))
		}
		if !killed {
			t.Logf("migrate --apply wrote %d files; each kill left git fsck clean", n-1)
			return
		}
		again := exec.Command("mbguard", "migrate", "--apply")
		again.Dir = root
		if got, err := again.CombinedOutput(); err != nil {
			t.Fatalf("migrate --apply after a kill at write %d: %v\n%s", n, err, got)
		}
	}
}

// looseNames lists the files under .git/objects that are not packs, for a failure message.
func looseNames(root string) string {
	var b strings.Builder
	filepath.WalkDir(filepath.Join(root, ".git", "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, "pack") {
			rel, _ := filepath.Rel(root, p)
			b.WriteString(rel + "\n")
		}
		return nil
	})
	return b.String()
}
