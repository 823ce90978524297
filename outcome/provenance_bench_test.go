package outcome

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// BenchmarkProvenanceCheck prints what the commit-provenance check adds per call, as ratios
// against the named baseline "check pair" (one Before and one After of a call that changed
// nothing, on a 50-file bank) run in the same process:
//   - quiet: the ref-store fingerprint and the record read, which every check pays (no git);
//   - moved: a ref moved during the call: one for-each-ref and one rev-list;
//   - judged: git's work put 10 bank files there while the agent has commits: the one git
//     log that tells whose commits introduced them;
//   - refuse: the pre check of a shell command naming git when the agent made no commit.
func BenchmarkProvenanceCheck(b *testing.B) {
	root := testgit.New(b)
	testgit.Write(b, root, "memory-bank/MEMORY.md", goodMemory)
	for i := 0; i < 49; i++ {
		testgit.Write(b, root, fmt.Sprintf("memory-bank/details/f%02d.md", i), "# F\n")
	}
	testgit.Commit(b, root, "init")
	first := strings.TrimSpace(testgit.Git(b, root, "rev-parse", "HEAD"))
	testgit.Git(b, root, "switch", "-q", "-c", "other")
	for i := 0; i < 10; i++ {
		testgit.Write(b, root, fmt.Sprintf("memory-bank/details/f%02d.md", i), "# F\nother\n")
	}
	testgit.Commit(b, root, "other")
	second := strings.TrimSpace(testgit.Git(b, root, "rev-parse", "HEAD"))
	testgit.Git(b, root, "switch", "-q", "main")
	r, err := repo.Find(root)
	if err != nil {
		b.Fatal(err)
	}
	g := New(r, Options{Rules: rulesFor(root)})
	c := Call{ID: "c", Session: "s", Tool: "Bash"}
	const rounds = 200
	timed := func(f func(i int)) float64 {
		start := time.Now()
		for i := range rounds {
			f(i)
		}
		return float64(time.Since(start).Nanoseconds()) / rounds
	}
	pair := timed(func(int) { g.Before(c); g.After(c) })
	quiet := timed(func(int) { g.noteCommits(true) })
	refuse := timed(func(int) { g.RefuseGit("git merge other", root) })
	ref := filepath.Join(r.CommonDir, "refs", "heads", "moving")
	moved := timed(func(i int) {
		id := first
		if i%2 == 1 {
			id = second
		}
		os.WriteFile(ref, []byte(id+"\n"), 0o644)
		g.noteCommits(true)
	})
	// the agent owns a commit; git's work put other's ten files into the bank
	rec := g.loadCommits()
	rec.agent, rec.set[second] = append(rec.agent, second), true
	g.saveCommits(rec)
	w := &gitWork{head: second}
	var cs []*change
	for p, e := range g.bankTree(second) {
		if strings.Contains(p, "/f0") {
			cs = append(cs, &change{path: p, newBlob: e.blob, d: &Entry{Kind: KindFile}})
		}
	}
	judged := timed(func(int) {
		if len(g.fromAgent(w, cs)) != len(cs) {
			b.Fatal("the agent's content was not found")
		}
	})
	b.ReportMetric(2*quiet/pair, "quiet/pair")
	b.ReportMetric(moved/pair, "moved/pair")
	b.ReportMetric(judged/pair, "judged/pair")
	fmt.Printf("baseline check pair: %.0f ns; provenance when no ref moved (pre and post): %.3fx of it; "+
		"when a ref moved: %.2fx; judging 10 files git put while the agent has commits: %.2fx; "+
		"pre-check refusal look-up without agent commits: %.3fx\n", pair, 2*quiet/pair, moved/pair, judged/pair, refuse/pair)
	for b.Loop() {
		g.noteCommits(true)
	}
}
