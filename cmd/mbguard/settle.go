package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/spawn"
	"github.com/mbguard/mbguard/watcher"
)

// newSettleCmd is the background half of a post check that ran out of time: the check
// starts `mbguard settle <root>` detached, and it finishes the undo with no deadline while
// the call's record stays open (the next call waits for it). Hidden: nobody types it.
func newSettleCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "settle <root>", Hidden: true,
		Short: "finish, in the background, a check of memory-bank/ that ran out of time"}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if len(args) != 1 {
			return e.usage(c, "settle takes the repository root")
		}
		r, err := repo.Find(args[0])
		if err != nil {
			return e.fail(err)
		}
		cfg, err := e.config(r.Root)
		if err != nil {
			return e.fail(err)
		}
		if err := watcher.Settle(r, cfg); err != nil {
			return e.fail(err)
		}
		return exitOK
	})
	return c
}

// settleInBackground starts `mbguard settle root` detached, so it outlives the hook process
// (and the host's kill of it) and holds none of its pipes.
func settleInBackground(root string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return spawn.Detached(exe, root, "settle", root)
}
