package main

import (
	"context"
	"errors"
)

// TODO(owner): replace this placeholder with the real command.
func newServeCmd(e *env) *command {
	c := &command{name: "serve", short: "serve gating decisions as JSON lines (for the OpenCode plugin)", flags: newFlags("serve", "serve --stdio")}
	c.run = func(ctx context.Context, args []string) int { return e.fail(errors.New("serve: not built yet")) }
	return c
}
