package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/gitexec"
)

// GitHookMarker marks the pre-commit script (and the lines in .husky/pre-commit) that mbguard
// owns, so that installing twice changes nothing and uninstalling removes only ours.
const GitHookMarker = "# mbguard-managed: mbguard install --hooks --uninstall removes this"

// ChainedSuffix is appended to a pre-existing pre-commit hook's name when mbguard's script
// takes its place; mbguard's script runs it first, and --uninstall puts it back.
const ChainedSuffix = ".mbguard-chained"

// GitHookScript is the POSIX sh pre-commit hook for binary. It runs a chained hook first (its
// failure stops the commit, as it would without mbguard), then checks MBGUARD=0 before the
// binary starts, so skipping costs nothing.
func GitHookScript(binary string) string {
	return `#!/bin/sh
` + GitHookMarker + `
# Checks what this commit adds to memory-bank/ (block markers, template version, secrets,
# stray files). Skip once with: MBGUARD=0 git commit ...
hookdir=$(dirname "$0")
if [ -x "$hookdir/pre-commit` + ChainedSuffix + `" ]; then
	"$hookdir/pre-commit` + ChainedSuffix + `" "$@" || exit $?
fi
[ "${MBGUARD:-}" = "0" ] && exit 0
if ! command -v ` + ghQuote(binary) + ` >/dev/null 2>&1; then
	echo "mbguard: ` + strings.ReplaceAll(binary, `"`, `'`) + ` not found: install mbguard, or skip once with MBGUARD=0 git commit" >&2
	exit 1
fi
exec ` + ghQuote(binary) + ` check --staged
`
}

// huskyLines are what --husky adds to .husky/pre-commit.
func huskyLines(binary string) string {
	return GitHookMarker + "\n" + `[ "${MBGUARD:-}" = "0" ] || ` + ghQuote(binary) + " check --staged\n"
}

// InstallGitHook installs (or with o.Uninstall removes) mbguard's git pre-commit hook. It
// writes into the hooks directory git really uses (git rev-parse --git-path hooks, so linked
// worktrees work), keeps an existing hook and runs it first, and refuses a core.hooksPath that
// belongs to another tool or to every repository (global or system config), with a hint. With
// o.Husky it adds its line to .husky/pre-commit instead; in a repository with a lefthook
// configuration, its command to that configuration's pre-commit hook.
func InstallGitHook(o InstallOptions) ([]Change, error) {
	if o.Root == "" {
		return nil, errors.New("not inside a git work tree (run it in the repository whose commits to check)")
	}
	bin := o.gitHookBinary()
	if o.Husky {
		return installHusky(o, bin)
	}
	if cfg := lefthookConfig(o.Root); cfg != "" {
		// lefthook owns the git hook; a hook of ours beside it would be overwritten by the
		// next lefthook install
		return installLefthook(o, cfg, bin)
	}
	out, err := ghGit(o.Root, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return nil, fmt.Errorf("locating the hooks directory: %w", err)
	}
	dir := out
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(o.Root, dir)
	}
	dir = filepath.Clean(dir)
	if hp, _ := ghGit(o.Root, "config", "--get", "core.hooksPath"); hp != "" {
		if err := refuseHooksPath(o, hp, bin); err != nil {
			return nil, err
		}
	}
	if o.Uninstall {
		return uninstallGitHook(o, dir)
	}
	return installGitHook(o, dir, bin)
}

// refuseHooksPath explains why mbguard will not write into a configured core.hooksPath,
// unless it is the default hooks directory spelled out.
func refuseHooksPath(o InstallOptions, hp, bin string) error {
	abs := hp
	if strings.HasPrefix(abs, "~/") && o.Home != "" {
		abs = filepath.Join(o.Home, abs[2:])
	}
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(o.Root, abs)
	}
	if ghSame(abs, filepath.Join(o.CommonDir, "hooks")) || ghSame(abs, filepath.Join(o.GitDir, "hooks")) {
		return nil
	}
	line := ghQuote(bin) + " check --staged"
	scope, _ := ghGit(o.Root, "config", "--show-scope", "--get", "core.hooksPath")
	scope, _, _ = strings.Cut(scope, "\t")
	if scope == "global" || scope == "system" {
		return fmt.Errorf("core.hooksPath is set in your %s git config to %s, a hooks folder shared by every repository: mbguard will not write there (add %q to %s/pre-commit yourself, or run git config --local core.hooksPath .git/hooks and install again)", scope, hp, line, hp)
	}
	base := filepath.Base(filepath.Clean(abs))
	if base == ".husky" || (base == "_" && filepath.Base(filepath.Dir(abs)) == ".husky") {
		return fmt.Errorf("core.hooksPath is %s (husky manages the hooks): run mbguard install --hooks --husky to add the check to .husky/pre-commit, or add %q there yourself", hp, line)
	}
	return fmt.Errorf("core.hooksPath is %s, managed by another tool: mbguard will not write there (add %q to its pre-commit hook, or use the pre-commit framework hook from .pre-commit-hooks.yaml)", hp, line)
}

