package lifecycle

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// gitIndex is the git index (.git/index) kept as raw entries: only the entries the migration
// renames, adds or drops are touched. go-git's index codec reads and writes every field of
// every entry through reflection, ~100 ms each way on a 20,000-file repository, and the
// migration needs the index only to rename ~1,000 paths. Extensions (the cache tree, the
// untracked cache) are dropped, as go-git does: git rebuilds them. An index git needs an
// extension to read (split or sparse index) is refused before anything changes.
type gitIndex struct {
	path    string
	version uint32
	entries []*rawEntry
}

// rawEntry is one index entry: the fixed part as stored (stat data, mode, object id, flags,
// and v3's extended flags) and the path.
type rawEntry struct {
	fixed []byte // 62 bytes, or 64 with extended flags
	name  string
}

const (
	ixHashOff  = 40 // the object id, after ten 32-bit stat and mode fields
	ixFlagsOff = 60
	ixFixed    = 62
	ixExtended = 0x4000
	ixNameMask = 0x0fff
)

func (e *rawEntry) hash() plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], e.fixed[ixHashOff:ixHashOff+20])
	return h
}

func (e *rawEntry) mode() filemode.FileMode {
	return filemode.FileMode(binary.BigEndian.Uint32(e.fixed[24:28]))
}

func (e *rawEntry) stage() uint16 { return binary.BigEndian.Uint16(e.fixed[ixFlagsOff:]) >> 12 & 3 }

// setName renames the entry and keeps the name length in its flags.
func (e *rawEntry) setName(n string) {
	e.name = n
	f := binary.BigEndian.Uint16(e.fixed[ixFlagsOff:]) &^ ixNameMask
	f |= uint16(min(len(n), ixNameMask))
	binary.BigEndian.PutUint16(e.fixed[ixFlagsOff:], f)
}

// setStat records the file's stat data, as git add would, so git status does not rehash it.
func (e *rawEntry) setStat(fi fs.FileInfo) {
	b := e.fixed
	put := func(off int, v uint32) { binary.BigEndian.PutUint32(b[off:], v) }
	mt := fi.ModTime()
	put(8, uint32(mt.Unix()))
	put(12, uint32(mt.Nanosecond()))
	if st, ok := statOf(fi); ok {
		put(0, uint32(st.ctime.Unix()))
		put(4, uint32(st.ctime.Nanosecond()))
		put(16, st.dev)
		put(20, st.ino)
		put(28, st.uid)
		put(32, st.gid)
	}
	put(36, uint32(fi.Size()))
}

// newRawEntry is a stage-0 entry for a regular file just written.
func newRawEntry(name string, h plumbing.Hash, fi fs.FileInfo) *rawEntry {
	e := &rawEntry{fixed: make([]byte, ixFixed)}
	binary.BigEndian.PutUint32(e.fixed[24:], uint32(filemode.Regular))
	copy(e.fixed[ixHashOff:], h[:])
	e.setName(name)
	if fi != nil {
		e.setStat(fi)
	}
	return e
}

var errIndexFormat = errors.New("unsupported git index")

