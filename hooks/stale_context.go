package hooks

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/stale"
)

// staleContextBudget bounds the stale-reference check at session start: a session must not
// wait on a long history; the check is skipped, not the session.
const staleContextBudget = 2 * time.Second

// staleContextLines caps the findings listed at session start; the rest are counted.
const staleContextLines = 5

// staleContext lists, for the context injected at session start, the stale references of
// MEMORY.md and the anchor files (a few lines), so the agent treats them with care and can
// fix them with its write tools. It is empty when there are none, when check.stale is off,
// or when the check could not finish in time.
func staleContext(ctx context.Context, r repo.Repo, cfg *config.Config) string {
	if cfg.Check.Stale == "off" && len(cfg.Check.StaleRules) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, staleContextBudget)
	defer cancel()
	var notes []stale.Note
	seen := map[string]bool{}
	addNote := func(rel string) {
		if seen[rel] || len(notes) >= 20 || !strings.EqualFold(path.Ext(rel), ".md") {
			return
		}
		seen[rel] = true
		b, err := os.ReadFile(filepath.Join(r.Root, filepath.FromSlash(rel)))
		if err == nil {
			notes = append(notes, stale.Note{Path: rel, Content: b})
		}
	}
	addNote(bank.Entry)
	for _, a := range append(append([]string(nil), cfg.Recovery.Fallbacks...), cfg.Recovery.Anchors...) {
		if !strings.HasSuffix(a, "/") {
			addNote(a)
			continue
		}
		_ = filepath.WalkDir(filepath.Join(r.Root, filepath.FromSlash(a)), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if rel, err := filepath.Rel(r.Root, p); err == nil {
					addNote(filepath.ToSlash(rel))
				}
			}
			return nil
		})
	}
	if len(notes) == 0 {
		return ""
	}
	res, err := stale.Check(ctx, r.Root, notes, stale.Options{})
	if err != nil {
		return ""
	}
	var lines []string
	for _, f := range res.Findings {
		if cfg.StaleSeverityOf(f.Rule) == "off" {
			continue
		}
		lines = append(lines, fmt.Sprintf("- %s:%d %s", f.Path, f.Line, f.Message))
	}
	if len(lines) == 0 {
		return ""
	}
	n := len(lines)
	if n > staleContextLines {
		lines = append(lines[:staleContextLines], fmt.Sprintf("- and %d more", n-staleContextLines))
	}
	return fmt.Sprintf("mbguard: %d reference(s) in the memory bank name what the repository no longer has; do not rely on them, and correct the notes when you touch them (mbguard check --stale lists them all, --fix rewrites renamed paths):\n", n) +
		strings.Join(lines, "\n")
}
