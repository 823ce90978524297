package outcome

import (
	"io/fs"
	"sort"
	"strings"
)

// Kind is what an entry of memory-bank/ is.
type Kind string

// Entry kinds.
const (
	KindFile    Kind = "file"
	KindDir     Kind = "dir"
	KindSymlink Kind = "symlink"
	KindOther   Kind = "other" // fifo, socket, device: never part of a good bank
)

// Entry is one path under memory-bank/ as the known-good state records it, or as the disk
// shows it. Stat fields tell a changed entry from an unchanged one without reading it; Blob
// is the id of its bytes (a symlink's target text) in git's object store.
type Entry struct {
	Kind  Kind        `json:"kind"`
	Mode  fs.FileMode `json:"mode"` // permission bits
	Size  int64       `json:"size,omitempty"`
	Mtime int64       `json:"mtime,omitempty"` // nanoseconds
	Ino   uint64      `json:"ino,omitempty"`
	Nlink uint64      `json:"nlink,omitempty"`
	Blob  string      `json:"blob,omitempty"`
}

// sameStat reports whether the disk entry d still looks like e: nothing to read.
func (e Entry) sameStat(d Entry) bool {
	return e.Kind == d.Kind && e.Mode == d.Mode && e.Size == d.Size && e.Mtime == d.Mtime && e.Ino == d.Ino && e.Nlink == d.Nlink
}

func entryOf(fi fs.FileInfo) Entry {
	e := Entry{Mode: fi.Mode().Perm(), Mtime: fi.ModTime().UnixNano()}
	switch {
	case fi.Mode().IsRegular():
		e.Kind, e.Size = KindFile, fi.Size()
	case fi.IsDir():
		e.Kind = KindDir
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Kind, e.Size = KindSymlink, fi.Size()
	default:
		e.Kind = KindOther
	}
	if e.Kind == KindDir {
		e.Mtime = 0 // a directory's mtime changes with every file written in it
	}
	e.Ino, e.Nlink = inode(fi)
	if e.Kind == KindDir {
		e.Nlink = 0
	}
	return e
}

// walk lstats every entry under root/bankDir (the folder itself included), keyed by the
// slash path relative to root. It never follows a symlink.
func walk(root, bankDir string) (map[string]Entry, error) {
	out := map[string]Entry{}
	if err := walkAt(root, bankDir, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// sortedKeys returns m's keys in path order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// under reports whether p is dir or lies below it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}
