package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/repo"
)

// clineHookHeader is the second line of every hook file mbguard writes for Cline: what tells
// ours from a user's.
const clineHookHeader = "# mbguard: Cline hook written by `mbguard install --agent cline`; remove it with --uninstall"

// ClineRulesFile is the rule file, relative to the project root, through which MEMORY.md
// reaches Cline's model: Cline puts every .md file of .clinerules/ into its system prompt (its
// TaskStart and UserPromptSubmit hooks cannot add context). It is mbguard's redacted view of
// MEMORY.md (the <memory-bank> block other hosts get at session start), rewritten at a hook
// call whenever MEMORY.md changed, and kept out of git by .git/info/exclude.
const ClineRulesFile = ".clinerules/mbguard-memory-bank.md"

// clineRulesHead opens the rule file.
const clineRulesHead = "<!-- written by mbguard from memory-bank/MEMORY.md (secrets redacted); do not edit: it is rewritten when MEMORY.md changes -->\n\n"

// ClineHooksDir is the folder install writes Cline's hook files into: the project's
// .clinerules/hooks/, or ~/.cline/hooks/ with Global.
func ClineHooksDir(o InstallOptions) string {
	if o.Global {
		return filepath.Join(o.Home, ".cline", "hooks")
	}
	return filepath.Join(o.Root, ".clinerules", "hooks")
}

// ClineHookFiles are the hook files of o's folder, one per event in ClineEvents.
func ClineHookFiles(o InstallOptions) []string {
	dir := ClineHooksDir(o)
	out := make([]string, len(ClineEvents))
	for i, ev := range ClineEvents {
		out[i] = filepath.Join(dir, ev)
	}
	return out
}

// renderClineHook is the hook file for event: a POSIX shell script that hands the payload to
// mbguard. Cline picks the interpreter by the shebang, runs the file in the workspace root and
// reads the reply from stdout.
func renderClineHook(o InstallOptions, event string) string {
	return "#!/bin/sh\n" + clineHookHeader + "\nexec " + o.hookCommand("cline", event) + "\n"
}

// isClineHook reports a hook file mbguard wrote.
func isClineHook(b []byte) bool { return bytes.Contains(b, []byte(clineHookHeader)) }

// InstallCline writes one executable hook file per event in ClineEvents (regular files: Cline
// skips a symlink), and in a project the rule file that carries MEMORY.md (ClineRulesFile).
// A file of the same name mbguard did not write is left alone and reported; Uninstall removes
// only mbguard's files.
func InstallCline(o InstallOptions) ([]Change, error) {
	if o.Global && o.Home == "" {
		return nil, errors.New("--global needs HOME to find ~/.cline")
	}
	if !o.Global && o.Root == "" {
		return nil, errors.New("run this inside a git repository, or pass --global")
	}
	var out []Change
	for i, path := range ClineHookFiles(o) {
		ch, err := installClineHook(o, path, renderClineHook(o, ClineEvents[i]))
		if err != nil {
			return out, err
		}
		out = append(out, ch)
	}
	if o.Global || o.GitDir == "" {
		return out, nil
	}
	ch, err := installClineRules(o)
	if err != nil {
		return out, err
	}
	return append(out, ch), nil
}

func installClineHook(o InstallOptions, path, want string) (Change, error) {
	show := displayPath(o.Root, path)
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Change{}, fmt.Errorf("reading %s: %w", show, err)
	}
	if exists && !isClineHook(old) {
		return Change{Path: show, Action: "skipped", Note: "not written by mbguard; left in place"}, nil
	}
	if o.Uninstall {
		return removeClineHook(path, show, exists)
	}
	fi, statErr := os.Lstat(path)
	if string(old) == want && statErr == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return Change{Path: show, Action: "unchanged"}, nil
	}
	if err := putFile(path, show, []byte(want), 0o755, false); err != nil {
		return Change{}, err
	}
	if exists {
		return Change{Path: show, Action: "updated"}, nil
	}
	return Change{Path: show, Action: "created"}, nil
}

func removeClineHook(path, show string, exists bool) (Change, error) {
	if !exists {
		return Change{Path: show, Action: "unchanged", Note: "not installed"}, nil
	}
	if err := os.Remove(path); err != nil {
		return Change{}, fmt.Errorf("removing %s: %w", show, err)
	}
	return Change{Path: show, Action: "removed"}, nil
}

// installClineRules writes (or with Uninstall removes) the MEMORY.md rule file.
func installClineRules(o InstallOptions) (Change, error) {
	r := repo.Repo{Root: o.Root, GitDir: o.GitDir, CommonDir: o.CommonDir}
	if r.CommonDir == "" {
		r.CommonDir = r.GitDir
	}
	path := filepath.Join(o.Root, filepath.FromSlash(ClineRulesFile))
	old, err := os.ReadFile(path)
	exists := err == nil
	if exists && !bytes.HasPrefix(old, []byte(clineRulesHead)) && len(old) > 0 {
		return Change{Path: ClineRulesFile, Action: "skipped", Note: "not written by mbguard; left in place"}, nil
	}
	if o.Uninstall {
		_ = os.Remove(clineStamp(r))
		if !exists {
			return Change{Path: ClineRulesFile, Action: "unchanged", Note: "not installed"}, nil
		}
		if err := os.Remove(path); err != nil {
			return Change{}, fmt.Errorf("removing %s: %w", ClineRulesFile, err)
		}
		return Change{Path: ClineRulesFile, Action: "removed"}, nil
	}
	cfg, _ := config.Load(config.Options{RepoRoot: o.Root})
	_ = os.Remove(clineStamp(r)) // install always writes it afresh
	if err := refreshClineRules(r, cfg); err != nil {
		return Change{}, fmt.Errorf("writing %s: %w", ClineRulesFile, err)
	}
	now, _ := os.ReadFile(path)
	switch {
	case !exists:
		return Change{Path: ClineRulesFile, Action: "created", Note: "MEMORY.md for Cline's model (kept out of git)"}, nil
	case string(now) == string(old):
		return Change{Path: ClineRulesFile, Action: "unchanged"}, nil
	}
	return Change{Path: ClineRulesFile, Action: "updated"}, nil
}

func clineStamp(r repo.Repo) string { return filepath.Join(r.StateDir(), "cline-rules.stamp") }

// refreshClineRules rewrites the rule file when MEMORY.md changed (at every hook call, so a
// --global install brings it to each project too), and keeps it out of git.
func refreshClineRules(r repo.Repo, cfg *config.Config) error {
	view := filepath.Join(r.Root, filepath.FromSlash(ClineRulesFile))
	if b, err := os.ReadFile(view); err == nil && len(b) > 0 && !bytes.HasPrefix(b, []byte(clineRulesHead)) {
		return nil // the user's own file of that name
	}
	if err := refreshMemoryView(r, cfg, view, clineStamp(r), clineRulesHead); err != nil {
		return err
	}
	return excludeFromGit(r, "/"+ClineRulesFile)
}

// excludeFromGit adds pattern to the repository's .git/info/exclude unless it is there.
func excludeFromGit(r repo.Repo, pattern string) error {
	dir := r.CommonDir
	if dir == "" {
		dir = r.GitDir
	}
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, "info", "exclude")
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, l := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(l) == pattern {
			return nil
		}
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		old = append(old, '\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(old, []byte(pattern+"\n")...), 0o644)
}
