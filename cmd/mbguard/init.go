package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/lifecycle"
)

func newInitCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "init", Short: "scaffold a v7.1 memory bank (never overwrites)", Args: noArgs}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		r, err := e.repo()
		if err != nil {
			return e.fail(err)
		}
		res, err := lifecycle.Init(r.Root)
		if errors.Is(err, lifecycle.ErrLegacy) {
			fmt.Fprintln(e.stderr, "mbguard: memory-bank/ holds an older memory bank (memory-bank-skill legacy, Cline, Roo Code or Cursor); init leaves it alone: run mbguard migrate")
			return exitUsage
		}
		if err != nil {
			return e.fail(err)
		}
		for _, p := range res.Created {
			fmt.Fprintf(e.stdout, "%-10s %s\n", "created", p)
		}
		e.prime(r) // the first hook call must not build the known-good store
		if len(res.Created) == 0 {
			fmt.Fprintln(e.stderr, "mbguard: the memory bank already has every file init creates; nothing to do")
			return exitOK
		}
		fmt.Fprintln(e.stderr, "mbguard: review memory-bank/MEMORY.md and details/tech.md, then commit them")
		return exitOK
	})
	return c
}
