package outcome

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/gitexec"
	"github.com/mbguard/mbguard/internal/gitobj"
)

// objects writes and reads git objects directly in the object store: a loose object is
// zlib("<type> <size>\x00" + body) under objects/xx/…, named by its SHA-1 (or SHA-256 when
// the repository's extensions.objectformat says so). Reading falls back to `git cat-file`
// for objects git has packed since, which also covers SHA-256 packs go-git v5 cannot read.
type objects struct {
	root      string // work tree, for git cat-file
	commonDir string
	sha256    bool
	reftable  bool
	// outside is a second loose object store outside the repository, for known-good blobs:
	// `update-ref -d` plus `gc --prune=now` cannot take them from there ("" when none)
	outside string
	// hashed counts the objects id hashed: a check after Prime hashes no unchanged file
	hashed atomic.Int64
	// batches is the index of the outside store's batches (outsideBatches)
	batchMu sync.Mutex
	batches *gitobj.Batches
}

func newObjects(root, commonDir string) *objects {
	o := &objects{root: root, commonDir: commonDir}
	if b, err := os.ReadFile(filepath.Join(commonDir, "config")); err == nil {
		for _, line := range strings.Split(strings.ToLower(string(b)), "\n") {
			k, v, ok := strings.Cut(strings.ReplaceAll(line, " ", ""), "=")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "objectformat":
				o.sha256 = strings.TrimSpace(v) == "sha256"
			case "refstorage":
				o.reftable = strings.TrimSpace(v) == "reftable"
			}
		}
	}
	return o
}

// id is the object id git gives body as an object of type typ.
func (o *objects) id(typ string, body []byte) string {
	o.hashed.Add(1)
	return gitobj.ID(o.sha256, typ, body)
}

func (o *objects) path(id string) string {
	return gitobj.Path(filepath.Join(o.commonDir, "objects"), id)
}

// write stores body as a loose object unless the object exists loose already, and returns its
// id; a known-good blob is also kept in the outside store. Both go through internal/gitobj,
// the one way mbguard writes git objects.
func (o *objects) write(typ string, body []byte) (string, error) {
	id := o.id(typ, body)
	var z []byte
	if _, err := os.Stat(o.path(id)); err != nil {
		z = gitobj.Deflate(typ, body)
		if err := gitobj.Put(filepath.Join(o.commonDir, "objects"), id, z); err != nil {
			return "", err
		}
	}
	if typ == "blob" && o.outside != "" {
		if _, err := os.Stat(gitobj.Path(o.outside, id)); err != nil {
			if z == nil {
				z = gitobj.Deflate(typ, body)
			}
			if os.MkdirAll(filepath.Dir(gitobj.Path(o.outside, id)), 0o700) == nil {
				_ = gitobj.Put(o.outside, id, z) // best effort: git's copy counts first
			}
		}
	}
	return id, nil
}

// readLoose reads blob id from the loose object file p, checking that its bytes hash to id
// (a file the agent wrote there is not taken for the known-good bytes).
func (o *objects) readLoose(p, id string) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	return o.inflateBlob(f, id)
}

// inflateBlob reads a loose object's bytes from r and returns the blob's body when it is blob
// id: bytes that do not hash to id are not taken for the known-good ones.
func (o *objects) inflateBlob(r io.Reader, id string) ([]byte, bool) {
	zr, err := zlib.NewReader(r)
	if err != nil {
		return nil, false
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, false
	}
	hdr, body, ok := bytes.Cut(b, []byte{0})
	if !ok || !strings.HasPrefix(string(hdr), "blob ") || o.id("blob", body) != id {
		return nil, false
	}
	return body, true
}

// storeKnown is write for a blob of a known-good state built at once (Prime): git's copy is
// written only when git has the blob neither loose nor in a pack (packs, opened once per
// build), and the outside copy is returned deflated for one batch file (outZ nil when the
// outside store has it or there is none) — after a migration or in a fresh clone every blob of
// the bank is packed already, and a thousand loose files on both sides cost more than the
// migration itself.
func (o *objects) storeKnown(body []byte, packs *gitobj.Packs, batches *gitobj.Batches) (id string, outZ []byte, err error) {
	id = o.id("blob", body)
	var z []byte
	if _, err := os.Stat(o.path(id)); err != nil && !packs.Has(id) {
		z = gitobj.Deflate("blob", body)
		if err := gitobj.Put(filepath.Join(o.commonDir, "objects"), id, z); err != nil {
			return "", nil, err
		}
	}
	if o.outside == "" || batches.Has(id) {
		return id, nil, nil
	}
	if _, err := os.Stat(gitobj.Path(o.outside, id)); err == nil {
		return id, nil, nil
	}
	if z == nil {
		z = gitobj.Deflate("blob", body)
	}
	return id, z, nil
}

// outsideBatches is the index of the outside store's batches, read once per objects: a batch
// is only ever added, and a miss reads them again (readOutside), so a stale index costs at
// most a duplicate loose copy.
func (o *objects) outsideBatches() *gitobj.Batches {
	o.batchMu.Lock()
	defer o.batchMu.Unlock()
	if o.batches == nil && o.outside != "" {
		o.batches = gitobj.OpenBatches(o.outside, o.sha256)
	}
	return o.batches
}

