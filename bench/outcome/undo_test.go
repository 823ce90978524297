package outcome_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/outcome"
)

// undoCreated times the post check of one call that created n files in a 10-file bank: every
// file is judged, moved into the quarantine and the folders removed.
func undoCreated(b *testing.B, n int) (wall, cpu time.Duration) {
	dir := bankOf(b, 10)
	r, _ := repo.Find(dir)
	// no deadline: the whole check is timed, never handed to the background
	g := outcome.New(r, outcome.Options{Deadline: time.Hour})
	c := outcome.Call{ID: "c", Session: "s", Tool: "Bash"}
	if _, err := g.Before(c); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, "memory-bank", "spam", fmt.Sprintf("d%03d", i%100), fmt.Sprintf("f%05d.json", i))
		if i < 100 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	t0, c0 := time.Now(), cpuTime()
	c.Check = true
	rep, err := g.After(c)
	wall, cpu = time.Since(t0), cpuTime()-c0
	if err != nil || len(rep.Undone) < n {
		b.Fatalf("post check: %v, undone %d of %d", err, len(rep.Undone), n)
	}
	return wall, cpu
}

// BenchmarkUndoCreated: the post check of a call that created 2,000 and 20,000 files, in the
// same run. The target is ≤ 5 s for 20,000 (the host kills a hook at outcome.HookTimeout, and
// the check hands its rest to the background at outcome.PostDeadline) and linear growth: it
// prints both times, their ratio (linear: 10×), the per-file cost of the large run against
// the small one (baseline: 2,000 files) and the 20,000 time against the target.
//
//	go test ./bench/outcome -run '^$' -bench UndoCreated -benchtime 1x
func BenchmarkUndoCreated(b *testing.B) {
	testgit.Isolate(b)
	for i := 0; i < b.N; i++ {
		small, smallCPU := undoCreated(b, 2000)
		large, largeCPU := undoCreated(b, 20000)
		ratio := (float64(large) / 20000) / (float64(small) / 2000)
		b.ReportMetric(float64(small.Milliseconds()), "ms-2000")
		b.ReportMetric(float64(large.Milliseconds()), "ms-20000")
		b.ReportMetric(ratio, "per-file-ratio")
		b.ReportMetric(float64(large)/float64(small), "ratio-20000/2000")
		fmt.Printf("undo of created files: 2,000 in %v, 20,000 in %v; ×%.1f (linear: ×10), per-file cost ×%.2f against 2,000 (1.0 = linear)\n",
			small.Round(time.Millisecond), large.Round(time.Millisecond), float64(large)/float64(small), ratio)
		if smallCPU > 0 {
			// the CPU time is the check's own work, whatever the machine's load
			b.ReportMetric(float64(largeCPU)/float64(smallCPU), "cpu-ratio-20000/2000")
			fmt.Printf("CPU time of the check: 2,000 in %v, 20,000 in %v; ×%.1f (linear: ×10)\n",
				smallCPU.Round(time.Millisecond), largeCPU.Round(time.Millisecond), float64(largeCPU)/float64(smallCPU))
		}
		fmt.Printf("20,000 files: %v against the 5 s target (%.0f%%); the deadline is %v, the hook timeout %v\n",
			large.Round(time.Millisecond), 100*large.Seconds()/5, outcome.PostDeadline, outcome.HookTimeout)
	}
}
