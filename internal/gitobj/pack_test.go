package gitobj

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// Packs finds every object git packed and none it did not, in SHA-1 and SHA-256
// repositories, through the bucket read and through the on-disk binary search.
func TestPacksHas(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			root := t.TempDir()
			testgit.Git(t, root, "init", "-q", "--object-format="+format)
			for i := range 300 {
				testgit.Write(t, root, fmt.Sprintf("f%03d.md", i), fmt.Sprintf("# note %d\n", i))
			}
			testgit.Commit(t, root, "notes")
			testgit.Git(t, root, "gc", "-q")
			objects := filepath.Join(root, ".git", "objects")
			var ids []string
			for i := range 300 {
				ids = append(ids, testgit.Git(t, root, "rev-parse", fmt.Sprintf("HEAD:f%03d.md", i)))
			}
			loose := ID(format == "sha256", "blob", []byte("never committed\n"))
			for _, bucket := range []uint32{3276, 1} {
				bigBucket = bucket
				p := OpenPacks(objects, format == "sha256")
				if len(p.idx) == 0 {
					t.Fatal("no pack index read after git gc")
				}
				for _, id := range ids {
					if !p.Has(id) {
						t.Fatalf("bucket %d: packed blob %s not found", bucket, id)
					}
				}
				if p.Has(loose) || p.Has("not-hex") || p.Has(ids[0][:10]) {
					t.Fatalf("bucket %d: found an object no pack holds", bucket)
				}
				p.Close()
			}
			bigBucket = 3276
		})
	}
	var none *Packs
	if none.Has(strings.Repeat("a", 40)) {
		t.Fatal("a nil Packs holds something")
	}
}

// A batch gives back each object's loose bytes; a damaged batch is left out, never read as
// another object's bytes, and two batches are both searched.
func TestBatches(t *testing.T) {
	store := t.TempDir()
	want := map[string][]byte{}
	for i := range 50 {
		body := []byte(fmt.Sprintf("# note %d\n%s", i, strings.Repeat("x", i*37)))
		want[ID(false, "blob", body)] = Deflate("blob", body)
	}
	if err := WriteBatch(store, false, want); err != nil {
		t.Fatal(err)
	}
	if err := WriteBatch(store, false, want); err != nil {
		t.Fatalf("the same batch again: %v", err)
	}
	other := []byte("# another\n")
	oid := ID(false, "blob", other)
	if err := WriteBatch(store, false, map[string][]byte{oid: Deflate("blob", other)}); err != nil {
		t.Fatal(err)
	}
	bs := OpenBatches(store, false)
	if len(bs.files) != 2 {
		t.Fatalf("%d batches, want 2 (the same content names the same file)", len(bs.files))
	}
	for id, z := range want {
		got, ok := bs.Get(id)
		if !ok || !bytes.Equal(got, z) {
			t.Fatalf("%s: got %d bytes (%v), want %d", id, len(got), ok, len(z))
		}
	}
	if z, ok := bs.Get(oid); !ok || inflate(t, z) != "blob 10\x00# another\n" {
		t.Fatalf("the second batch's object: %v", ok)
	}
	if bs.Has(ID(false, "blob", []byte("absent"))) {
		t.Fatal("found an object no batch holds")
	}
	// a batch cut short inside its index, and one that is not a batch at all
	ents, _ := os.ReadDir(BatchDir(store))
	for _, e := range ents {
		p := filepath.Join(BatchDir(store), e.Name())
		b, _ := os.ReadFile(p)
		os.Chmod(p, 0o644)
		if len(b) > 1000 {
			os.WriteFile(p, b[:100], 0o644)
		} else {
			os.WriteFile(p, []byte("garbage"), 0o644)
		}
	}
	if bs := OpenBatches(store, false); len(bs.files) != 0 {
		t.Fatalf("%d damaged batches read", len(bs.files))
	}
	var none *Batches
	if none.Has(oid) {
		t.Fatal("a nil Batches holds something")
	}
}

func inflate(t *testing.T, z []byte) string {
	t.Helper()
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
