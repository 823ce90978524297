package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/watcher"
)

// newServeCmd is the long-lived child of the OpenCode plugin: one engine, state held in memory
// and persisted, JSON lines on stdin/stdout (docs/protocol.md) until stdin closes.
func newServeCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "serve --stdio [--root DIR]", Short: "serve gating decisions as JSON lines (for the OpenCode plugin)", Args: noArgs}
	stdio := c.Flags().Bool("stdio", false, "speak JSON lines on stdin/stdout (the only transport)")
	root := c.Flags().String("root", "", "the project root `dir` (default: the repository around -C or the current directory)")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if !*stdio {
			return e.usage(c, "serve needs --stdio (it speaks JSON lines on stdin and stdout)")
		}
		dir := e.dir
		if *root != "" {
			dir = *root
			if !filepath.IsAbs(dir) && e.dir != "." {
				dir = filepath.Join(e.dir, dir)
			}
		}
		r, err := repo.Find(dir)
		if err != nil {
			return e.fail(err)
		}
		cfg, err := e.config(r.Root)
		if err != nil {
			return e.fail(err)
		}
		if err := cfg.Err(); err != nil {
			// serve still answers: the Service applies its fail-safe policy, doctor reports it
			e.logf("configuration: %v (run mbguard doctor)", err)
		}
		svc := watcher.NewService(r, cfg, watcher.ServiceOptions{Resident: true, Jail: kernelJail(e, r, cfg)})
		if msg := svc.FromAgent(); msg != "" {
			// the host starts serve; one the agent started would answer for the agent
			fmt.Fprintf(e.stderr, "mbguard: %s.\nNext: the host (the OpenCode plugin) starts mbguard serve; nothing to do.\n", msg)
			return exitFindings
		}
		go e.prime(r) // the store is built beside the first requests, which wait on its lock
		e.logf("serving %s (pid %d)", r.Root, os.Getpid())
		// SIGTERM (the plugin's kill when OpenCode exits) ends serve like a closed stdin, so the
		// state is persisted rather than cut off.
		ctx, cancel := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
		defer cancel()
		stopWatch := startWatch(ctx, e, svc)
		err = watcher.Serve(ctx, svc, e.stdin, e.stdout)
		cancel()
		stopWatch()
		if err != nil && !errors.Is(err, context.Canceled) {
			return e.fail(fmt.Errorf("serve: %w", err))
		}
		e.logf("stdin closed; state saved")
		return exitOK
	})
	return c
}

// startWatch runs the fsnotify watcher on memory-bank/ for the life of serve and returns its
// stop function. A watcher that cannot start (no memory-bank/ yet, the inotify limit) does not
// stop serve: gating works without it, and `mbguard doctor` reports the watcher.
func startWatch(ctx context.Context, e *env, svc *watcher.Service) func() {
	_, stop, err := svc.WatchBank(ctx, watcher.WatchOptions{Logf: e.logf})
	if err != nil {
		e.logf("file watcher not started: %v", err)
		return func() {}
	}
	return stop
}
