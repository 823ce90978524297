package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/watcher"
)

// newWatchCmd runs the repository's standalone watcher: a resident Service on a unix socket
// (per-call hooks use it when it runs) plus the file watcher on memory-bank/.
func newWatchCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "watch [--detach | --stop | --status] [--debounce 150ms]", Short: "watch memory-bank/ and serve hooks over a unix socket", Args: noArgs,
		Long: `watch runs the repository's watcher in the foreground until Ctrl-C or mbguard watch --stop.
--detach starts it in the background instead (pid file .git/mbguard/watch.pid, log
.git/mbguard/watch.log) and returns once it runs; a second --detach while one runs exits 1.
--status exits 0 when a watcher runs, 1 when none does.`}
	stop := c.Flags().Bool("stop", false, "stop the watcher running for this repository")
	detach := c.Flags().Bool("detach", false, "run the watcher in the background (log in .git/mbguard/watch.log)")
	status := c.Flags().Bool("status", false, "say whether a watcher runs for this repository (exit 0 yes, 1 no)")
	debounce := c.Flags().Duration("debounce", watcher.DefaultDebounce, "how long a file must stay quiet before it is scanned (a `delay` such as 300ms)")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		r, err := e.repo()
		if err != nil {
			return e.fail(err)
		}
		if n := countTrue(*stop, *detach, *status); n > 1 {
			return e.usage(c, "--detach, --stop and --status do not go together: pick one")
		}
		if *status {
			return e.watchStatus(r)
		}
		if code, stop := e.refuseUnderAgent("watch with settings of its own ("+e.ownSettings()+")", e.ownSettings() != ""); stop {
			return code
		}
		if *detach {
			return e.detachWatch(r, *debounce)
		}
		if *stop {
			pid, err := watcher.Stop(r, 5*time.Second)
			if err != nil {
				return e.fail(err)
			}
			if pid == 0 {
				fmt.Fprintln(e.stderr, "mbguard: no watcher runs for this repository; start one with mbguard watch --detach")
				return exitOK
			}
			fmt.Fprintf(e.stderr, "mbguard: stopped the watcher (pid %d)\n", pid)
			return exitOK
		}
		cfg, err := e.config(r.Root)
		if err != nil {
			return e.fail(err)
		}
		if err := cfg.Err(); err != nil {
			fmt.Fprintf(e.stderr, "mbguard: configuration: %v (the watcher applies its fail-safe policy; run mbguard doctor)\n", err)
		}
		ctx, cancel := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
		defer cancel()
		e.prime(r) // the first checked call must not build the known-good store
		svc := watcher.NewService(r, cfg, watcher.ServiceOptions{Resident: true})
		d, err := watcher.StartDaemon(ctx, svc, watcher.WatchOptions{
			Debounce: *debounce,
			// a foreground watcher is for people: its notable events always go to stderr
			Logf: func(format string, a ...any) { fmt.Fprintf(e.stderr, "mbguard: "+format+"\n", a...) },
		})
		if err != nil {
			var re *watcher.RunningError
			if errors.As(err, &re) {
				fmt.Fprintf(e.stderr, "mbguard: %v\n", err)
				return exitFindings
			}
			return e.fail(err)
		}
		fmt.Fprintf(e.stderr, "mbguard: watching %s (pid %d, socket %s); stop with mbguard watch --stop\n", r.BankDir(), os.Getpid(), d.Socket())
		e.startHTTPHooks(ctx, svc, cfg.Watch.HTTPPort)
		if err := d.Wait(); err != nil {
			return e.fail(err)
		}
		fmt.Fprintln(e.stderr, "mbguard: watcher stopped")
		return exitOK
	})
	return c
}

// countTrue counts the flags that are set.
func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
