package main

import (
	"context"
	"errors"
)

// TODO(owner): replace this placeholder with the real command.
func newStatusCmd(e *env) *command {
	c := &command{name: "status", short: "show sessions, armed recovery, recent decisions and findings", flags: newFlags("status", "status [--json]")}
	c.run = func(ctx context.Context, args []string) int { return e.fail(errors.New("status: not built yet")) }
	return c
}
