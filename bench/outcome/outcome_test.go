// Package outcome_test measures what the post-call outcome check adds to a tool call: the
// pre and post events of one shell call, with and without the check, for banks of 10, 200
// and 2,000 files, through a resident Service with its file watcher (serve) and a per-call
// Claude hook (in process: without the process start, which bench/hook measures).
//
//	go test ./bench/outcome -run '^$' -bench . -benchtime 300x     (or bash bench/outcome/run.sh)
package outcome_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/watcher"
)

const memory = "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n"

func bankOf(b *testing.B, files int) string {
	dir := testgit.New(b)
	testgit.Write(b, dir, "memory-bank/MEMORY.md", memory)
	for i := 1; i < files; i++ {
		testgit.Write(b, dir, fmt.Sprintf("memory-bank/details/d%02d/f%04d.md", i%20, i), fmt.Sprintf("# Note %d\nsome text\n", i))
	}
	return dir
}

// p50 reports the median of one op's durations next to Go's mean.
func p50(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	if len(ds) > 0 {
		b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns")
	}
}

func BenchmarkOutcome(b *testing.B) {
	for _, n := range []int{10, 200, 2000} {
		dir := bankOf(b, n)
		r, _ := repo.Find(dir)
		cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
		for _, check := range []string{"off", "on"} {
			b.Run(fmt.Sprintf("serve/files=%d/check=%s", n, check), func(b *testing.B) {
				svc := watcher.NewService(r, cfg, watcher.ServiceOptions{Resident: true, NoOutcome: check == "off"})
				ctx := context.Background()
				// serve runs the fsnotify watcher on the bank, as `mbguard serve` does
				_, stop, err := svc.WatchBank(ctx, watcher.WatchOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer stop()
				ev := gating.Event{Kind: gating.EvToolBefore, Host: "opencode", Session: "s", Tool: "bash",
					Args: map[string]any{"command": "go test ./..."}, Cwd: dir}
				// one call first: the first check of a bank stores every file's bytes once
				// (a one-time cost, not a per-call one)
				ev.Kind, ev.Call = gating.EvToolBefore, "warm-up"
				svc.Handle(ctx, watcher.Request{Op: "event", Event: &ev})
				ev.Kind = gating.EvToolAfter
				svc.Handle(ctx, watcher.Request{Op: "event", Event: &ev})
				var ds []time.Duration
				i := 0
				for b.Loop() {
					i++
					t0 := time.Now()
					ev.Kind, ev.Call = gating.EvToolBefore, fmt.Sprint("call_", i)
					svc.Handle(ctx, watcher.Request{Op: "event", Event: &ev})
					ev.Kind = gating.EvToolAfter
					resp := svc.Handle(ctx, watcher.Request{Op: "event", Event: &ev})
					ds = append(ds, time.Since(t0))
					if resp.Decision == nil || resp.Decision.Verdict == gating.Block {
						b.Fatalf("unexpected %+v %+v", resp, resp.Decision)
					}
				}
				p50(b, ds)
			})
			b.Run(fmt.Sprintf("hook/files=%d/check=%s", n, check), func(b *testing.B) {
				c := &hooks.Claude{Dir: dir, Connect: func(r repo.Repo, cfg *config.Config) (hooks.Doer, func(), error) {
					svc := watcher.NewService(r, cfg, watcher.ServiceOptions{NoOutcome: check == "off"})
					return func(ctx context.Context, q watcher.Request) (watcher.Response, error) { return svc.Handle(ctx, q), nil }, func() {}, nil
				}}
				ctx := context.Background()
				call := func(id string) hooks.Reply {
					pre := fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"s1","cwd":%q,"tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"go test ./..."}}`, dir, id)
					post := fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":"s1","cwd":%q,"tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"go test ./..."},"tool_response":{}}`, dir, id)
					c.Handle(ctx, []byte(pre))
					return c.Handle(ctx, []byte(post))
				}
				call("warm-up") // the one-time first check (see serve)
				var ds []time.Duration
				i := 0
				for b.Loop() {
					i++
					t0 := time.Now()
					rep := call(fmt.Sprint("toolu_", i))
					ds = append(ds, time.Since(t0))
					if rep.Exit != 0 {
						b.Fatal(rep.Stderr)
					}
				}
				p50(b, ds)
			})
		}
		_ = filepath.Join
	}
}
