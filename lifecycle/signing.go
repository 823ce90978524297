package lifecycle

import (
	"os"
	"os/exec"
	"path/filepath"
)

// commitsLikeGit checks what the user's git would do to a commit that mbguard's own commits
// (go-git, without --git-cli) cannot: sign it, or run a pre-commit hook on it. Signing is
// refused, never silently skipped; a hook is a warning, since mbguard runs its own check after.
// Without the git CLI there is no git configuration to honour.
func commitsLikeGit(o MigrateOptions) (warning string, err error) {
	if o.GitCLI || o.NoGit {
		return "", nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return "", nil
	}
	if v, _ := gitOut(o.Root, "config", "--type=bool", "--get", "commit.gpgsign"); v == "true" {
		return "", refuse("your git signs every commit (commit.gpgsign is true), and mbguard's own commits cannot be signed: run mbguard migrate --apply --git-cli, which commits through git (signed, and your hooks run)")
	}
	if hook, err := gitOut(o.Root, "rev-parse", "--git-path", "hooks/pre-commit"); err == nil && hook != "" {
		if !filepath.IsAbs(hook) {
			hook = filepath.Join(o.Root, hook)
		}
		if fi, err := os.Stat(hook); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return "your pre-commit hook does not run on mbguard's commits (--git-cli runs it); mbguard check --all runs after the migration instead", nil
		}
	}
	return "", nil
}
