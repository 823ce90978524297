package hooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/watcher"
)

// asking is one repository's answer to one hook call in the making: the call, the
// repository's configuration, the way to its Service, and the answer so far.
type asking struct {
	h   *Hook
	ctx context.Context
	c   *hookCall
	r   repo.Repo
	cfg *config.Config
	do  Doer
	a   asked
}

// ask answers c for repository r, in named steps: load the repository's configuration, bring
// what the host reads by itself up to date, reach its Service, close the windows the event
// ends, run the step for the call's kind (askSteps), then keep what this event's reply cannot
// show the model, or give what was kept.
func (h *Hook) ask(ctx context.Context, c *hookCall, r repo.Repo) (asked, bool) {
	k := &asking{h: h, ctx: ctx, c: c, r: r}
	cfg, err := config.Load(config.Options{RepoRoot: r.Root, Getenv: h.getenv, Sets: h.Sets})
	if err != nil {
		k.a.err = fmt.Sprintf("reading the configuration: %v", err)
		return k.a, false
	}
	k.cfg, k.a.cfg = cfg, cfg
	k.refresh()
	connect := h.Connect
	if connect == nil {
		connect = defaultConnect(h.now, c.detector(r))
	}
	do, done, err := connect(r, cfg)
	if err != nil {
		k.a.err = fmt.Sprintf("reaching mbguard: %v", err)
		return k.a, false
	}
	defer done()
	k.do = do
	if c.closesWindows() {
		// before every window of the session closes: calls the host's record does not show
		// as run claim nothing (a call the user refused at the prompt sends no event)
		k.a.Context = h.closeUnproven(c, r, k.send)
		k.a.err = "" // an older mbguard watch without Op "close": the event closes them as before
	}
	if step := askSteps[c.Kind]; step != nil && !step(k) {
		return k.a, false
	}
	k.checkHTTPListener()
	if c.Kind != callEnd { // the session is over: nothing is kept for it
		k.keepOrGive()
	}
	return k.a, true
}

// askSteps are what each kind of call asks of the Service; a step returns false when the call
// could not be decided (a.err says why). A kind without a step (callOther) asks nothing.
var askSteps = map[callKind]func(*asking) bool{
	callPrompt:   (*asking).prompt,
	callPreTool:  (*asking).preTool,
	callPostTool: (*asking).postTool,
	callCompact:  (*asking).compaction,
	callStart:    (*asking).start,
	callOpen:     (*asking).open,
	callClose:    (*asking).close,
	callEnd:      (*asking).end,
}

// closesWindows reports whether the event closes every open window of the session: a new
// message, the session's end, or a close that names no call and shows none ran.
func (c *hookCall) closesWindows() bool {
	return c.Kind == callPrompt || c.Kind == callEnd || c.Kind == callClose && c.Call == "" && !c.Ran
}

// refresh brings what the host reads by itself up to date (HostSpec.Refresh); a failure is a
// note for people, not a reason to refuse.
func (k *asking) refresh() {
	spec, ok := LookupHost(k.h.name())
	if !ok || spec.Refresh == nil {
		return
	}
	if err := spec.Refresh(k.r, k.cfg); err != nil {
		k.a.Stderr += "mbguard: refreshing what " + spec.Title + " reads by itself: " + err.Error() + "; run `mbguard doctor`.\n"
	}
}

// send asks the Service. An error the Service reports next to a usable answer is a note for
// people; any other error leaves the call undecided. An event without a decision is allowed.
func (k *asking) send(req watcher.Request) (watcher.Response, bool) {
	k.c.forgetBanks() // the Service may change the bank: its redaction looks again
	resp, err := k.do(k.ctx, req)
	if err == nil && resp.Error != "" {
		if req.Op == "event" && resp.Decision != nil || req.Op == "context" && resp.Context != "" {
			k.a.Stderr += "mbguard: " + resp.Error + "\n"
			return resp, true
		}
		err = errors.New(resp.Error)
	}
	if err != nil {
		k.a.err = err.Error()
		return resp, false
	}
	if req.Op == "event" && resp.Decision == nil {
		resp.Decision = &gating.Decision{Verdict: gating.Allow}
	}
	return resp, true
}

// event is the engine's event of this kind for the call's session.
func (k *asking) event(kind gating.EventKind) *gating.Event {
	return &gating.Event{Kind: kind, Host: k.h.name(), Session: k.c.Session, Cwd: k.c.Cwd, Now: k.h.now().UnixMilli()}
}

// toolEvent is event with the call's tool, arguments, call id and message.
func (k *asking) toolEvent(kind gating.EventKind) *gating.Event {
	ev := k.event(kind)
	ev.Tool, ev.Args, ev.Call, ev.Message = k.c.Tool, k.c.Args, k.c.Call, k.c.MessageID
	return ev
}

