package stale

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/mbguard/mbguard/internal/gitexec"
)

// changes are the paths changed between a revision and the index.
type changes struct {
	paths    map[string]bool // changed files, both sides of a rename
	dirs     map[string]bool // their directories
	definers map[Kind]bool   // kinds whose defining files changed
}

func changedSince(ctx context.Context, root, rev string) (*changes, error) {
	if _, err := gitexec.Run(ctx, root, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("--since %s: not a commit in this repository (give a branch, tag or commit)", rev)
	}
	out, err := gitexec.Run(ctx, root, "diff", "--cached", "--name-only", "-z", "--no-renames", rev, "--")
	if err != nil {
		return nil, fmt.Errorf("listing the changes since %s: %w", rev, err)
	}
	c := &changes{paths: map[string]bool{}, dirs: map[string]bool{}, definers: map[Kind]bool{}}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		c.paths[p] = true
		for d := path.Dir(p); d != "." && !c.dirs[d]; d = path.Dir(d) {
			c.dirs[d] = true
		}
		if k := definerKind(path.Base(p)); k != "" {
			c.definers[k] = true
		}
	}
	return c, nil
}

// touches reports whether any reading of a path changed since the revision.
func (c *changes) touches(cand []string) bool {
	for _, p := range cand {
		if c.paths[p] || c.dirs[p] {
			return true
		}
	}
	return false
}
