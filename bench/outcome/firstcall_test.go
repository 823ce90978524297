package outcome_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/watcher"
)

// firstCall runs the first PreToolUse+PostToolUse of a per-call Claude hook process on dir,
// in process: a new Service (so no resident manifest, detector or cache), as each hook
// process starts.
func firstCall(b *testing.B, dir, id string) time.Duration {
	c := &hooks.Claude{Dir: dir, Connect: func(r repo.Repo, cfg *config.Config) (hooks.Doer, func(), error) {
		svc := watcher.NewService(r, cfg, watcher.ServiceOptions{})
		return func(ctx context.Context, q watcher.Request) (watcher.Response, error) { return svc.Handle(ctx, q), nil }, func() {}, nil
	}}
	ctx := context.Background()
	pre := fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"s1","cwd":%q,"tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"go test ./..."}}`, dir, id)
	post := fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":"s1","cwd":%q,"tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"go test ./..."},"tool_response":{}}`, dir, id)
	t0 := time.Now()
	c.Handle(ctx, []byte(pre))
	rep := c.Handle(ctx, []byte(post))
	d := time.Since(t0)
	if rep.Exit != 0 {
		b.Fatal(rep.Stderr)
	}
	return d
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkFirstCall measures the first hook call (pre+post of one shell call, in a fresh
// per-call Service) on a 10,000-file bank against the same call on a 10-file bank (the named
// baseline), alternating the two in the same run. Both banks were set up as `mbguard init` /
// `install --agent` leave them: outcome.Prime built the known-good store (its time on 10,000
// files is logged). Target (issue 17): ratio ≤ 2.
//
//	go test ./bench/outcome -run '^$' -bench FirstCall -benchtime 30x
func BenchmarkFirstCall(b *testing.B) {
	small, big := bankOf(b, 10), bankOf(b, 10000)
	for _, dir := range []string{small, big} {
		r, err := repo.Find(dir)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := outcome.Prime(r); err != nil {
			b.Fatal(err)
		}
		if dir == big {
			b.Logf("outcome.Prime of 10,000 files (as init/install/migrate/watch/serve run it): %v", time.Since(t0))
		}
		if _, err := os.Stat(filepath.Join(r.StateDir(), "known-good.idx")); err != nil {
			b.Fatal("no store after Prime: ", err)
		}
	}
	var ds, db []time.Duration
	i := 0
	for b.Loop() {
		i++
		ds = append(ds, firstCall(b, small, fmt.Sprint("toolu_s", i)))
		db = append(db, firstCall(b, big, fmt.Sprint("toolu_b", i)))
	}
	ms, mb := median(ds), median(db)
	b.ReportMetric(float64(ms.Microseconds())/1000, "p50-10-ms")
	b.ReportMetric(float64(mb.Microseconds())/1000, "p50-10000-ms")
	b.ReportMetric(float64(mb)/float64(ms), "ratio")
	b.Logf("first call: 10 files %v, 10,000 files %v: %.2fx the 10-file bank (target ≤ 2x)", ms, mb, float64(mb)/float64(ms))
}
