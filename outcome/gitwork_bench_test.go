package outcome

import (
	"fmt"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// BenchmarkGitAwareCheck prints what the git-aware check adds, as ratios against the named
// baseline "check pair" (one Before and one After of a call that changed nothing, on a
// 50-file bank) run in the same process: the git mark every pre and post check reads, and the
// comparison with git's trees a post check runs only when git did work during the call.
func BenchmarkGitAwareCheck(b *testing.B) {
	root := testgit.New(b)
	testgit.Write(b, root, "memory-bank/MEMORY.md", goodMemory)
	for i := 0; i < 49; i++ {
		testgit.Write(b, root, fmt.Sprintf("memory-bank/details/f%02d.md", i), "# F\n")
	}
	testgit.Commit(b, root, "init")
	testgit.Git(b, root, "branch", "other")
	r, err := repo.Find(root)
	if err != nil {
		b.Fatal(err)
	}
	g := New(r, Options{Rules: rulesFor(root)})
	c := Call{ID: "c", Session: "s", Tool: "Bash"}
	// testing.Benchmark cannot run inside a benchmark (it takes the same lock): each part is
	// timed over the same number of rounds here instead
	const rounds = 200
	timed := func(f func()) float64 {
		start := time.Now()
		for range rounds {
			f()
		}
		return float64(time.Since(start).Nanoseconds()) / rounds
	}
	pair := timed(func() { g.Before(c); g.After(c) })
	mark := timed(func() { g.gitMark() })
	mk := g.gitMark()
	testgit.Git(b, root, "checkout", "-q", "other") // HEAD's ref changes: the trees are read
	worked := timed(func() {
		if g.gitWorked(mk) == nil {
			b.Fatal("git's work not seen")
		}
	})
	b.ReportMetric(2*mark/pair, "mark/pair")
	b.ReportMetric(worked/pair, "trees/pair")
	fmt.Printf("baseline check pair: %.0f ns; git mark (pre and post): %.3fx of it; git trees read after git worked: %.2fx of it\n",
		pair, 2*mark/pair, worked/pair)
	for b.Loop() {
		g.gitMark()
	}
}
