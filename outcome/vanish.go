package outcome

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// A repository renamed during a call (`mv ../proj ../x`, a parent renamed) takes its bank away
// from the path every later hook looks at: the host's working directory no longer exists, so
// no repository, no bank, nothing to guard. The pre check records where each guarded
// repository lies and the inode of every folder on the way (RecordRoot); a hook whose working
// directory has vanished looks the record up (Vanished) and puts the folder back (PutBack):
// the renamed folder is found in the deepest folder still there by its inode, and renamed to
// its old name only when that name is free. When it cannot be found, the hook refuses the
// calls and tells the person.

// rootRecord is one repository's place: its root and the inode of each folder from the root
// up to the file system's root.
type rootRecord struct {
	Root  string   `json:"root"`
	Chain []uint64 `json:"chain"`
}

func recordPath(root string) string {
	b := stateBase()
	if b == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(b, "roots", hex.EncodeToString(sum[:])[:24]+".json")
}

func chainOf(root string) ([]uint64, error) {
	var out []uint64
	for p := filepath.Clean(root); ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		ino, _ := inode(fi)
		out = append(out, ino)
		if filepath.Dir(p) == p {
			return out, nil
		}
	}
}

// RecordRoot records where the repository at root lies, when the record is missing or says
// otherwise (one read per call otherwise).
func RecordRoot(root string) {
	p := recordPath(root)
	if p == "" {
		return
	}
	chain, err := chainOf(root)
	if err != nil {
		return
	}
	rec := rootRecord{Root: filepath.Clean(root), Chain: chain}
	b, _ := json.Marshal(rec)
	if old, err := os.ReadFile(p); err == nil && string(old) == string(b) {
		return
	}
	if os.MkdirAll(filepath.Dir(p), 0o700) == nil {
		_ = fsutil.WriteFileAtomic(p, b, 0o600)
	}
}

// Vanished returns the recorded root that dir lies in (dir itself or a folder above it) when
// that root no longer exists; false when dir or the root exists, or no record names it.
func Vanished(dir string) (string, bool) {
	if dir == "" || !filepath.IsAbs(dir) {
		return "", false
	}
	if _, err := os.Lstat(dir); err == nil {
		return "", false
	}
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if rp := recordPath(p); rp != "" {
			if _, err := os.Stat(rp); err == nil {
				_, gone := os.Lstat(p)
				return p, gone != nil // a folder missing below a repository that is there is no rename of it
			}
		}
		if filepath.Dir(p) == p {
			return "", false
		}
	}
}

// PutBack renames the folder that held root (root itself or a folder above it, renamed during
// a call) back to its name, and returns the name it had been given. It renames only a folder
// found by its recorded inode in the deepest folder on root's path that is still there, and
// only when the old name is free.
func PutBack(root string) (string, error) {
	b, err := os.ReadFile(recordPath(root))
	if err != nil {
		return "", fmt.Errorf("no record of where %s lay", root)
	}
	var rec rootRecord
	if json.Unmarshal(b, &rec) != nil || rec.Root != filepath.Clean(root) {
		return "", errors.New("the record of where it lay is damaged")
	}
	// paths[i] is the folder whose inode is Chain[i]: the root, then each folder above it
	paths := pathUp(rec.Root)
	if len(paths) != len(rec.Chain) {
		return "", errors.New("the record of where it lay is damaged")
	}
	for i := 1; i < len(paths); i++ {
		parent := paths[i]
		if _, err := os.Lstat(parent); err != nil {
			continue // gone too: look further up
		}
		return putBackIn(parent, paths[i-1], rec.Chain[i-1], rec.Root)
	}
	return "", errors.New("no folder on its path is left")
}

// pathUp is p, then each folder above it, up to the file system's root.
func pathUp(p string) []string {
	var paths []string
	for ; ; p = filepath.Dir(p) {
		paths = append(paths, p)
		if filepath.Dir(p) == p {
			return paths
		}
	}
}

// putBackIn renames the folder in parent whose inode is ino back to missing, the name it had,
// and checks that root is there again. It returns the name the folder had been given.
func putBackIn(parent, missing string, ino uint64, root string) (string, error) {
	if _, err := os.Lstat(missing); err == nil {
		return "", fmt.Errorf("%s is there again, but not as it was", missing)
	}
	from, err := dirByInode(parent, ino)
	if err != nil {
		return "", err
	}
	if from == "" {
		return "", fmt.Errorf("it is no longer in %s: moved elsewhere", parent)
	}
	if err := os.Rename(from, missing); err != nil {
		return "", err
	}
	if _, err := os.Lstat(root); err != nil {
		return from, fmt.Errorf("%s is back, but %s is still missing", missing, root)
	}
	return from, nil
}

// dirByInode is the path of the folder in parent whose inode is ino ("" when there is none).
func dirByInode(parent string, ino uint64) (string, error) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if n, _ := inode(fi); n != 0 && n == ino {
			return filepath.Join(parent, e.Name()), nil
		}
	}
	return "", nil
}
