package main

import (
	"context"
	"errors"
)

// TODO(owner): replace this placeholder with the real command.
func newHookCmd(e *env) *command {
	c := &command{name: "hook", short: "answer an agent host's hook call (claude)", flags: newFlags("hook", "hook claude < payload.json")}
	c.run = func(ctx context.Context, args []string) int { return e.fail(errors.New("hook: not built yet")) }
	return c
}
