package lifecycle

import (
	"os"
	"path/filepath"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/mbguard/mbguard/internal/repo"
)

// repoFormat refuses, before anything changes, a repository whose format mbguard's git
// plumbing cannot read or write: SHA-256 object ids (go-git keeps 20-byte ids, so a start commit
// would be recorded truncated) and the reftable ref store (HEAD would read as "no commit yet").
// --no-git still works there: plain moves, committed by the user.
func repoFormat(root string) error {
	rp, err := repo.Find(root)
	if err != nil {
		return nil // not a repository: the caller says so
	}
	f, err := os.Open(filepath.Join(rp.CommonDir, "config"))
	if err != nil {
		return nil
	}
	defer f.Close()
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(f).Decode(cfg); err != nil {
		return nil
	}
	ext := cfg.Section("extensions")
	if v := strings.ToLower(ext.Option("objectformat")); v != "" && v != "sha1" {
		return refuse("this repository uses %s object ids (extensions.objectFormat), which mbguard migrate cannot commit in yet. Nothing changed: run mbguard migrate --apply --no-git to move the files, then review and commit them with git", v)
	}
	if v := strings.ToLower(ext.Option("refstorage")); v != "" && v != "files" {
		return refuse("this repository keeps its refs in %s (extensions.refStorage), which mbguard migrate cannot read yet. Nothing changed: run mbguard migrate --apply --no-git to move the files, then review and commit them with git", v)
	}
	return nil
}
