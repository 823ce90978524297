package main

import (
	"context"
	"errors"
)

// TODO(owner): replace this placeholder with the real command.
func newUpgradeCmd(e *env) *command {
	c := &command{name: "upgrade", short: "upgrade MEMORY.md in place to the current template", flags: newFlags("upgrade", "upgrade [--no-backup]")}
	c.run = func(ctx context.Context, args []string) int { return e.fail(errors.New("upgrade: not built yet")) }
	return c
}
