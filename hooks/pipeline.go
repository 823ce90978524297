package hooks

// The call pipeline: every `mbguard hook <host>` call runs these steps, in this order, and
// nothing else changes the reply on the way. (OpenCode and Kilo Code have no hook process: their
// plugin parses and renders in JavaScript and asks the same Service through `mbguard serve --stdio`.)
//
//	Run           read the payload (bounded), answer in time (handleInTime)
//	Handle
//	 1 parse      proto.parse (hooks/<host>.go) → hookCall; unreadable → the fail-safe rule (unsure)
//	 2 settle     calls mbguard need not judge are answered at once (settleCall)
//	 3 repos      every repository with a bank the call is about (callRepos); a forged event is
//	              refused before anything is recorded (fromAgent, origin.go)
//	 4 ask        each repository's watcher.Service (ask.go): the engine's decision, mbguard's own
//	              state, the outcome before and after the call, the kernel line
//	 5 secrets    refusals and notices for bank secrets a read would show, then redaction of
//	              everything the reply carries (readsecrets*.go)
//	 6 render     proto.render → the host's reply (replyrules.go checks every shape)

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mbguard/mbguard/outcome"
)

// Run reads one payload from in and handles it.
func (h *Hook) Run(ctx context.Context, in io.Reader) Reply {
	p, err := h.proto()
	if err != nil {
		return Reply{Exit: 2, Stderr: "mbguard: " + err.Error() + "\n"}
	}
	if h.Disabled() {
		// The host may still be writing the payload: take it, unread, so it sees no broken pipe.
		_, _ = io.Copy(io.Discard, io.LimitReader(in, MaxPayload+1))
		return h.disabled(p)
	}
	b, err := io.ReadAll(io.LimitReader(in, MaxPayload+1))
	if err != nil {
		c, _ := p.parse(b, h.Event)
		return h.unsure(p, &c, fmt.Sprintf("reading the hook payload: %v", err))
	}
	if len(b) > MaxPayload {
		c, _ := p.parse(b[:4096], h.Event)
		c.NamesBank = namesBank(b, c.Cwd)
		return h.unsure(p, &c, fmt.Sprintf("the hook payload is larger than %d MiB", MaxPayload>>20))
	}
	return h.handleInTime(ctx, p, b)
}

func (h *Hook) disabled(p protocol) Reply {
	r := p.render(&hookCall{}, &hookAnswer{})
	r.Note = "MBGUARD=0: mbguard is switched off for this call"
	return r
}

// Handle answers one hook payload.
//
// When mbguard cannot decide (malformed payload, unreadable configuration, a Service error, a
// panic), it fails open — the call goes ahead with a note on stderr — except before a tool
// that may write while the read gate is in block mode or the session's recovery gate is armed
// (or cannot be read): then it refuses the call in the host's refusal form. Other events are
// never refused, since a refusal there would block the prompt or stop a compaction.
func (h *Hook) Handle(ctx context.Context, payload []byte) (reply Reply) {
	p, err := h.proto()
	if err != nil {
		return Reply{Exit: 2, Stderr: "mbguard: " + err.Error() + "\n"}
	}
	if h.Disabled() {
		return h.disabled(p)
	}
	var c hookCall
	defer func() {
		if v := recover(); v != nil {
			reply = h.unsure(p, &c, fmt.Sprintf("internal error: %v (please report it)", v))
		}
	}()
	c, err = p.parse(payload, h.Event)
	if err != nil {
		c.NamesBank = namesBank(payload, c.Cwd)
		return h.unsure(p, &c, err.Error())
	}
	if r, done := h.settleCall(p, &c, payload); done {
		return r
	}
	repos, putBack, r, done := h.callRepos(p, &c)
	if done {
		return r
	}
	if a, forged := h.fromAgent(&c, repos); forged {
		r := p.render(&c, a) // before anything is recorded: a forged event changes no state
		r.Forged = true
		return r
	}
	recordRoots(&c, repos)
	way := secretWayOf(h.name())
	refusal := refuseSecretRead(&c, repos, way)
	ans, r, ok := h.askAll(ctx, p, &c, repos)
	if !ok {
		return r
	}
	addSecretRefusal(&c, repos, &ans, refusal)
	addSecretsNotice(&c, repos, &ans, way)
	addPutBack(&c, &ans, putBack)
	redactAnswer(&ans, repos, newSecretScan(&c))
	return p.render(&c, &ans)
}

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
// deadline, with what a check that could not finish gets: a tool that may write, or a read of
// the bank, is refused (the host would otherwise time the hook out, and most let the call run
// then); anything else goes ahead with a note. The unfinished check is left to the process's
// end: every state file is written atomically, and a post check cut short is finished by the
// next check (outcome.Guard.Finish).
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
	// a read of the bank fails closed too: the secret check before it (or the redaction after
	// it, which would be as late) is what keeps a bank secret from the model
	if c.Kind == callPreTool && (!readOnly(c.Tool) || namesBank(payload, c.Cwd)) {
		r := p.render(&c, &hookAnswer{Deny: "[mbguard] this tool call was blocked because " + why +
			", before the host's hook timeout. Retry the call; if it keeps happening, ask the user to run `mbguard doctor`."})
		r.Note = "late: " + why
		return r
	}
	return h.unsure(p, &c, why)
}
