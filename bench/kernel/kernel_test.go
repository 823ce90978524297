// Package kernel measures the kernel line's cost per shell call: `sh -c true` (the named
// baseline) against the same command under `mbguard jail` with each method, and the full
// line the OpenCode plugin runs, in one process, round-robin so machine load hits all alike.
package kernel

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/jail"
)

func BenchmarkKernel(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "mbguard")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/mbguard").CombinedOutput(); err != nil {
		b.Fatalf("building mbguard: %v\n%s", err, out)
	}
	dir := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, "memory-bank"), 0o755)
	// bench/kernel/run.sh prints "opencode": the line the plugin runs (bwrap directly when installed)
	variants := []struct {
		name string
		argv []string
	}{
		{"plain", []string{"sh", "-c", "true"}},
		{"start", []string{bin, "version"}}, // one start of mbguard: what any jail method pays first
		{"userns", []string{bin, "jail", "--method", "userns", "--", "sh", "-c", "true"}},
		{"bwrap", []string{bin, "jail", "--method", "bwrap", "--", "sh", "-c", "true"}},
		{"opencode", []string{"sh", "-c", jail.NewWrapper(bin, filepath.Join(dir, "memory-bank")).Wrap("true")}},
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		variants = append(variants[:3], variants[4:]...)
	}
	times := make([][]time.Duration, len(variants))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, v := range variants {
			c := exec.Command(v.argv[0], v.argv[1:]...)
			c.Dir = dir
			start := time.Now()
			if out, err := c.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", v.name, err, out)
			}
			times[j] = append(times[j], time.Since(start))
		}
	}
	b.StopTimer()
	p50 := func(ds []time.Duration) float64 {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	base := p50(times[0])
	b.ReportMetric(base, "plain-p50-ms")
	for j, v := range variants[1:] {
		p := p50(times[j+1])
		b.ReportMetric(p, v.name+"-p50-ms")
		b.ReportMetric(p-base, v.name+"-added-ms")
		b.ReportMetric(p/base, v.name+"-ratio")
	}
}