// readOutside reads blob id from the outside store, loose or in a batch, checking its hash.
func (o *objects) readOutside(id string) ([]byte, bool) {
	if o.outside == "" || len(id) < 3 {
		return nil, false
	}
	if body, ok := o.readLoose(gitobj.Path(o.outside, id), id); ok {
		return body, true
	}
	z, ok := o.outsideBatches().Get(id)
	if !ok {
		// a miss is rare (git lost the blob): read the batches again, another process may
		// have added one since
		z, ok = gitobj.OpenBatches(o.outside, o.sha256).Get(id)
	}
	if !ok {
		return nil, false
	}
	return o.inflateBlob(bytes.NewReader(z), id)
}

// restoreLoose puts blob id back into git's object store from the outside copy when git has
// no loose copy of it (it may still be packed: a duplicate loose object is harmless).
func (o *objects) restoreLoose(id string) {
	if o.outside == "" || len(id) < 3 {
		return
	}
	p := o.path(id)
	if _, err := os.Stat(p); err == nil {
		return
	}
	if body, ok := o.readOutside(id); ok {
		_ = gitobj.Put(filepath.Join(o.commonDir, "objects"), id, gitobj.Deflate("blob", body))
	}
}

// readBlob returns a blob's bytes: loose when it is, else through git cat-file (packed).
func (o *objects) readBlob(id string) ([]byte, error) {
	if id == "" {
		return nil, errors.New("no blob id")
	}
	if body, ok := o.readLoose(o.path(id), id); ok {
		return body, nil
	}
	out, err := gitexec.Run(context.Background(), o.root, "cat-file", "blob", id)
	if err != nil && o.outside != "" && len(id) > 2 {
		// git lost it (update-ref -d, gc --prune=now): the outside copy still has it
		if body, ok := o.readOutside(id); ok {
			return body, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading blob %s of the known-good state: %w", id, err)
	}
	return out, nil
}

// writeTree stores the trees for entries (paths relative to the repository root) and returns
// the root tree's id. Entries that are directories contribute only through their children;
// empty directories are not representable in git and are kept by the manifest alone.
func (o *objects) writeTree(entries map[string]Entry) (string, error) {
	type node struct {
		files map[string][2]string // name → mode, id
		dirs  map[string]*node
	}
	newNode := func() *node { return &node{files: map[string][2]string{}, dirs: map[string]*node{}} }
	top := newNode()
	for p, e := range entries {
		if e.Blob == "" || e.Kind == KindDir {
			continue
		}
		mode := "100644"
		switch {
		case e.Kind == KindSymlink:
			mode = "120000"
		case e.Mode&0o111 != 0:
			mode = "100755"
		}
		parts := strings.Split(p, "/")
		n := top
		for _, d := range parts[:len(parts)-1] {
			c := n.dirs[d]
			if c == nil {
				c = newNode()
				n.dirs[d] = c
			}
			n = c
		}
		n.files[parts[len(parts)-1]] = [2]string{mode, e.Blob}
	}
	var write func(n *node) (string, error)
	write = func(n *node) (string, error) {
		type ent struct{ key, name, mode, id string }
		var es []ent
		for name, f := range n.files {
			es = append(es, ent{name, name, f[0], f[1]})
		}
		for name, d := range n.dirs {
			id, err := write(d)
			if err != nil {
				return "", err
			}
			es = append(es, ent{name + "/", name, "40000", id})
		}
		sort.Slice(es, func(i, j int) bool { return es[i].key < es[j].key })
		var b bytes.Buffer
		for _, e := range es {
			raw, _ := hex.DecodeString(e.id)
			b.WriteString(e.mode + " " + e.name + "\x00")
			b.Write(raw)
		}
		return o.write("tree", b.Bytes())
	}
	return write(top)
}

// setRef points ref at id, so that git gc keeps the known-good blobs. A loose ref file takes
// precedence over packed-refs; a reftable repository gets git update-ref.
func (o *objects) setRef(ref, id string) error {
	if o.reftable {
		if _, err := gitexec.Run(context.Background(), o.root, "update-ref", ref, id); err != nil {
			return fmt.Errorf("updating %s: %w", ref, err)
		}
		return nil
	}
	p := filepath.Join(o.commonDir, filepath.FromSlash(ref))
	if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) == id {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("updating %s: %w", ref, err)
	}
	return fsutil.WriteFileAtomic(p, []byte(id+"\n"), 0o644)
}

// refValue reads ref's object id without running git: the loose ref file, else its line in
// packed-refs. ok is false when that cannot be known cheaply (a reftable repository) or the
// ref does not exist.
func (o *objects) refValue(ref string) (string, bool) {
	if o.reftable {
		return "", false
	}
	if b, err := os.ReadFile(filepath.Join(o.commonDir, filepath.FromSlash(ref))); err == nil {
		v := strings.TrimSpace(string(b))
		return v, v != "" && !strings.HasPrefix(v, "ref:")
	}
	packed, err := os.ReadFile(filepath.Join(o.commonDir, "packed-refs"))
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if id, name, ok := strings.Cut(line, " "); ok && name == ref {
			return id, true
		}
	}
	return "", false
}
