package outcome

import (
	"os"

	"github.com/mbguard/mbguard/internal/repo"
)

// OpenWindows lists the ids of session's tool calls whose window is open and whose post event
// never came: the calls an event that closes every window (a new user message, the turn
// stopped, the session ended) would judge. A host's own record of the session (its
// transcript) can then say which of them never ran, before they are closed. Subagent windows,
// jobs a call left running and calls whose post check began are not listed: they close by
// their own evidence. The read costs a stat when nothing is in flight.
func OpenWindows(r repo.Repo, session string) []string {
	g := &Guard{r: r}
	if fi, err := os.Stat(g.inflightPath()); err != nil || fi.Size() == 0 {
		return nil
	}
	var ids []string
	for _, x := range g.loadInflight().Calls {
		if x.Session == session && !x.Agent && len(x.Procs) == 0 && x.Post == 0 {
			ids = append(ids, x.ID)
		}
	}
	return ids
}
