package main

import (
	"context"
	"errors"
)

// TODO(owner): replace this placeholder with the real command.
func newMigrateCmd(e *env) *command {
	c := &command{name: "migrate", short: "migrate a legacy memory bank to v7.1 (plan; --apply to execute)", flags: newFlags("migrate", "migrate [--apply] [--rollback] [--git-cli] [--no-git]")}
	c.run = func(ctx context.Context, args []string) int { return e.fail(errors.New("migrate: not built yet")) }
	return c
}
