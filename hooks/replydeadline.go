package hooks

import (
	"context"
	"strings"
	"time"

	"github.com/mbguard/mbguard/outcome"
)

// ReplyDeadline is how long a hook may work before it answers anyway: five sixths of the
// timeout install writes for every host (outcome.HookTimeout), so the reply reaches the host
// before it kills the hook, and a host that lets a killed or timed-out hook's call run (most
// do: host.Spec.Fails) gets a refusal instead. MBGUARD_REPLY_DEADLINE (a Go duration)
// overrides it, for tests.
const ReplyDeadline = outcome.HookTimeout * 5 / 6

// ReplyDeadlineEnv names the variable that overrides ReplyDeadline.
const ReplyDeadlineEnv = "MBGUARD_REPLY_DEADLINE"

func (h *Hook) replyDeadline() time.Duration {
	if v := strings.TrimSpace(h.getenv(ReplyDeadlineEnv)); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return ReplyDeadline
}

// handleInTime answers payload with Handle, or, when Handle has not finished by the reply
// deadline, with what a check that could not finish gets: a tool that may write is refused
// (the host would otherwise time the hook out, and most let the call run then), anything
// else goes ahead with a note. The unfinished check is left to the process's end: every
// state file is written atomically, and a post check cut short is finished by the next
// check (outcome.Guard.Finish).
func (h *Hook) handleInTime(ctx context.Context, p protocol, payload []byte) Reply {
	done := make(chan Reply, 1)
	go func() { done <- h.Handle(ctx, payload) }()
	d := h.replyDeadline()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-done:
		return r
	case <-t.C:
	}
	c, _ := p.parse(payload, h.Event)
	why := "the check did not finish within " + d.String()
	if c.Kind == callPreTool && !readOnly(c.Tool) {
		r := p.render(&c, &hookAnswer{Deny: "[mbguard] this tool call was blocked because " + why +
			", before the host's hook timeout. Retry the call; if it keeps happening, ask the user to run `mbguard doctor`."})
		r.Note = "late: " + why
		return r
	}
	return h.unsure(p, &c, why)
}
