package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/repo"
)

// A host that cannot show the model what a compaction event returns (Copilot CLI's preCompact
// output is not injected, and sessionStart does not fire again) gets the anchor block with the
// next prompt instead. It waits in a small file per session under the git directory; the next
// prompt takes it, the end of the session drops it.

func pendingPath(r repo.Repo, session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(r.StateDir(), "pending", hex.EncodeToString(sum[:16])+".txt")
}

// savePending adds text to what waits for the session's next event that can show it.
func savePending(r repo.Repo, session, text string) error {
	p := pendingPath(r, session)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	if old, err := os.ReadFile(p); err == nil && len(old) > 0 {
		if strings.Contains(string(old), text) {
			return nil // the same block kept twice (one compaction reported twice)
		}
		text = string(old) + "\n\n" + text
	}
	return fsutil.WriteFileAtomic(p, []byte(text), 0o600)
}

// takePending returns the kept text and removes it; "" when there is none.
func takePending(r repo.Repo, session string) string {
	p := pendingPath(r, session)
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "" // another hook process took it
	}
	return string(b)
}

func dropPending(r repo.Repo, session string) {
	_ = os.Remove(pendingPath(r, session))
}

// sweepPending removes kept texts older than ttl: sessions that ended without telling (a
// killed host) leave theirs behind. Called at session start, which is rare.
func sweepPending(r repo.Repo, ttl time.Duration, now time.Time) {
	dir := filepath.Join(r.StateDir(), "pending")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > ttl {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// messageID derives a user-message id for a prompt. Hosts give prompts no id, so mbguard makes
// a fresh one per prompt from the session, the prompt and the time in nanoseconds: the same
// text sent twice is still two messages, each starting a fresh per-message state. Tool events
// carry no message id and belong to the session's current message.
func messageID(host, session, prompt string, now time.Time) string {
	h := sha256.New()
	io.WriteString(h, session)
	h.Write([]byte{0})
	io.WriteString(h, prompt)
	h.Write([]byte{0})
	io.WriteString(h, strconv.FormatInt(now.UnixNano(), 10))
	return host + "-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// MessageID is the message id a Claude Code UserPromptSubmit gets (see messageID).
func MessageID(session, prompt string, now time.Time) string {
	return messageID("claude", session, prompt, now)
}
