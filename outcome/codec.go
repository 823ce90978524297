package outcome

import (
	"bytes"
	"errors"
	"io/fs"
	"strconv"
)

// The manifest file (known-good.idx) is read by every check of a per-call hook, so it is a
// compact text a hand-written parser reads in one pass, about ten times faster than the
// JSON it replaces:
//
//	mbguard known-good 2\n
//	tree <tree id or ->\n
//	<kind> <mode, octal> <size> <mtime ns> <inode> <links> <blob id or -> <path>\0   (per entry)
//
// kind is f (file), d (folder), l (symlink) or o (other). The path comes last and ends with
// a NUL, the one byte a path cannot hold, so spaces and newlines in names need no quoting.
const codecHeader = "mbguard known-good 2\n"

var errCodec = errors.New("not a known-good manifest")

var kindCode = map[Kind]byte{KindFile: 'f', KindDir: 'd', KindSymlink: 'l', KindOther: 'o'}

func encodeManifest(m *manifest) []byte {
	b := make([]byte, 0, 64+len(m.Entries)*96)
	b = append(b, codecHeader...)
	b = append(b, "tree "...)
	b = appendID(b, m.Tree)
	b = append(b, '\n')
	for _, p := range sortedKeys(m.Entries) {
		e := m.Entries[p]
		k, ok := kindCode[e.Kind]
		if !ok {
			k = 'o'
		}
		b = append(b, k, ' ')
		b = strconv.AppendUint(b, uint64(e.Mode.Perm()), 8)
		b = append(b, ' ')
		b = strconv.AppendInt(b, e.Size, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, e.Mtime, 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, e.Ino, 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, e.Nlink, 10)
		b = append(b, ' ')
		b = appendID(b, e.Blob)
		b = append(b, ' ')
		b = append(b, p...)
		b = append(b, 0)
	}
	return b
}

func appendID(b []byte, id string) []byte {
	if id == "" {
		return append(b, '-')
	}
	return append(b, id...)
}

func decodeManifest(b []byte) (*manifest, error) {
	rest, ok := bytes.CutPrefix(b, []byte(codecHeader))
	if !ok {
		return nil, errCodec
	}
	line, rest, ok := bytes.Cut(rest, []byte{'\n'})
	tree, ok2 := bytes.CutPrefix(line, []byte("tree "))
	if !ok || !ok2 {
		return nil, errCodec
	}
	m := &manifest{Version: manifestVersion, Tree: id(tree), Entries: make(map[string]Entry, bytes.Count(rest, []byte{0}))}
	for len(rest) > 0 {
		rec, after, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, errCodec // torn
		}
		rest = after
		path, e, ok := decodeRecord(rec)
		if !ok {
			return nil, errCodec
		}
		m.Entries[path] = e
	}
	return m, nil
}

// codecKinds are the kinds' letters in a record.
var codecKinds = [256]Kind{'f': KindFile, 'd': KindDir, 'l': KindSymlink, 'o': KindOther}

// decodeRecord decodes one entry: "kind mode size mtime ino nlink blob path".
func decodeRecord(rec []byte) (string, Entry, bool) {
	var f [7][]byte
	for i := range f {
		var ok bool
		f[i], rec, ok = bytes.Cut(rec, []byte{' '})
		if !ok {
			return "", Entry{}, false
		}
	}
	if len(f[0]) != 1 || len(rec) == 0 {
		return "", Entry{}, false
	}
	kind := codecKinds[f[0][0]]
	if kind == "" {
		return "", Entry{}, false
	}
	mode, err1 := strconv.ParseUint(string(f[1]), 8, 32)
	size, err2 := strconv.ParseInt(string(f[2]), 10, 64)
	mtime, err3 := strconv.ParseInt(string(f[3]), 10, 64)
	ino, err4 := strconv.ParseUint(string(f[4]), 10, 64)
	nlink, err5 := strconv.ParseUint(string(f[5]), 10, 64)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil || mode > 0o777 {
		return "", Entry{}, false
	}
	return string(rec), Entry{Kind: kind, Mode: fs.FileMode(mode), Size: size, Mtime: mtime, Ino: ino, Nlink: nlink, Blob: id(f[6])}, true
}

func id(b []byte) string {
	if len(b) == 1 && b[0] == '-' {
		return ""
	}
	return string(b)
}
