package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mbguard/mbguard/hooks"
)

func newHookCmd(e *env) *command {
	c := &command{name: "hook", short: "answer an agent host's hook call (claude): one payload on stdin",
		flags: newFlags("hook", "hook claude < payload.json\n\nReads one Claude Code hook payload on stdin and replies in Claude Code's protocol:\nexit 2 with the reason on stderr blocks a tool call; context goes to stdout as JSON.")}
	c.run = func(ctx context.Context, args []string) int {
		if len(args) != 1 || args[0] != "claude" {
			c.flags.Usage()
			return exitUsage
		}
		h := &hooks.Claude{Dir: e.dir, Getenv: e.getenv, Sets: e.sets, Now: time.Now}
		reply := h.Run(ctx, e.stdin)
		e.stdout.Write(reply.Stdout)
		fmt.Fprint(e.stderr, reply.Stderr)
		if reply.Decision != nil {
			e.logf("hook claude %s: %s %s", reply.Event, reply.Decision.Verdict, reply.Decision.Gate)
		}
		return reply.Exit
	}
	return c
}
