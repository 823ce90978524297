package watcher

import (
	"context"
	"os"

	"github.com/mbguard/mbguard/internal/declog"
	"github.com/mbguard/mbguard/outcome"
)

type requesterKey struct{}

type hostKey struct{}

// WithHost is WithRequester for a request the host process sent itself (Claude Code's http
// hooks): the pre check records that process as the call's host, not its parent.
func WithHost(ctx context.Context, pid int) context.Context {
	return context.WithValue(WithRequester(ctx, pid), hostKey{}, true)
}

// WithRequester tells Handle which process sent the requests served under ctx: the socket's
// peer. The pre check records that process's host (outcome.HostOf), so a later request from
// under one of the host's tool calls is told from the host's own.
func WithRequester(ctx context.Context, pid int) context.Context {
	return context.WithValue(ctx, requesterKey{}, pid)
}

// requester is the process serving ctx's requests came from: the one WithRequester named, else
// this one (an in-process Service answers its own hook; serve answers its host on stdin).
func requester(ctx context.Context) (pid int, host bool) {
	if pid, ok := ctx.Value(requesterKey{}).(int); ok {
		host, _ := ctx.Value(hostKey{}).(bool)
		return pid, host
	}
	return os.Getpid(), false
}

// hostOf is the host a request from pid records for its call: pid itself when it is the host.
func hostOf(pid int, host bool) *outcome.Proc {
	if host {
		return outcome.ProcOf(pid)
	}
	return outcome.HostOf(pid)
}

// fromAgent says why requests from process pid are refused ("" when they are not): it runs
// inside an agent's tool call (outcome.FromCall), so what it sends is not the host's. The
// refusal goes to the decision log for the person.
func (d *Daemon) fromAgent(pid int) string {
	return refuseFrom(d.svc, pid, "socket")
}

func refuseFrom(svc *Service, pid int, via string) string {
	o, ok := outcome.FromCall(svc.Repo, pid, false)
	if !ok {
		return ""
	}
	msg := "[mbguard] refused: requests on the " + via + " from " + o.String() +
		" come from inside an agent's tool call, not from the host; nothing was recorded"
	svc.log(declog.Entry{Gate: "origin", Verdict: "refused", Tool: o.Tool, Message: msg})
	return msg
}

// FromAgent says why this Service must not serve its own process's requests ("" when it may):
// `serve --stdio` started from inside an agent's tool call speaks for the agent, not the host.
func (s *Service) FromAgent() string { return refuseFrom(s, os.Getpid(), "stdio of mbguard serve") }
