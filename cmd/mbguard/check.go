package main

import (
	"context"
	"errors"
)

// TODO(owner): replace this placeholder with the real command.
func newCheckCmd(e *env) *command {
	c := &command{name: "check", short: "check memory-bank/ (markers, template, secrets, stray files)", flags: newFlags("check", "check [--staged | --all | paths...] [--format text|json|sarif]")}
	c.run = func(ctx context.Context, args []string) int { return e.fail(errors.New("check: not built yet")) }
	return c
}
