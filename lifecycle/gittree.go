package lifecycle

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// treeEdit is one path's new state in a tree: a zero Hash removes the path.
type treeEdit struct {
	Path string // slash path from the root tree
	Hash plumbing.Hash
	Mode filemode.FileMode
}

// editTree returns base with edits applied. Only the trees on an edited path are read and
// written; every other subtree keeps its hash from base. go-git's Worktree.Commit instead
// rebuilds and rehashes every tree of the index, which on a 20,000-file repository costs more
// than the whole migration should. Trees left empty disappear, as they do in git.
func editTree(s storer.EncodedObjectStorer, base plumbing.Hash, edits []treeEdit) (plumbing.Hash, error) {
	h, _, err := editSubtree(s, base, "", edits)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if h.IsZero() { // every file removed: git's empty tree
		return storeTree(s, &object.Tree{})
	}
	return h, nil
}

func editSubtree(s storer.EncodedObjectStorer, base plumbing.Hash, dir string, edits []treeEdit) (plumbing.Hash, bool, error) {
	var entries []object.TreeEntry
	if !base.IsZero() {
		t, err := object.GetTree(s, base)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("reading tree %s/: %w", dir, err)
		}
		entries = append(entries, t.Entries...)
	}
	at := make(map[string]int, len(entries))
	for i, e := range entries {
		at[e.Name] = i
	}
	set := func(e object.TreeEntry) {
		if i, ok := at[e.Name]; ok {
			entries[i] = e
			return
		}
		at[e.Name] = len(entries)
		entries = append(entries, e)
	}
	var order []string
	nested := map[string][]treeEdit{}
	for _, e := range edits {
		first, rest, deeper := strings.Cut(e.Path, "/")
		switch {
		case deeper:
			if _, ok := nested[first]; !ok {
				order = append(order, first)
			}
			nested[first] = append(nested[first], treeEdit{rest, e.Hash, e.Mode})
		case e.Hash.IsZero():
			if i, ok := at[first]; ok {
				entries[i].Name = "" // removed below, after all edits of this tree
				delete(at, first)
			}
		default:
			set(object.TreeEntry{Name: first, Mode: e.Mode, Hash: e.Hash})
		}
	}
	for _, name := range order {
		sub := plumbing.ZeroHash
		if i, ok := at[name]; ok && entries[i].Mode == filemode.Dir {
			sub = entries[i].Hash
		}
		h, changed, err := editSubtree(s, sub, joinPath(dir, name), nested[name])
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		switch {
		case !changed:
		case h.IsZero():
			if i, ok := at[name]; ok {
				entries[i].Name = ""
				delete(at, name)
			}
		default:
			set(object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
	}
	kept := entries[:0]
	for _, e := range entries {
		if e.Name != "" {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return plumbing.ZeroHash, !base.IsZero(), nil
	}
	// git orders a tree by name, comparing a folder as if its name ended in '/'.
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(kept, func(i, j int) bool { return key(kept[i]) < key(kept[j]) })
	h, err := storeTree(s, &object.Tree{Entries: kept})
	return h, h != base, err
}

func storeTree(s storer.EncodedObjectStorer, t *object.Tree) (plumbing.Hash, error) {
	o := s.NewEncodedObject()
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encoding a tree: %w", err)
	}
	if s.HasEncodedObject(o.Hash()) == nil {
		return o.Hash(), nil
	}
	h, err := s.SetEncodedObject(o)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("storing a tree: %w", err)
	}
	return h, nil
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
