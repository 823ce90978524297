package main

import (
	"context"
	"errors"
)

// TODO(owner): replace this placeholder with the real command.
func newWatchCmd(e *env) *command {
	c := &command{name: "watch", short: "watch memory-bank/ and serve hooks over a unix socket", flags: newFlags("watch", "watch [--stop]")}
	c.run = func(ctx context.Context, args []string) int { return e.fail(errors.New("watch: not built yet")) }
	return c
}
