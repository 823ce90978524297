//go:build release

package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// entry is one file of an archive.
type entry struct {
	name string
	mode fs.FileMode
	data []byte
}

// archive writes the archive of t's programs (built into the folder bin) and the docs to out.
func (b builder) archive(t target, bin, out string) error {
	entries, err := archiveEntries(t, bin)
	if err != nil {
		return err
	}
	var data []byte
	if strings.HasSuffix(out, ".zip") {
		data, err = zipBytes(entries, b.mtime)
	} else {
		data, err = tarGzBytes(entries, b.mtime)
	}
	if err != nil {
		return fmt.Errorf("packing %s: %w", out, err)
	}
	return fsutil.WriteFileAtomic(out, data, 0o644)
}

func archiveEntries(t target, bin string) ([]entry, error) {
	var entries []entry
	for _, p := range t.programs() {
		data, err := os.ReadFile(filepath.Join(bin, p))
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{p, 0o755, data})
	}
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			return nil, fmt.Errorf("reading %s for the archive: %w", d, err)
		}
		entries = append(entries, entry{d, 0o644, data})
	}
	return entries, nil
}

// tarGzBytes packs entries flat (no top folder, like goreleaser's archives) with fixed
// owners and times, so the bytes depend only on the contents.
func tarGzBytes(entries []entry, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf) // the gzip header carries no name and no time
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg, Name: e.name, Mode: int64(e.mode), Size: int64(len(e.data)),
			ModTime: mtime, Uname: "root", Gname: "root", Format: tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipBytes(entries []entry, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(e.mode)
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
