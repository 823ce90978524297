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
	pid := os.Getpid()
	for _, r := range repos {
		o, ok := outcome.FromCall(r, pid, false)
		if !ok {
			continue
		}
		msg := "[mbguard] refused: this " + c.Event + " event was sent from inside an agent's tool call (" + o.String() +
			"), not by " + h.name() + " itself; nothing was recorded. Hook events come from the host only."
		_ = declog.Append(declog.Path(r.StateDir()), declog.Entry{Time: time.Now().UTC(), Session: c.Session, Host: h.name(),
			Event: c.Event, Tool: c.Tool, Gate: "origin", Verdict: "refused", Message: msg})
		a := &hookAnswer{Stderr: msg + "\n"}
		if c.Kind == callPreTool {
			a.Deny = msg
		}
		return a, true
	}
	return nil, false
}
