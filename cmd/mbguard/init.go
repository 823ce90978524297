package main

import (
	"context"
	"errors"
)

// TODO(owner): replace this placeholder with the real command.
func newInitCmd(e *env) *command {
	c := &command{name: "init", short: "scaffold a v7.1 memory bank", flags: newFlags("init", "init")}
	c.run = func(ctx context.Context, args []string) int { return e.fail(errors.New("init: not built yet")) }
	return c
}
