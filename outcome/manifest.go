package outcome

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	top := filepath.Join(root, bankDir)
	fi, err := os.Lstat(top)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", top, err)
	}
	out[bankDir] = entryOf(fi)
	if !fi.IsDir() {
		return out, nil
	}
	var rec func(dir, rel string) error
	rec = func(dir, rel string) error {
		f, err := os.Open(dir)
		if err != nil {
			return fmt.Errorf("reading %s: %w", dir, err)
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return fmt.Errorf("reading %s: %w", dir, err)
		}
		for _, n := range names {
			p := filepath.Join(dir, n)
			fi, err := os.Lstat(p)
			if errors.Is(err, os.ErrNotExist) {
				continue // gone while walking
			}
			if err != nil {
				return fmt.Errorf("reading %s: %w", p, err)
			}
			r := rel + "/" + n
			e := entryOf(fi)
			out[r] = e
			if e.Kind == KindDir {
				if err := rec(p, r); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, rec(top, bankDir)
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
