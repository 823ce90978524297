package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/hooks"
)

// hookHosts answers one hook call per agent host; adding a host is one line here.
func hookHosts() map[string]func(ctx context.Context, e *env) int {
	return map[string]func(ctx context.Context, e *env) int{
		"claude": hookClaude,
	}
}

// hostNames lists hookHosts' keys in order, for help, messages and completion.
func hostNames() []string {
	var names []string
	for n := range hookHosts() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func newHookCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "hook <host> < payload.json",
		Short: "answer an agent host's hook call (" + strings.Join(hostNames(), ", ") + "): one payload on stdin",
		Long: `Reads one hook payload on stdin and replies in the host's protocol.

For claude (Claude Code): exit 0 allows the tool call (context, if any, goes to stdout as
JSON); exit 2 blocks it, with the reason on stderr for the agent to read. Any other exit
code is a non-blocking error to Claude Code.`,
		ValidArgs: hostNames(),
	}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if len(args) != 1 {
			return e.usage(c, "hook needs one host: %s", strings.Join(hostNames(), ", "))
		}
		h, ok := hookHosts()[args[0]]
		if !ok {
			return e.usage(c, "unknown host %q: want %s", args[0], strings.Join(hostNames(), ", "))
		}
		return h(ctx, e)
	})
	return c
}

// hookClaude answers one Claude Code hook call.
func hookClaude(ctx context.Context, e *env) int {
	h := &hooks.Claude{Dir: e.dir, Getenv: e.getenv, Sets: e.sets, Now: time.Now}
	reply := h.Run(ctx, e.stdin)
	e.stdout.Write(reply.Stdout)
	fmt.Fprint(e.stderr, reply.Stderr)
	if reply.Decision != nil {
		e.logf("hook claude %s: %s %s", reply.Event, reply.Decision.Verdict, reply.Decision.Gate)
	}
	return reply.Exit
}
