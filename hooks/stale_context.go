package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/fsutil"

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
	notes := staleNotes(r, cfg)
	if len(notes) == 0 {
		return ""
	}
	key := staleKey(r, cfg, notes)
	if text, ok := cachedStale(r, key); ok {
		return text
	}
	res, err := stale.Check(ctx, r.Root, notes, stale.Options{})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			saveStale(r, key, "") // a history too long for the budget: skipped until it changes
		}
		return ""
	}
	text := staleText(cfg, res)
	saveStale(r, key, text)
	return text
}

// staleNotes are the notes the session-start check reads: MEMORY.md, then the Markdown files
// of the recovery fallbacks and anchors (a folder's files at any depth), at most 20.
func staleNotes(r repo.Repo, cfg *config.Config) []stale.Note {
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
	return notes
}

// staleText renders the findings of the session-start check.
func staleText(cfg *config.Config, res stale.Result) string {
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

// The session-start check's answer is kept in .git/mbguard/stale-context.json under a key of
// everything it reads: the notes, the stale settings, HEAD and its ref, packed refs (or a
// reftable's table list), the index and the ignore files (the check reads the index and history, not the working tree). A session
// that starts again on the same state runs no git at all, and a history too long for the
// budget is not waited on again until one of them changes.

const staleCacheVersion = "1"

type staleCache struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

func staleCachePath(r repo.Repo) string { return filepath.Join(r.StateDir(), "stale-context.json") }

// staleKey hashes what the session-start check's answer depends on.
func staleKey(r repo.Repo, cfg *config.Config, notes []stale.Note) string {
	h := sha256.New()
	var n []byte
	field := func(b []byte) { // len(b), ':', b (strconv, not fmt: this runs at every session start)
		n = append(strconv.AppendInt(n[:0], int64(len(b)), 10), ':')
		h.Write(n)
		h.Write(b)
	}
	field([]byte(staleCacheVersion))
	field([]byte(fmt.Sprintf("%q %v", cfg.Check.Stale, cfg.Check.StaleRules)))
	for _, n := range notes {
		field([]byte(n.Path))
		field(n.Content)
	}
	head, _ := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	field(head)
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
		b, _ := os.ReadFile(filepath.Join(r.CommonDir, filepath.FromSlash(ref)))
		field(b)
	}
	for _, p := range []string{filepath.Join(r.CommonDir, "packed-refs"), filepath.Join(r.CommonDir, "reftable", "tables.list"), filepath.Join(r.GitDir, "index"),
		filepath.Join(r.Root, ".gitignore"), filepath.Join(r.CommonDir, "info", "exclude")} {
		if fi, err := os.Stat(p); err == nil {
			field([]byte(p + " " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)))
		} else {
			field([]byte(p + " none"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cachedStale is the kept answer for key; false when there is none (or it is unreadable).
func cachedStale(r repo.Repo, key string) (string, bool) {
	b, err := os.ReadFile(staleCachePath(r))
	if err != nil || len(b) > 1<<20 {
		return "", false
	}
	var c staleCache
	if json.Unmarshal(b, &c) != nil || c.Key != key {
		return "", false
	}
	return c.Text, true
}

// saveStale keeps text as the answer for key; failing to is not an error (the check runs again).
func saveStale(r repo.Repo, key, text string) {
	b, err := json.Marshal(staleCache{Key: key, Text: text})
	if err == nil && os.MkdirAll(r.StateDir(), 0o755) == nil {
		_ = fsutil.WriteFileAtomic(staleCachePath(r), b, 0o600)
	}
}
