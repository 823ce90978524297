package gitobj

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// Packs answers whether git holds an object in one of its packs, from the packs' .idx files
// (version 2: a 256-entry fan-out table, then the sorted object ids). Nothing but the fan-out
// table is read up front: a lookup reads its bucket of ids, or binary-searches it on disk
// when the bucket is large (a repository of millions of objects), so asking costs the same in
// a small repository and a huge one.
type Packs struct {
	hashLen int
	idx     []packIdx
}

type packIdx struct {
	f      *os.File
	fanout [256]uint32
}

// bigBucket is the most ids a lookup reads at once (64 KB of SHA-1 ids); a var for the test
// of the on-disk binary search.
var bigBucket uint32 = 3276

// OpenPacks reads the fan-out tables of the .idx files under objects/pack (objects is a
// repository's objects folder). An index it cannot read is left out: the caller then writes
// the object loose, which is never wrong. Close releases the files.
func OpenPacks(objects string, sha256Ids bool) *Packs {
	p := &Packs{hashLen: 20}
	if sha256Ids {
		p.hashLen = 32
	}
	names, _ := filepath.Glob(filepath.Join(objects, "pack", "pack-*.idx"))
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			continue
		}
		var head [8 + 256*4]byte
		if _, err := io.ReadFull(f, head[:]); err != nil || !bytes.Equal(head[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
			f.Close()
			continue
		}
		ix := packIdx{f: f}
		for i := range ix.fanout {
			ix.fanout[i] = binary.BigEndian.Uint32(head[8+4*i:])
		}
		p.idx = append(p.idx, ix)
	}
	return p
}

// Close closes the index files.
func (p *Packs) Close() {
	for _, ix := range p.idx {
		ix.f.Close()
	}
	p.idx = nil
}

// Has reports whether a pack holds the object id (hex). Safe for concurrent use; a nil Packs
// holds nothing.
func (p *Packs) Has(id string) bool {
	if p == nil {
		return false
	}
	want, err := hex.DecodeString(id)
	if err != nil || len(want) != p.hashLen {
		return false
	}
	for _, ix := range p.idx {
		if ix.has(want, p.hashLen) {
			return true
		}
	}
	return false
}