// readGitIndex reads the index at path (a missing index is an empty one).
func readGitIndex(path string) (*gitIndex, error) {
	ix := &gitIndex{path: path, version: 2}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ix, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the git index: %w", err)
	}
	bad := func(why string) error {
		return fmt.Errorf("reading the git index %s: %w (%s): run mbguard migrate --apply --git-cli", path, errIndexFormat, why)
	}
	if len(b) < 12+sha1.Size || string(b[:4]) != "DIRC" {
		return nil, bad("no index header")
	}
	if sum := sha1.Sum(b[:len(b)-sha1.Size]); !bytes.Equal(sum[:], b[len(b)-sha1.Size:]) {
		return nil, bad("checksum mismatch")
	}
	ix.version = binary.BigEndian.Uint32(b[4:])
	if ix.version < 2 || ix.version > 4 {
		return nil, bad(fmt.Sprintf("version %d", ix.version))
	}
	n := int(binary.BigEndian.Uint32(b[8:]))
	body := b[:len(b)-sha1.Size]
	off := 12
	prev := ""
	ix.entries = make([]*rawEntry, 0, n+8)
	for range n {
		if off+ixFixed > len(body) {
			return nil, bad("truncated entry")
		}
		fl := binary.BigEndian.Uint16(body[off+ixFlagsOff:])
		fixedLen := ixFixed
		if fl&ixExtended != 0 {
			if ix.version < 3 {
				return nil, bad("extended flags in a version 2 index")
			}
			fixedLen += 2
			// skip-worktree and intent-to-add entries belong to sparse checkouts and git add -N:
			// keep them as they are, they are copied byte for byte.
		}
		if off+fixedLen > len(body) {
			return nil, bad("truncated entry")
		}
		e := &rawEntry{fixed: append([]byte(nil), body[off:off+fixedLen]...)}
		p := off + fixedLen
		if ix.version == 4 {
			strip, k := binary.Uvarint(body[p:])
			if k <= 0 || int(strip) > len(prev) {
				return nil, bad("bad path prefix")
			}
			p += k
			end := bytes.IndexByte(body[p:], 0)
			if end < 0 {
				return nil, bad("unterminated path")
			}
			e.name = prev[:len(prev)-int(strip)] + string(body[p:p+end])
			off = p + end + 1
		} else {
			end := bytes.IndexByte(body[p:], 0)
			if end < 0 {
				return nil, bad("unterminated path")
			}
			e.name = string(body[p : p+end])
			// entries are padded with 1 to 8 NULs to a multiple of 8 bytes
			off += (fixedLen + end + 8) &^ 7
		}
		prev = e.name
		ix.entries = append(ix.entries, e)
	}
	for off+8 <= len(body) {
		sig := body[off : off+4]
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		if sig[0] < 'A' || sig[0] > 'Z' {
			return nil, bad(fmt.Sprintf("it needs the %q extension (split or sparse index)", sig))
		}
		off += 8 + size
	}
	return ix, nil
}

// byName maps the paths of the stage-0 (unconflicted) entries to their entries.
func (ix *gitIndex) byName() map[string]*rawEntry {
	m := make(map[string]*rawEntry, len(ix.entries))
	for _, e := range ix.entries {
		if e.stage() == 0 {
			m[e.name] = e
		}
	}
	return m
}

// sort restores git's order (by path, then stage) after renames and additions.
func (ix *gitIndex) sort() {
	sort.SliceStable(ix.entries, func(i, j int) bool {
		a, b := ix.entries[i], ix.entries[j]
		if a.name != b.name {
			return a.name < b.name
		}
		return a.stage() < b.stage()
	})
}

// drop removes every entry whose path is in names.
func (ix *gitIndex) drop(names map[string]bool) {
	kept := ix.entries[:0]
	for _, e := range ix.entries {
		if !names[e.name] {
			kept = append(kept, e)
		}
	}
	ix.entries = kept
}

// write replaces the index atomically through index.lock, as git does, and fails rather than
// wait when another git process holds the lock.
func (ix *gitIndex) write() error {
	ix.sort()
	var buf bytes.Buffer
	buf.Grow(12 + len(ix.entries)*96)
	buf.WriteString("DIRC")
	var w [4]byte
	put := func(v uint32) { binary.BigEndian.PutUint32(w[:], v); buf.Write(w[:]) }
	put(ix.version)
	put(uint32(len(ix.entries)))
	prev := ""
	for _, e := range ix.entries {
		buf.Write(e.fixed)
		if ix.version == 4 {
			common := 0
			for common < len(prev) && common < len(e.name) && prev[common] == e.name[common] {
				common++
			}
			buf.Write(binary.AppendUvarint(nil, uint64(len(prev)-common)))
			buf.WriteString(e.name[common:])
			buf.WriteByte(0)
		} else {
			buf.WriteString(e.name)
			pad := (len(e.fixed)+len(e.name)+8)&^7 - len(e.fixed) - len(e.name)
			buf.Write(make([]byte, pad))
		}
		prev = e.name
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])

	lock := ix.path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			if fi, serr := os.Stat(lock); serr == nil {
				return fmt.Errorf("writing the git index: %s", lockAdvice(lock, fi.ModTime(), time.Now()))
			}
		}
		return fmt.Errorf("writing the git index: %w (another git command is running? wait for it, then run mbguard migrate --apply again)", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		os.Remove(lock)
		return fmt.Errorf("writing the git index: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return fmt.Errorf("writing the git index: %w", err)
	}
	if err := os.Rename(lock, ix.path); err != nil {
		os.Remove(lock)
		return fmt.Errorf("writing the git index: %w", err)
	}
	return nil
}

// indexPath is the index of the work tree whose private git directory is gitDir.
func indexPath(gitDir string) string {
	if p := os.Getenv("GIT_INDEX_FILE"); p != "" {
		return p
	}
	return filepath.Join(gitDir, "index")
}