// prompt: a new user message, named by the host's id or one mbguard derives.
func (k *asking) prompt() bool {
	ev := k.event(gating.EvMessage)
	ev.Message = k.c.MessageID
	if ev.Message == "" {
		ev.Message = messageID(k.h.name(), k.c.Session, k.c.Prompt, k.h.now())
	}
	resp, ok := k.send(watcher.Request{Op: "event", Event: ev})
	if !ok {
		return false
	}
	k.a.Decision = resp.Decision
	k.a.Context = joinText(k.a.Context, resp.Notice)
	return true
}

// preTool: the gate. A host without a post-tool event has the call counted as done once it is
// let through (PreIsPost).
func (k *asking) preTool() bool {
	resp, ok := k.send(watcher.Request{Op: "event", Event: k.toolEvent(gating.EvToolBefore)})
	if !ok {
		return false
	}
	d := resp.Decision
	k.a.Decision = d
	if k.c.PreIsPost && d.Verdict != gating.Block {
		if _, ok := k.send(watcher.Request{Op: "event", Event: k.toolEvent(gating.EvToolAfter)}); !ok {
			return false
		}
	}
	switch d.Verdict {
	case gating.Block:
		k.a.Deny = joinText(d.Message, resp.Notice)
	case gating.Warn:
		k.a.Context = joinText(d.Message, d.Advice, resp.Notice)
	default:
		k.a.Context = joinText(d.Advice, resp.Notice)
	}
	return true
}

// postTool: the check after the call, on the file a read really read.
func (k *asking) postTool() bool {
	ev := k.toolEvent(gating.EvToolAfter)
	if k.c.ReadPath != "" && ev.Args != nil {
		ev.Args["file_path"] = k.c.ReadPath
	}
	resp, ok := k.send(watcher.Request{Op: "event", Event: ev})
	if !ok {
		return false
	}
	d := resp.Decision
	k.a.Decision = d
	if d.Verdict == gating.Block {
		// what the tool did was judged after it ran (and undone): the model must hear it
		k.a.Undone = joinText(d.Message, d.Advice, resp.Notice)
	} else {
		k.a.Context = joinText(d.Message, d.Advice, resp.Notice)
	}
	return true
}

// compaction: the context is (being) compacted: recovery is armed, the anchor block given.
func (k *asking) compaction() bool {
	resp, ok := k.send(watcher.Request{Op: "event", Event: k.event(gating.EvCompaction)})
	if !ok {
		return false
	}
	k.a.Decision = resp.Decision
	k.a.Context = joinText(k.a.Context, joinText(resp.Decision.Advice, resp.Notice))
	return true
}

// start: a session starts or resumes: old notes are swept, the context injected; a resume the
// host may have compacted without telling counts as a compaction.
func (k *asking) start() bool {
	sweepPending(k.r, k.cfg.TTL(), k.h.now())
	resp, ok := k.send(watcher.Request{Op: "context", Session: k.c.Session})
	if !ok {
		return false
	}
	k.a.Context = joinText(resp.Context, resp.Notice, staleContext(k.ctx, k.r, k.cfg))
	return !k.c.Resumed || k.compaction()
}

// open: a subagent starts; what the check before it found is told with the next event.
func (k *asking) open() bool {
	k.c.Defer = true
	if resp, ok := k.send(watcher.Request{Op: "open", Session: k.c.Session, Call: k.c.Call, Host: k.h.name()}); ok {
		k.a.Context = resp.Notice
	} else {
		k.a.err = "" // an older mbguard watch without the op: the subagent's writes are judged between calls
	}
	return true
}

// close: a call's window is over without its post; what it did is told to the model with the
// next event that reaches it.
func (k *asking) close() bool {
	k.c.Defer = true
	if resp, ok := k.send(watcher.Request{Op: "close", Session: k.c.Session, Call: k.c.Call, Denied: k.c.Denied}); ok {
		k.a.Context = joinText(k.a.Context, resp.Notice)
	} else {
		k.a.err = "" // an older mbguard watch without the op: the next check settles the call
	}
	return true
}

// end: the session ends; its kept notes go.
func (k *asking) end() bool {
	if resp, ok := k.send(watcher.Request{Op: "event", Event: k.event(gating.EvSessionEnd)}); ok {
		k.a.Decision = resp.Decision
	}
	dropPending(k.r, k.c.Session)
	return true
}

// keepOrGive: what an event the host shows no model produced (an undo included) is kept for
// the next event that can show it; an event that can is given what was kept.
func (k *asking) keepOrGive() {
	a, c := &k.a, k.c
	switch {
	case c.Defer && (a.Context != "" || a.Undone != ""):
		if err := savePending(k.r, c.Session, joinText(a.Undone, a.Context)); err != nil {
			a.Stderr += "mbguard: keeping a note for the agent: " + err.Error() + "\n"
		}
		a.Context, a.Undone = "", ""
	case c.Defer:
		// nothing to keep, and nothing to take: this reply reaches no model
	case c.Kind == callPrompt || c.Kind == callPostTool || c.Kind == callStart:
		if kept := takePending(k.r, c.Session); kept != "" {
			a.Context = joinText(kept, a.Context)
		}
	}
}
