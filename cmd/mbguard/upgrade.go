package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/lifecycle"
)

func newUpgradeCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "upgrade [--no-backup]", Short: "upgrade MEMORY.md in place to the current template", Args: noArgs}
	noBackup := c.Flags().Bool("no-backup", false, "do not keep a copy of the old MEMORY.md under the git directory")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		r, err := e.repo()
		if err != nil {
			return e.fail(err)
		}
		res, err := lifecycle.Upgrade(lifecycle.UpgradeOptions{Root: r.Root, StateDir: r.StateDir(), NoBackup: *noBackup})
		if err != nil {
			return e.fail(err)
		}
		if !res.Changed {
			fmt.Fprintf(e.stderr, "mbguard: %s is already %s, nothing to do\n", res.Path, res.From)
			return exitOK
		}
		for _, a := range res.Actions {
			fmt.Fprintf(e.stdout, "%s: %s\n", res.Path, a)
		}
		if res.Backup != "" {
			fmt.Fprintf(e.stdout, "backup: %s\n", res.Backup)
		}
		fmt.Fprintf(e.stderr, "mbguard: upgraded %s from %s; the USER_BLOCK is unchanged: review it and commit\n", res.Path, res.From)
		return exitOK
	})
	return c
}
