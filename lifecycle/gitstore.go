package lifecycle

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/mbguard/mbguard/internal/gitobj"
	"github.com/mbguard/mbguard/internal/repo"
)

// gitRepo is the repository as go-git's storage sees it. mbguard uses only go-git's plumbing
// and storage packages: the root go-git package links its HTTP and SSH transports (and their
// package initialisation) into every binary, and a hook runs that binary on every tool call.
type gitRepo struct {
	Storer *objectStore
}

// objectStore is go-git's storage with one change: objects are written through internal/gitobj,
// the one way mbguard writes into git's object store (a temporary tmp_obj_* file in the object's
// folder, as git itself writes, which git fsck ignores and git prune removes when a migrate is
// killed mid-write).
type objectStore struct {
	*filesystem.Storage
	objects string // the common git directory's objects folder
}

// SetEncodedObject stores o as a loose object and returns its hash.
func (s *objectStore) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	rd, err := o.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer rd.Close()
	body, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	id, err := gitobj.Write(s.objects, false, o.Type().String(), body)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return plumbing.NewHash(id), nil
}

// open opens the repository whose work tree is root; a linked worktree's own git directory
// (HEAD, index) and the common one (objects, refs) are joined as git does.
func open(root string) (*gitRepo, error) {
	rp, err := repo.Find(root)
	if err != nil {
		return nil, fmt.Errorf("opening the repository at %s: %w", root, err)
	}
	if _, err := os.Stat(rp.GitDir); err != nil {
		return nil, fmt.Errorf("opening the repository at %s: %w", root, err)
	}
	fs := osfs.New(rp.GitDir)
	if rp.CommonDir != rp.GitDir {
		fs = dotgit.NewRepositoryFilesystem(fs, osfs.New(rp.CommonDir))
	}
	st := filesystem.NewStorage(fs, cache.NewObjectLRUDefault())
	return &gitRepo{Storer: &objectStore{Storage: st, objects: filepath.Join(rp.CommonDir, "objects")}}, nil
}

// Head resolves HEAD to the commit it names.
func (r *gitRepo) Head() (*plumbing.Reference, error) {
	return storer.ResolveReference(r.Storer, plumbing.HEAD)
}

// CommitObject reads one commit.
func (r *gitRepo) CommitObject(h plumbing.Hash) (*object.Commit, error) {
	return object.GetCommit(r.Storer, h)
}

// configIdentity is the commit identity from git's configuration files when the git CLI is not
// installed: system, then global, then the repository's own, the later winning, as git reads
// them (author.* and committer.* over user.*).
func (r *gitRepo) configIdentity() (author, committer *object.Signature) {
	var name, email, aName, aEmail, cName, cEmail string
	pick := func(c *config.Config) {
		if c == nil {
			return
		}
		set := func(dst *string, v string) {
			if v != "" {
				*dst = v
			}
		}
		set(&name, c.User.Name)
		set(&email, c.User.Email)
		set(&aName, c.Author.Name)
		set(&aEmail, c.Author.Email)
		set(&cName, c.Committer.Name)
		set(&cEmail, c.Committer.Email)
	}
	for _, sc := range []config.Scope{config.SystemScope, config.GlobalScope} {
		if c, err := config.LoadConfig(sc); err == nil {
			pick(c)
		}
	}
	if c, err := r.Storer.Config(); err == nil {
		pick(c)
	}
	sig := func(n, e string) *object.Signature {
		if n == "" {
			n = name
		}
		if e == "" {
			e = email
		}
		if n == "" || e == "" {
			return nil
		}
		return &object.Signature{Name: n, Email: e}
	}
	return sig(aName, aEmail), sig(cName, cEmail)
}
