// Command watch benchmarks the memory-bank file watcher on a 10,000-file bank: idle CPU, RSS,
// and the latency from a change on disk to its finding being recorded. The named baseline is
// the debounce itself (a finding can never come sooner), measured in the same run; the
// target is a finding within 300 ms.
//
//	go run ./bench/watch/testdata/watchbench [-files 10000] [-idle 10s] [-changes 50] [-debounce 150ms]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/watcher"
)

const target = 300 * time.Millisecond

type sink struct{ found chan time.Time }

func (s sink) AddFinding(watcher.Finding) { s.found <- time.Now() }
func (s sink) InvalidateContext()         {}

func main() {
	files := flag.Int("files", 10000, "files in the bank")
	idle := flag.Duration("idle", 10*time.Second, "idle period to measure CPU over")
	changes := flag.Int("changes", 50, "changes to time")
	debounce := flag.Duration("debounce", watcher.DefaultDebounce, "the watcher's debounce")
	flag.Parse()
	if err := run(*files, *idle, *changes, *debounce); err != nil {
		fmt.Fprintln(os.Stderr, "bench/watch:", err)
		os.Exit(1)
	}
}

func run(files int, idle time.Duration, changes int, debounce time.Duration) error {
	root, err := os.MkdirTemp("", "mbguard-bench-watch")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	bankDir := filepath.Join(root, "memory-bank")
	const perDir = 100
	for i := 0; i < files; i++ {
		dir := filepath.Join(bankDir, "details", "learnings", fmt.Sprintf("d%03d", i/perDir))
		if i%perDir == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		body := fmt.Sprintf("# note %d\n<!-- USER_BLOCK_START -->\nmine %d\n<!-- USER_BLOCK_END -->\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%05d.md", i)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	r, err := repo.Find(root)
	if err != nil {
		return err
	}
	cfg, err := config.Load(config.Options{RepoRoot: root, Getenv: func(string) string { return "" }})
	if err != nil {
		return err
	}
	s := sink{found: make(chan time.Time, 16)}
	w := watcher.NewWatcher(r, cfg, s, watcher.WatchOptions{Debounce: debounce, FindingsFile: filepath.Join(r.StateDir(), "findings.jsonl")})
	start := time.Now()
	fw, err := w.Start()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Loop(ctx, fw)
	fmt.Printf("bank: %d files in %d directories; watcher start (watches + baseline scan): %s\n", files, (files+perDir-1)/perDir, time.Since(start).Round(time.Millisecond))

	// idle CPU: nothing changes, the watcher should not wake at all
	cpu0, wall0 := cpuTime(), time.Now()
	time.Sleep(idle)
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	fmt.Printf("idle CPU over %s: %s (%.3f%% of one core; target ~0)\n", wall.Round(time.Millisecond), cpu, 100*float64(cpu)/float64(wall))
	fmt.Printf("RSS after start: %.1f MB (target <= 30 MB)\n", rssMB())

	// latency: alternate a stray non-.md file and a .md with a broken marker (the second
	// also runs the secret scan)
	var lat []time.Duration
	for i := 0; i < changes; i++ {
		dir := filepath.Join(bankDir, "details", "learnings", fmt.Sprintf("d%03d", (i*7)%((files+perDir-1)/perDir)))
		name, body := fmt.Sprintf("stray%03d.json", i), "{}"
		if i%2 == 1 {
			name, body = fmt.Sprintf("broken%03d.md", i), "<!-- USER_BLOCK_START -->\nno end\n"
		}
		t0 := time.Now()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
		select {
		case t1 := <-s.found:
			lat = append(lat, t1.Sub(t0))
		case <-time.After(10 * time.Second):
			return fmt.Errorf("change %d: no finding within 10s", i)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	fmt.Printf("baseline: debounce %s\n", debounce)
	for _, q := range []struct {
		name string
		v    time.Duration
	}{{"p50", p(0.50)}, {"p99", p(0.99)}} {
		fmt.Printf("change→finding %s: %s (latency - debounce = %s; ratio to the %s target = %.2f)\n",
			q.name, q.v.Round(10*time.Microsecond), (q.v - debounce).Round(10*time.Microsecond), target, float64(q.v)/float64(target))
	}
	fmt.Printf("RSS right after %d changes (secret detector built): %.1f MB (target <= 30 MB)\n", changes, rssMB())
	time.Sleep(watcher.SecretIdle + time.Second)
	fmt.Printf("RSS idle %s later (detector released): %.1f MB (target <= 30 MB)\n", watcher.SecretIdle+time.Second, rssMB())
	return nil
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
			return kb / 1024
		}
	}
	return -1
}
