package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/mbguard/mbguard/lifecycle"
)

func newInitCmd(e *env) *command {
	c := &command{name: "init", short: "scaffold a v7.1 memory bank (never overwrites)", flags: newFlags("init", "init")}
	c.run = func(ctx context.Context, args []string) int {
		if len(args) > 0 {
			c.flags.Usage()
			return exitUsage
		}
		r, err := e.repo()
		if err != nil {
			return e.fail(err)
		}
		res, err := lifecycle.Init(r.Root)
		if errors.Is(err, lifecycle.ErrLegacy) {
			fmt.Fprintln(e.stderr, "mbguard: memory-bank/ has the legacy layout; init leaves it alone: run mbguard migrate")
			return exitUsage
		}
		if err != nil {
			return e.fail(err)
		}
		for _, p := range res.Created {
			fmt.Fprintf(e.stdout, "%-10s %s\n", "created", p)
		}
		if len(res.Created) == 0 {
			fmt.Fprintln(e.stderr, "mbguard: the memory bank already has every file init creates; nothing to do")
			return exitOK
		}
		fmt.Fprintln(e.stderr, "mbguard: review memory-bank/MEMORY.md and details/tech.md, then commit them")
		return exitOK
	}
	return c
}