func installGitHook(o InstallOptions, dir, bin string) ([]Change, error) {
	hook := filepath.Join(dir, "pre-commit")
	chained := hook + ChainedSuffix
	script := []byte(GitHookScript(bin))
	cur, err := os.ReadFile(hook)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", ghRel(o.Root, hook), err)
	}
	if exists && bytes.Contains(cur, []byte(GitHookMarker)) {
		if bytes.Equal(cur, script) {
			return []Change{{Path: ghRel(o.Root, hook), Action: "unchanged"}}, nil
		}
		if err := fsutil.WriteFileAtomic(hook, script, 0o755); err != nil {
			return nil, err
		}
		return []Change{{Path: ghRel(o.Root, hook), Action: "updated"}}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", ghRel(o.Root, dir), err)
	}
	var changes []Change
	if _, err := os.Lstat(hook); err == nil {
		if _, err := os.Lstat(chained); err == nil {
			return nil, fmt.Errorf("%s and %s both exist and neither is mbguard's: move one away, then install again", ghRel(o.Root, hook), ghRel(o.Root, chained))
		}
		if err := os.Rename(hook, chained); err != nil {
			return nil, fmt.Errorf("keeping your pre-commit hook: %w", err)
		}
		changes = append(changes, Change{Path: ghRel(o.Root, chained), Action: "kept", Note: "your pre-commit hook, now run first by mbguard's"})
	}
	if err := fsutil.WriteFileAtomic(hook, script, 0o755); err != nil {
		if len(changes) > 0 {
			os.Rename(chained, hook)
		}
		return nil, err
	}
	return append(changes, Change{Path: ghRel(o.Root, hook), Action: "created", Note: "runs mbguard check --staged; skip once with MBGUARD=0"}), nil
}

func uninstallGitHook(o InstallOptions, dir string) ([]Change, error) {
	hook := filepath.Join(dir, "pre-commit")
	chained := hook + ChainedSuffix
	cur, err := os.ReadFile(hook)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", ghRel(o.Root, hook), err)
	}
	if err != nil {
		return []Change{{Path: ghRel(o.Root, hook), Action: "skipped", Note: "no pre-commit hook: nothing to remove"}}, nil
	}
	if !bytes.Contains(cur, []byte(GitHookMarker)) {
		return []Change{{Path: ghRel(o.Root, hook), Action: "skipped", Note: "not mbguard's hook: left as it is"}}, nil
	}
	if _, err := os.Lstat(chained); err == nil {
		if err := os.Rename(chained, hook); err != nil {
			return nil, fmt.Errorf("restoring your pre-commit hook: %w", err)
		}
		return []Change{{Path: ghRel(o.Root, hook), Action: "updated", Note: "your original hook is back"}}, nil
	}
	if err := os.Remove(hook); err != nil {
		return nil, fmt.Errorf("removing %s: %w", ghRel(o.Root, hook), err)
	}
	return []Change{{Path: ghRel(o.Root, hook), Action: "removed"}}, nil
}

// installHusky adds (or removes) mbguard's lines in .husky/pre-commit.
func installHusky(o InstallOptions, bin string) ([]Change, error) {
	husky := filepath.Join(o.Root, ".husky")
	if fi, err := os.Stat(husky); err != nil || !fi.IsDir() {
		return nil, errors.New("no .husky/ folder here: --husky is for repositories that use husky (run mbguard install --hooks without it)")
	}
	hook := filepath.Join(husky, "pre-commit")
	cur, err := os.ReadFile(hook)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading .husky/pre-commit: %w", err)
	}
	next, skip := huskyNext(string(cur), o.Uninstall, bin)
	if skip {
		return []Change{{Path: ghRel(o.Root, hook), Action: "skipped", Note: "no mbguard lines"}}, nil
	}
	if next == string(cur) {
		return []Change{{Path: ghRel(o.Root, hook), Action: "unchanged"}}, nil
	}
	mode := fs.FileMode(0o755)
	if fi, err := os.Stat(hook); err == nil {
		mode = fi.Mode().Perm() | 0o111
	}
	if err := fsutil.WriteFileAtomic(hook, []byte(next), mode); err != nil {
		return nil, err
	}
	action := "updated"
	if len(cur) == 0 && err != nil { // the hook did not exist
		action = "created"
	}
	return []Change{{Path: ghRel(o.Root, hook), Action: action}}, nil
}

// huskyNext is .husky/pre-commit's text cur with mbguard's lines put at its end, or with
// uninstall taken out; skip: uninstall found none.
func huskyNext(cur string, uninstall bool, bin string) (next string, skip bool) {
	kept, had := stripHusky(cur)
	if uninstall {
		return kept, !had
	}
	if kept != "" && !strings.HasSuffix(kept, "\n") {
		kept += "\n"
	}
	return kept + huskyLines(bin), false
}

// stripHusky removes mbguard's marker line and the line after it.
func stripHusky(s string) (string, bool) {
	lines := strings.SplitAfter(s, "\n")
	var out strings.Builder
	had := false
	for i := 0; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == GitHookMarker {
			had = true
			i++ // and the command line
			continue
		}
		out.WriteString(lines[i])
	}
	return out.String(), had
}

func ghSame(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

func ghRel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// shQuote quotes s for POSIX sh unless it is plainly safe.
func ghQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// gitOut runs git in dir and returns its trimmed stdout.
func ghGit(dir string, args ...string) (string, error) {
	out, err := gitexec.Run(context.Background(), dir, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
