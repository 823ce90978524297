package lifecycle

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
)

// benchRepo builds the benchmark repository once: 19,000 source files and a
// 1,000-file legacy bank (the same shape as bench/migrate/run.sh), committed and packed.
func benchRepo(b *testing.B) string {
	b.Helper()
	root := testgit.New(b)
	for d := 1; d <= 190; d++ {
		for f := 1; f <= 100; f++ {
			testgit.Write(b, root, fmt.Sprintf("src/pkg%d/f%d.go", d, f), fmt.Sprintf("package pkg%d // %d\n", d, f))
		}
	}
	mb := "memory-bank/"
	testgit.Write(b, root, mb+"brief.md", "# Brief\n\nA big project.\n")
	testgit.Write(b, root, mb+"active.md", "# Active\n\n<!-- MACHINE_BLOCK_START -->\n- focus\n<!-- MACHINE_BLOCK_END -->\n\n<!-- USER_BLOCK_START -->\nmine\n<!-- USER_BLOCK_END -->\n")
	testgit.Write(b, root, mb+"_index.md", "# Index\n\n- topics\n")
	for _, f := range []string{"tech", "patterns", "progress"} {
		testgit.Write(b, root, mb+f+".md", "# "+f+"\n\n## one\n")
	}
	for _, s := range []struct {
		dir, name string
		n         int
	}{{"docs/", "d%d.md", 400}, {"requirements/", "REQ-%d.md", 300}, {"learnings/sub/", "l%d.md", 200}, {"archive/", "a%d.md", 94}} {
		for i := 1; i <= s.n; i++ {
			testgit.Write(b, root, mb+s.dir+fmt.Sprintf(s.name, i), fmt.Sprintf("# %s %d\n", s.dir, i))
		}
	}
	testgit.Git(b, root, "config", "gc.auto", "0")
	testgit.Commit(b, root, "start")
	testgit.Git(b, root, "gc", "-q")
	return root
}

// benchCopy gives an iteration a fresh copy of the fixture with a warm index (as run.sh does).
func benchCopy(b *testing.B, src string) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), "r")
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v: %s", err, out)
	}
	testgit.Git(b, dst, "status", "-s")
	return dst
}

// gitMvScript is the named baseline: the git mv + git commit script from bench/migrate/run.sh.
func gitMvScript(b *testing.B, dir string) {
	b.Helper()
	mb := "memory-bank/"
	os.MkdirAll(filepath.Join(dir, mb+"details"), 0o755)
	for _, args := range [][]string{
		{"mv", mb + "tech.md", mb + "patterns.md", mb + "progress.md", mb + "details/"},
		{"mv", mb + "docs", mb + "details/design"},
		{"mv", mb + "requirements", mb + "details/requirements"},
		{"mv", mb + "learnings", mb + "details/learnings"},
		{"mv", mb + "archive", mb + "details/archive"},
		{"commit", "-qm", "move"},
	} {
		testgit.Git(b, dir, args...)
	}
	cat := func(dst string, srcs ...string) {
		var all []byte
		for _, s := range srcs {
			c, _ := os.ReadFile(filepath.Join(dir, mb+s))
			all = append(all, c...)
		}
		os.WriteFile(filepath.Join(dir, mb+dst), all, 0o644)
	}
	cat("MEMORY.md", "brief.md", "active.md")
	cat("legacy.md", "_index.md")
	for _, args := range [][]string{
		{"rm", "-q", mb + "brief.md", mb + "active.md", mb + "_index.md"},
		{"add", mb + "MEMORY.md", mb + "legacy.md"},
		{"commit", "-qm", "memory"},
	} {
		testgit.Git(b, dir, args...)
	}
}

// BenchmarkMigrate times Migrate --apply (go-git mode) on a fresh copy per iteration and, in
// the same iteration on another copy, the git mv + git commit baseline; it reports both and
// the ratio (target ≤ 1.0). Profile with -cpuprofile.
func BenchmarkMigrate(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("needs the git CLI")
	}
	src := benchRepo(b)
	var ours, base time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		a, o := benchCopy(b, src), benchCopy(b, src)
		t0 := time.Now()
		gitMvScript(b, a)
		base += time.Since(t0)
		t0 = time.Now()
		b.StartTimer()
		if _, err := Migrate(context.Background(), opts(o)); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		ours += time.Since(t0)
		if n := testgit.Git(b, o, "rev-list", "--count", "HEAD"); n != "3" {
			b.Fatalf("%s commits, want start + 2", n)
		}
	}
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "gitmv-ns/op")
	b.ReportMetric(float64(ours)/float64(base), "x-gitmv")
}
