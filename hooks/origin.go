package hooks

import (
	"os"
	"time"

	"github.com/mbguard/mbguard/internal/declog"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// checkOrigin is off only in the benchmark's baseline.
var checkOrigin = true

// fromAgent refuses a hook event sent from inside an agent's tool call (outcome.FromCall):
// the host sends hook events, a command the agent runs does not. Nothing is asked, recorded
// or saved; the refusal goes to the decision log for the person (`mbguard status`, doctor).
func (h *Hook) fromAgent(c *hookCall, repos []repo.Repo) (*hookAnswer, bool) {
	if !checkOrigin {
		return nil, false
	}
	// A hook process sits under the host, through hook runners at most. An http request comes
	// from the host process itself (AnswerHTTP): one from anywhere under the host of a call in
	// flight — a tool's shell that exec'd curl sits right below it — is the agent's.
	pid, underHost := h.Requester, h.Requester > 0
	if pid <= 0 {
		pid = os.Getpid()
	}
	for _, r := range repos {
		o, ok := outcome.FromCall(r, pid, underHost)
		if !ok {
			continue
		}
		msg := "[mbguard] refused: this " + c.Event + " event was sent from inside an agent's tool call (" + o.String() +
			"), not by " + h.name() + " itself; nothing was recorded. Hook events come from the host only."
		_ = declog.Append(declog.Path(r.StateDir()), declog.Entry{Time: time.Now().UTC(), Session: c.Session, Host: h.name(),
			Event: c.Event, Tool: c.Tool, Gate: "origin", Verdict: "refused", Message: msg})
		a := &hookAnswer{}
		if c.Kind == callPreTool {
			a.Deny = msg // the refusal carries the message (Claude Code's stderr, the others' reason)
		} else {
			a.Stderr = msg + "\n"
		}
		return a, true
	}
	return nil, false
}
