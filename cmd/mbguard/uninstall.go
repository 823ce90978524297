package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/skills"
	"github.com/mbguard/mbguard/watcher"
)

// newUninstallCmd removes everything install and the guard left behind. It is the person's
// command: an agent's shell call to it is refused before it runs (gating, configGuard).
func newUninstallCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "uninstall [--global] [--keep-state]",
		Short: "remove mbguard from this repository: every host's hooks, the git hook, the skill, its state",
		Long: `uninstall removes what mbguard added to this repository: the hooks of every agent host, the
git pre-commit hook (plain, husky or lefthook), the memory-bank skill, the folders install
created when they are left empty, the watcher, .git/mbguard/, refs/mbguard/known-good and this
repository's files in the user's state directory. --keep-state keeps the quarantine and the
known-good state. --global removes the user-level installs instead.

The state of other repositories is left alone, even of one that looks gone (it may be on a
disk that is not mounted): mbguard doctor --prune removes that, when you ask.`,
		Args: noArgs,
	}
	global := c.Flags().Bool("global", false, "remove the user-level installs of every host instead of this repository's")
	keep := c.Flags().Bool("keep-state", false, "keep the quarantine and the known-good state (.git/mbguard/, the private ref, the user state)")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if code, stop := e.refuseUnderAgent("uninstall"); stop {
			return code
		}
		return e.uninstall(*global, *keep)
	})
	return c
}

// uninstall is the uninstall command after its flags: global removes the user-level installs,
// keep keeps this repository's state.
func (e *env) uninstall(global, keep bool) int {
	var r repo.Repo
	if !global {
		var err error
		if r, err = e.repo(); err != nil {
			return e.fail(err)
		}
	}
	o := hooks.InstallOptions{Root: r.Root, GitDir: r.GitDir, CommonDir: r.CommonDir, Home: e.getenv("HOME"), ConfigHome: configHome(e.getenv),
		Global: global, Uninstall: true, Binary: selfCommand()}
	o.CodexHome, o.CopilotHome = e.getenv("CODEX_HOME"), e.getenv("COPILOT_HOME")
	if !global {
		// first, so it does not serve one more hook call or write state again
		if err := e.stopWatcher(r); err != nil {
			return e.fail(err)
		}
	}
	if err := e.removeInstalls(o); err != nil {
		return e.fail(err)
	}
	if !global && !keep {
		if err := e.forgetRepoState(r); err != nil {
			return e.fail(err)
		}
	}
	if gone, err := outcome.OrphanState(); err == nil && len(gone) > 0 {
		fmt.Fprintf(e.stdout, "%-10s the state of %d %s that no longer %s (mbguard doctor --prune removes it)\n", "kept", len(gone),
			plural(len(gone), "repository", "repositories"), plural(len(gone), "exists", "exist"))
	}
	return exitOK
}

// stopWatcher stops r's watcher and says so when one was running.
func (e *env) stopWatcher(r repo.Repo) error {
	pid, err := watcher.Stop(r, 5*time.Second)
	if err != nil {
		return fmt.Errorf("stopping the watcher: %w", err)
	}
	if pid != 0 {
		fmt.Fprintf(e.stdout, "%-10s the watcher (pid %d)\n", "stopped", pid)
	}
	return nil
}

// removeInstalls removes every host's hooks, the git hook and the skill, and prints what changed.
func (e *env) removeInstalls(o hooks.InstallOptions) error {
	lines, err := uninstallAll(o)
	for _, l := range lines {
		fmt.Fprintln(e.stdout, l)
	}
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		fmt.Fprintf(e.stdout, "%-10s no host's hooks, git hook or skill of mbguard's were found\n", "unchanged")
	}
	return nil
}

// forgetRepoState removes r's state: .git/mbguard/, the private ref and the user state.
func (e *env) forgetRepoState(r repo.Repo) error {
	_, had := os.Stat(r.StateDir())
	// also when .git/mbguard/ is gone: the ref and the user state may not be
	if err := outcome.ForgetState(r); err != nil {
		return err
	}
	// the ref's folder, left empty (other refs/mbguard/* are a linked worktree's)
	_ = os.Remove(filepath.Join(r.CommonDir, "refs", "mbguard"))
	if had == nil {
		fmt.Fprintf(e.stdout, "%-10s %s, %s and this repository's files in the user's state directory\n", "removed",
			displayRel(r.Root, r.StateDir())+"/", hookRef(r))
	}
	return nil
}

