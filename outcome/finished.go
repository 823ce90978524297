package outcome

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// A check finished in the background (Finish, `mbguard settle`) has nobody to tell what it
// undid: the hook that handed it on answered long ago. Its message waits in finished.json for
// the next check of the same session, whose report carries it (Report.Finished), so the agent
// learns what did not stand. Kept and taken under the guard's lock.

// finishedNote is one background check's message for a session.
type finishedNote struct {
	Time    int64  `json:"time"` // Unix ms
	Session string `json:"session"`
	Text    string `json:"text"`
}

const (
	// maxFinished bounds the kept messages (the newest stay).
	maxFinished = 20
	// finishedFor is how long a message waits for its session's next call.
	finishedFor = 24 * time.Hour
	// maxFinishedFile bounds what is read: the file mbguard writes stays far below it.
	maxFinishedFile = 1 << 20
)

func (g *Guard) finishedPath() string { return filepath.Join(g.r.StateDir(), "finished.json") }

// loadFinished reads the kept messages younger than finishedFor. A missing, oversized or
// unreadable file is none: it only held messages, and the decision log has them all.
func (g *Guard) loadFinished(now time.Time) []finishedNote {
	b, err := os.ReadFile(g.finishedPath())
	if err != nil || len(b) > maxFinishedFile {
		return nil
	}
	var all struct {
		Notes []finishedNote `json:"notes"`
	}
	if json.Unmarshal(b, &all) != nil {
		return nil
	}
	var out []finishedNote
	for _, n := range all.Notes {
		if n.Text != "" && now.Sub(time.UnixMilli(n.Time)) <= finishedFor {
			out = append(out, n)
		}
	}
	return out
}

func (g *Guard) saveFinished(ns []finishedNote) error {
	if len(ns) == 0 {
		err := os.Remove(g.finishedPath())
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	if len(ns) > maxFinished {
		ns = ns[len(ns)-maxFinished:]
	}
	b, err := json.Marshal(struct {
		Notes []finishedNote `json:"notes"`
	}{ns})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(g.r.StateDir(), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(g.finishedPath(), b, 0o600)
}

// keepFinished keeps what a background check told (rep's message and notice) for the next
// check of the session whose call it settled.
func (g *Guard) keepFinished(rep Report, host string) {
	text := rep.Message(host)
	if n := rep.Notice(); n != "" {
		if text != "" {
			text += "\n"
		}
		text += n
	}
	if text == "" {
		return
	}
	id := rep.Call.ID
	if id == "" {
		id = "an earlier call"
	} else {
		id = "call " + id
	}
	now := g.o.Now()
	ns := append(g.loadFinished(now), finishedNote{Time: now.UnixMilli(), Session: rep.Call.Session,
		Text: "[mbguard] the check of " + id + " finished in the background:\n" + text})
	_ = g.saveFinished(ns) // the decision log has it too
}

// takeFinished removes and returns the kept messages for session.
func (g *Guard) takeFinished(session string) []string {
	if _, err := os.Stat(g.finishedPath()); err != nil {
		return nil // the common case: one stat, nothing read
	}
	var out []string
	var kept []finishedNote
	for _, n := range g.loadFinished(g.o.Now()) {
		if n.Session == session {
			out = append(out, n.Text)
		} else {
			kept = append(kept, n)
		}
	}
	if out != nil {
		_ = g.saveFinished(kept)
	}
	return out
}
