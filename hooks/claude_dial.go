package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/declog"
	"github.com/mbguard/mbguard/internal/fsutil"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/watcher"
)

// dialWatch connects to a running `mbguard watch` for r (its Service holds the sessions in
// memory and tells them about the file watcher's findings). With none running, Dial fails in
// microseconds and the hook serves the call in process from the same state files. A watcher
// the hook cannot trust (watcher.Client.Trusted: another program, a copy, settings of its own,
// started by the agent) is not asked: the call is decided in process, and stray says why.
func dialWatch(r repo.Repo, cfg *config.Config) (do Doer, hangup func(), stray string, ok bool) {
	c, err := watcher.Dial(r)
	if err != nil {
		return nil, nil, "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if why := c.Trusted(ctx, r, cfg); why != "" {
		c.Close()
		return nil, nil, why, false
	}
	_ = os.Remove(filepath.Join(r.StateDir(), StrayFile)) // trusted again: nothing to report
	do = func(ctx context.Context, req watcher.Request) (watcher.Response, error) { return c.Do(ctx, req) }
	return do, func() { c.Close() }, "", true
}

// StrayFile, in the state folder, names the watcher the hooks last refused to trust and why:
// `mbguard watch --status` shows it to the person.
const StrayFile = "watch.stray"

// reportStray tells the person about a watcher the hooks do not trust: the reason goes to
// StrayFile and, the first time it changes, to the decision log.
func reportStray(r repo.Repo, why string, now time.Time) {
	p := filepath.Join(r.StateDir(), StrayFile)
	line := "mbguard does not ask the watcher for this repository: " + why + "; hooks decide in process. Next: the person stops it (mbguard watch --stop) and starts their own in a terminal (mbguard watch --detach).\n"
	if b, err := os.ReadFile(p); err == nil && string(b) == line {
		return
	}
	if fsutil.WriteFileAtomic(p, []byte(line), 0o644) == nil {
		_ = declog.Append(declog.Path(r.StateDir()), declog.Entry{Time: now.UTC(), Gate: "watcher", Verdict: "refused", Message: strings.TrimSpace(line)})
	}
}