func (ix packIdx) has(want []byte, h int) bool {
	b := want[0]
	lo := uint32(0)
	if b > 0 {
		lo = ix.fanout[b-1]
	}
	hi := ix.fanout[b]
	if hi <= lo || hi > ix.fanout[255] {
		return false
	}
	at := func(i uint32) int64 { return int64(8+256*4) + int64(i)*int64(h) }
	if hi-lo <= bigBucket {
		ids := make([]byte, int(hi-lo)*h)
		if _, err := ix.f.ReadAt(ids, at(lo)); err != nil {
			return false
		}
		n := int(hi - lo)
		i := sort.Search(n, func(i int) bool { return bytes.Compare(ids[i*h:(i+1)*h], want) >= 0 })
		return i < n && bytes.Equal(ids[i*h:(i+1)*h], want)
	}
	one := make([]byte, h)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if _, err := ix.f.ReadAt(one, at(mid)); err != nil {
			return false
		}
		switch c := bytes.Compare(one, want); {
		case c == 0:
			return true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return false
}

// A batch is many loose objects in one file, for a store of mbguard's own (the copy of the
// known-good blobs outside the repository): writing a thousand blobs at once is one file to
// create instead of a thousand. The layout, all integers big-endian:
//
//	"mbguard-objects 1\n"
//	count uint32
//	count × (id [hash length]byte, offset uint64, length uint32), sorted by id
//	the deflated objects, each exactly as its loose object file would hold it
//
// Nothing in a batch is trusted: a reader inflates the object and checks that it hashes to
// the id asked for, as it does for a loose object.
const batchMagic = "mbguard-objects 1\n"

// BatchDir is where a store keeps its batches.
func BatchDir(store string) string { return filepath.Join(store, "batch") }

// WriteBatch writes the deflated objects z (id hex → loose object bytes) to one new batch file
// in store's batch folder, atomically.
func WriteBatch(store string, sha256Ids bool, z map[string][]byte) error {
	if len(z) == 0 {
		return nil
	}
	h := 20
	if sha256Ids {
		h = 32
	}
	ids := make([]string, 0, len(z))
	for id := range z {
		if len(id) == 2*h {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	head := len(batchMagic) + 4 + len(ids)*(h+12)
	var b bytes.Buffer
	b.Grow(head)
	b.WriteString(batchMagic)
	binary.Write(&b, binary.BigEndian, uint32(len(ids)))
	off := uint64(head)
	for _, id := range ids {
		raw, _ := hex.DecodeString(id)
		b.Write(raw)
		binary.Write(&b, binary.BigEndian, off)
		binary.Write(&b, binary.BigEndian, uint32(len(z[id])))
		off += uint64(len(z[id]))
	}
	name := ID(sha256Ids, "blob", b.Bytes()) // the index names the content
	bodies := make([]io.Reader, 0, len(ids)+1)
	bodies = append(bodies, &b)
	for _, id := range ids {
		bodies = append(bodies, bytes.NewReader(z[id]))
	}
	dir := BatchDir(store)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// read-only and exclusive like a loose object; the same index names the same content
	err := fsutil.WriteFrom(filepath.Join(dir, name+".batch"), io.MultiReader(bodies...), 0o444, fsutil.Options{NoSync: true, Exclusive: true, TempPrefix: TempPrefix})
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("storing %d objects: %w", len(ids), err)
	}
	return nil
}

// Batches reads the indexes of a store's batches; Get finds an object in them.
type Batches struct {
	hashLen int
	files   []batchFile
}

type batchFile struct {
	path string
	ids  []byte // count × (id, offset, length)
}

// OpenBatches reads the index of every batch in store (a damaged one is left out).
func OpenBatches(store string, sha256Ids bool) *Batches {
	bs := &Batches{hashLen: 20}
	if sha256Ids {
		bs.hashLen = 32
	}
	ents, _ := os.ReadDir(BatchDir(store))
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".batch") {
			continue
		}
		p := filepath.Join(BatchDir(store), e.Name())
		if ids, ok := readBatchIndex(p, bs.hashLen); ok {
			bs.files = append(bs.files, batchFile{path: p, ids: ids})
		}
	}
	return bs
}

func readBatchIndex(p string, h int) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	head := make([]byte, len(batchMagic)+4)
	if _, err := io.ReadFull(f, head); err != nil || string(head[:len(batchMagic)]) != batchMagic {
		return nil, false
	}
	n := int64(binary.BigEndian.Uint32(head[len(batchMagic):]))
	st, err := f.Stat()
	if err != nil || n*int64(h+12) > st.Size() {
		return nil, false
	}
	ids := make([]byte, n*int64(h+12))
	if _, err := io.ReadFull(f, ids); err != nil {
		return nil, false
	}
	return ids, true
}

// Has reports whether a batch names the object id (none does in a nil Batches).
func (bs *Batches) Has(id string) bool {
	_, _, ok := bs.find(id)
	return ok
}

func (bs *Batches) find(id string) (f batchFile, rec []byte, ok bool) {
	if bs == nil {
		return batchFile{}, nil, false
	}
	want, err := hex.DecodeString(id)
	if err != nil || len(want) != bs.hashLen {
		return batchFile{}, nil, false
	}
	w := bs.hashLen + 12
	for _, f := range bs.files {
		n := len(f.ids) / w
		i := sort.Search(n, func(i int) bool { return bytes.Compare(f.ids[i*w:i*w+bs.hashLen], want) >= 0 })
		if i < n && bytes.Equal(f.ids[i*w:i*w+bs.hashLen], want) {
			return f, f.ids[i*w : (i+1)*w], true
		}
	}
	return batchFile{}, nil, false
}

// Get returns the deflated object id as its loose file would hold it, unverified.
func (bs *Batches) Get(id string) ([]byte, bool) {
	f, rec, ok := bs.find(id)
	if !ok {
		return nil, false
	}
	off := int64(binary.BigEndian.Uint64(rec[bs.hashLen:]))
	n := int64(binary.BigEndian.Uint32(rec[bs.hashLen+8:]))
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	z := make([]byte, n)
	if _, err := fh.ReadAt(z, off); err != nil {
		return nil, false
	}
	return z, true
}