// uninstallAll runs every host's uninstall (the same code as install --uninstall), the skill's,
// the git hook's, and removes the folders install created that are left empty. It returns only
// the lines that say something changed or was kept.
func uninstallAll(o hooks.InstallOptions) ([]string, error) {
	var out []string
	var dirs []string // folders that held what was removed
	add := func(cs []hooks.Change) {
		for _, ch := range cs {
			if ch.Action == "unchanged" || ch.Action == "skipped" && strings.HasPrefix(ch.Note, "no ") {
				continue // not installed here
			}
			out = append(out, changeLine(ch))
			if ch.Action == "removed" {
				p := ch.Path
				if !filepath.IsAbs(p) {
					p = filepath.Join(o.Root, p)
				}
				dirs = append(dirs, filepath.Dir(p))
			}
		}
	}
	for _, spec := range hooks.Registry() {
		var cs []hooks.Change
		var err error
		if spec.Kernel == host.Sandbox { // the sandbox's deny rule goes with the hooks
			cs, err = uninstallClaude(o)
		} else {
			cs, err = spec.Install(o)
		}
		if err != nil {
			return out, fmt.Errorf("removing the %s hooks: %w", spec.Title, err)
		}
		add(cs)
		if spec.SkillDir == nil {
			continue
		}
		dir := spec.SkillDir(o)
		lines, err := skills.Install(dir, true)
		if err != nil {
			return out, fmt.Errorf("removing the skill from %s: %w", dir, err)
		}
		for _, l := range lines {
			if o.Root != "" {
				l = strings.ReplaceAll(l, o.Root+string(filepath.Separator), "")
			}
			out = append(out, l)
		}
		if len(lines) > 0 {
			dirs = append(dirs, dir)
		}
	}
	if !o.Global {
		cs, err := hooks.InstallGitHook(o)
		if err != nil {
			return out, fmt.Errorf("removing the git hook: %w", err)
		}
		add(cs)
		if fi, err := os.Stat(filepath.Join(o.Root, ".husky")); err == nil && fi.IsDir() {
			h := o
			h.Husky = true
			cs, err := hooks.InstallGitHook(h)
			if err != nil {
				return out, fmt.Errorf("removing the husky line: %w", err)
			}
			add(cs)
		}
		if b, err := os.ReadFile(filepath.Join(o.Root, ".pre-commit-config.yaml")); err == nil && strings.Contains(string(b), "mbguard") {
			// the person wrote these lines; mbguard never adds them
			out = append(out, changeLine(hooks.Change{Action: "kept", Path: ".pre-commit-config.yaml", Note: "it names mbguard's hooks: remove them there yourself"}))
		}
	}
	stops := []string{o.Root, o.Home, o.ConfigHome, o.CodexHome, o.CopilotHome}
	for _, d := range dirs {
		removeEmptyUp(d, stops)
	}
	return out, nil
}

// removeEmptyUp removes dir and its parents while they are empty, stopping at any of stops (a
// project root, the home folder) and never leaving them.
func removeEmptyUp(dir string, stops []string) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		inside := false
		for _, s := range stops {
			if s == "" {
				continue
			}
			s = filepath.Clean(s)
			if d == s {
				return
			}
			if strings.HasPrefix(d, s+string(filepath.Separator)) {
				inside = true
			}
		}
		if !inside {
			return // outside what install writes into
		}
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return // not empty
		}
	}
}

// hookRef names the private ref of r's known-good blobs, as outcome keeps it.
func hookRef(r repo.Repo) string { return outcome.New(r, outcome.Options{}).Ref() }

// displayRel shows p relative to root when inside it (slash-separated).
func displayRel(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// pruneReport prunes the state of repositories that no longer exist and says so.
func pruneReport(e *env) {
	gone, err := outcome.PruneState()
	if err != nil {
		fmt.Fprintf(e.stderr, "mbguard: %v (run mbguard doctor --prune again)\n", err)
	}
	switch {
	case len(gone) == 1:
		fmt.Fprintf(e.stdout, "%-10s the state of 1 repository that no longer exists (%s)\n", "pruned", gone[0].GitDir)
	case len(gone) > 1:
		fmt.Fprintf(e.stdout, "%-10s the state of %d repositories that no longer exist\n", "pruned", len(gone))
	}
}
