package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/hooks"
)

// hostNames are the hosts `mbguard hook` answers, from the one host registry.
func hostNames() []string { return slices.Sorted(slices.Values(hooks.HostNames(true))) }

func newHookCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "hook <host> [event] < payload.json",
		Short: "answer an agent host's hook call (" + strings.Join(hostNames(), ", ") + "): one payload on stdin",
		Long: `Reads one hook payload on stdin and replies in the host's protocol.

claude (Claude Code): exit 0 allows the tool call (context, if any, goes to stdout as JSON);
exit 2 blocks it, with the reason on stderr for the agent to read.
codex, gemini, copilot: always exit 0; a refusal is the host's JSON deny on stdout with the
reason, context the host's additionalContext. The event argument names the hook event for
hosts that leave it out of the payload (Copilot CLI); install writes it.

MBGUARD=0 lets every call through unchecked (the escape hatch).`,
		ValidArgs: hostNames(),
	}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if len(args) < 1 || len(args) > 2 {
			return e.usage(c, "hook needs one host: %s", strings.Join(hostNames(), ", "))
		}
		if spec, ok := hooks.LookupHost(args[0]); !ok || !spec.HookHost() {
			return e.usage(c, "unknown host %q: want %s", args[0], strings.Join(hostNames(), ", "))
		}
		event := ""
		if len(args) == 2 {
			event = args[1]
		}
		return hookRun(ctx, e, args[0], event)
	})
	return c
}

// hookRun answers one hook call from host.
func hookRun(ctx context.Context, e *env, host, event string) int {
	h := &hooks.Hook{Host: host, Event: event, Dir: e.dir, Getenv: e.getenv, Sets: e.sets, Now: time.Now}
	reply := h.Run(ctx, e.stdin)
	e.stdout.Write(reply.Stdout)
	fmt.Fprint(e.stderr, reply.Stderr)
	switch {
	case reply.Decision != nil:
		e.logf("hook %s %s: %s %s", host, reply.Event, reply.Decision.Verdict, reply.Decision.Gate)
	case reply.Note != "":
		e.logf("hook %s %s: %s", host, reply.Event, reply.Note)
	}
	return reply.Exit
}
