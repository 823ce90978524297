// Package gitobj is mbguard's one way into git's object store: it writes loose objects the
// way git does, through a temporary file named tmp_obj_* in the object's folder. A process
// killed mid-write leaves only that file, which git fsck ignores and git prune removes; any
// other name there is a "bad sha1 file" that fsck reports and nothing cleans.
package gitobj

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// TempPrefix starts the name of an object's temporary file, as in git (object-file.c).
const TempPrefix = "tmp_obj_"

// ID is the object id git gives body as an object of type typ ("blob", "tree", "commit"):
// SHA-1, or SHA-256 for a repository whose extensions.objectFormat says so.
func ID(sha256Ids bool, typ string, body []byte) string {
	h := sha1.New()
	if sha256Ids {
		h = sha256.New()
	}
	h.Write(header(typ, body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func header(typ string, body []byte) []byte {
	return []byte(typ + " " + strconv.Itoa(len(body)) + "\x00")
}

// deflaters keeps zlib writers between objects: each new one allocates most of a megabyte,
// which dominated storing a large bank's blobs (Prime, an undo of many files).
var deflaters = sync.Pool{New: func() any {
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return zw
}}

// Deflate is the loose object file's content: zlib("<type> <size>\x00" + body).
func Deflate(typ string, body []byte) []byte {
	var b bytes.Buffer
	zw := deflaters.Get().(*zlib.Writer)
	defer deflaters.Put(zw)
	zw.Reset(&b)
	zw.Write(header(typ, body))
	zw.Write(body)
	zw.Close()
	return b.Bytes()
}

// Path is where the loose object id lives under objects (a repository's objects folder, or a
// loose store of the same shape).
func Path(objects, id string) string {
	return filepath.Join(objects, id[:2], id[2:])
}

// Write stores body as a loose object of type typ under objects unless it is there already,
// and returns its id.
func Write(objects string, sha256Ids bool, typ string, body []byte) (string, error) {
	id := ID(sha256Ids, typ, body)
	if _, err := os.Lstat(Path(objects, id)); err == nil {
		return id, nil
	}
	return id, Put(objects, id, Deflate(typ, body))
}

// Put puts z, the deflated object id, in place under objects unless something is there: a
// loose object is named by its content, so the one there is the same. Like git (core.fsync
// defaults) it does not fsync; like git it makes the file read-only and links it into place.
func Put(objects, id string, z []byte) error {
	if len(id) < 3 {
		return fmt.Errorf("storing object %q: not an object id", id)
	}
	p := Path(objects, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("storing object %s: %w", id, err)
	}
	err := fsutil.WriteFile(p, z, 0o444, fsutil.Options{NoSync: true, Exclusive: true, TempPrefix: TempPrefix})
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("storing object %s: %w", id, err)
	}
	return nil
}
