package watcher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// ConfigDigest is a digest of the effective configuration: every key's value. A watcher
// started with settings of its own (--set, MBGUARD_* variables) answers by other rules than
// the repository's, so its digest differs from the hook's.
func ConfigDigest(cfg *config.Config) string {
	if cfg == nil {
		return ""
	}
	h := sha256.New()
	for _, k := range config.Keys() {
		b, _ := json.Marshal(cfg.Value(k))
		h.Write([]byte(k + "=" + string(b) + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Trusted says why a hook must not let the watcher at the other end of c decide for it ("" when
// it may): it must run this very executable (same file, not a copy or a program named
// mbguard: sameExecutable), with the configuration the hook would decide by (cfg), and must
// not have been started from inside an agent's tool call — by its own account at start, and
// by where it runs now (outcome.FromCall on its process).
func (c *Client) Trusted(ctx context.Context, r repo.Repo, cfg *config.Config) string {
	pid, why := c.peer()
	if why != "" {
		return why
	}
	if pid > 0 {
		if o, ok := outcome.FromCall(r, pid, true); ok {
			return "it runs inside an agent's tool call (" + o.String() + ")"
		}
	}
	resp, err := c.Do(ctx, Request{Op: "trust"})
	switch {
	case err != nil:
		return "it did not answer: " + err.Error()
	case resp.Agent != "":
		return "it was started from inside an agent's tool call (" + resp.Agent + ")"
	case resp.Config != ConfigDigest(cfg):
		return "it runs with settings of its own, not the repository's configuration"
	}
	return ""
}
