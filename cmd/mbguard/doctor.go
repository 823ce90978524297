package main

import (
	"context"
	"errors"
)

// TODO(owner): replace this placeholder with the real command.
func newDoctorCmd(e *env) *command {
	c := &command{name: "doctor", short: "check installation, configuration, hooks, watcher and bank health", flags: newFlags("doctor", "doctor [--json]")}
	c.run = func(ctx context.Context, args []string) int { return e.fail(errors.New("doctor: not built yet")) }
	return c
}
