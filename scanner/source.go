package scanner

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/gitexec"
)

// Staged emits the files under memory-bank/ as the next commit will hold them: index blobs
// (never the working tree), each with the lines the commit adds (git diff --cached -U0, as
// gitleaks' pre-commit mode reads them). A file deleted in the index is not emitted. It works
// in a repository without commits, and honours GIT_INDEX_FILE (git commit <paths> runs the hook
// with a temporary index).
//
// A new file's diff holds all of it: such a file is emitted from the diff as soon as its part
// has been read, when its bytes hash to the blob the index names (sameBlob), so that a
// commit of many new notes is scanned while git is still printing them. The other files are
// read with git cat-file once the diff has ended.
func Staged(ctx context.Context, root string, emit func(File) error) error {
	stream, err := gitexec.Cmd{Dir: root}.Stream(ctx, "-c", "core.quotePath=false", "diff", "--cached", "-U0", "-M", "--no-color",
		"--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "--", bank.Dir+"/")
	if err != nil {
		return fmt.Errorf("reading the staged diff: %w", err)
	}
	blobs, err := stagedBlobs(ctx, root, emit)
	if err != nil {
		stream.Stop()
		return err
	}
	byPath := make(map[string]stagedEntry, len(blobs))
	for _, e := range blobs {
		byPath[e.path] = e
	}
	done := map[string]bool{}
	p := diffParser{added: map[string][]int{}}
	p.fileEnd = func(path string, content []byte) error {
		e, ok := byPath[path]
		if !ok || content == nil || len(content) > MaxFileSize || !sameBlob(e.oid, content) {
			return nil
		}
		done[path] = true
		return emit(File{Path: path, Mode: e.mode, Size: int64(len(content)), Content: content, AddedOnly: true, Added: p.added[path]})
	}
	if err := p.read(bufio.NewReaderSize(stream, 1<<16)); err != nil {
		stream.Stop()
		return err
	}
	if err := stream.Close(); err != nil {
		return fmt.Errorf("reading the staged diff: %w", err)
	}
	rest := blobs[:0:0]
	for _, e := range blobs {
		if !done[e.path] {
			rest = append(rest, e)
		}
	}
	return catBlobs(ctx, root, rest, p.added, emit)
}

// stagedBlobs lists the index under memory-bank/, emits its links and submodules, and returns
// its other entries.
func stagedBlobs(ctx context.Context, root string, emit func(File) error) ([]stagedEntry, error) {
	ls, err := gitexec.Run(ctx, root, "ls-files", "-s", "-z", "--", bank.Dir+"/")
	if err != nil {
		return nil, fmt.Errorf("listing the index: %w", err)
	}
	entries, err := stagedEntries(ls)
	if err != nil {
		return nil, err
	}
	return emitLinks(entries, emit)
}

// catBlobs reads the blobs with git cat-file and emits each with its added lines.
func catBlobs(ctx context.Context, root string, blobs []stagedEntry, added map[string][]int, emit func(File) error) error {
	if len(blobs) == 0 {
		return nil
	}
	var oids bytes.Buffer
	for _, e := range blobs {
		oids.WriteString(e.oid)
		oids.WriteByte('\n')
	}
	stdout, err := gitexec.Cmd{Dir: root, Stdin: &oids}.Stream(ctx, "cat-file", "--batch")
	if err != nil {
		return fmt.Errorf("reading staged files: %w", err)
	}
	r := bufio.NewReaderSize(stdout, 1<<16)
	var readErr error
	for _, e := range blobs {
		f, err := readBlob(r, e.oid)
		if err != nil {
			readErr = fmt.Errorf("reading staged %s: %w", e.path, err)
			break
		}
		f.Path, f.Mode, f.AddedOnly, f.Added = e.path, e.mode, true, added[e.path]
		if err := emit(f); err != nil {
			readErr = err
			break
		}
	}
	if readErr != nil {
		stdout.Stop()
		return readErr
	}
	if err := stdout.Close(); err != nil {
		return fmt.Errorf("reading staged files: %w", err)
	}
	return nil
}

// emitLinks emits the symbolic links and submodules, which have no content to read, and
// returns the other entries.
func emitLinks(entries []stagedEntry, emit func(File) error) ([]stagedEntry, error) {
	var blobs []stagedEntry
	for _, e := range entries {
		switch e.mode {
		case ModeSymlink, ModeGitlink:
			if err := emit(File{Path: e.path, Mode: e.mode, AddedOnly: true, Tracked: true}); err != nil {
				return nil, err
			}
		default:
			blobs = append(blobs, e)
		}
	}
	return blobs, nil
}

// stagedEntry is one stage-0 entry of the index.
type stagedEntry struct {
	mode uint32
	oid  string
	path string
}

// stagedEntries reads `git ls-files -s -z`; a path with unresolved conflicts is an error.
func stagedEntries(ls []byte) ([]stagedEntry, error) {
	var entries []stagedEntry
	var unmerged []string
	for _, rec := range bytes.Split(ls, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		fields := strings.Fields(string(meta))
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("listing the index: unexpected line %q", rec)
		}
		mode, err := strconv.ParseUint(fields[0], 8, 32)
		if err != nil {
			return nil, fmt.Errorf("listing the index: unexpected mode in %q", rec)
		}
		if fields[2] != "0" {
			if len(unmerged) == 0 || unmerged[len(unmerged)-1] != string(p) {
				unmerged = append(unmerged, string(p))
			}
			continue
		}
		entries = append(entries, stagedEntry{uint32(mode), fields[1], string(p)})
	}
	if len(unmerged) > 0 {
		return nil, fmt.Errorf("%s has unresolved merge conflicts (resolve them and git add the file, then check again)", strings.Join(unmerged, ", "))
	}
	return entries, nil
}

// readBlob reads one `git cat-file --batch` answer. A blob over MaxFileSize is skipped over
// and returned with its size only.
func readBlob(r *bufio.Reader, oid string) (File, error) {
	head, err := r.ReadString('\n')
	if err != nil {
		return File{}, err
	}
	fields := strings.Fields(head)
	if len(fields) == 2 && fields[1] == "missing" {
		return File{}, fmt.Errorf("object %s is missing from the repository", oid)
	}
	if len(fields) != 3 {
		return File{}, fmt.Errorf("unexpected git cat-file answer %q", strings.TrimSpace(head))
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return File{}, fmt.Errorf("unexpected git cat-file answer %q", strings.TrimSpace(head))
	}
	f := File{Size: size}
	if size > MaxFileSize {
		if _, err := io.CopyN(io.Discard, r, size+1); err != nil {
			return File{}, err
		}
		return f, nil
	}
	f.Content = make([]byte, size+1)
	if _, err := io.ReadFull(r, f.Content); err != nil {
		return File{}, err
	}
	f.Content = f.Content[:size] // drop the newline that ends each answer
	return f, nil
}

// addedLines parses `git diff -U0` output into the added line numbers of each new-side path.
func addedLines(diff []byte) map[string][]int {
	p := diffParser{added: map[string][]int{}}
	_ = p.read(bufio.NewReader(bytes.NewReader(diff)))
	return p.added
}

// diffParser reads `git diff -U0` output: the added line numbers of each new-side path, and
// the whole content of each file the diff creates (every line of it is added).
type diffParser struct {
	added map[string][]int
	// fileEnd, if set, is called at the end of each file's part of the diff with its
	// new-side path (empty when unknown) and, for a file the diff creates from nothing, its
	// content as the diff spells it (nil otherwise, or when the diff holds no text for it).
	fileEnd func(path string, content []byte) error

	cur     string
	hunks   bool   // past the file's first @@: a line starting "+++ " is an added "++ …"
	created bool   // "--- /dev/null"
	text    []byte // the added lines of a created file, each with its newline
	plain   bool   // text holds every line (no line has been left out)
}

func (p *diffParser) read(r *bufio.Reader) error {
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// a line longer than the buffer: gather it whole
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			if ferr := p.line(line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return p.end()
		}
		if err != nil {
			return err
		}
	}
}

// line reads one line of the diff, with its newline if it has one.
func (p *diffParser) line(raw []byte) error {
	line := bytes.TrimSuffix(raw, []byte{'\n'})
	switch {
	case bytes.HasPrefix(line, []byte("diff --git ")):
		if err := p.end(); err != nil {
			return err
		}
		p.cur, p.hunks, p.created, p.text, p.plain = "", false, false, nil, true
	case !p.hunks && bytes.HasPrefix(line, []byte("--- ")):
		p.created = string(line) == "--- /dev/null"
	case !p.hunks && bytes.HasPrefix(line, []byte("+++ ")):
		p.cur = diffPath(string(line[4:]))
	case bytes.HasPrefix(line, []byte("@@ ")) && p.cur != "":
		p.hunk(string(line))
	case p.created && p.cur != "":
		p.content(raw, line)
	}
	return nil
}

// content keeps an added line of a created file.
func (p *diffParser) content(raw, line []byte) {
	switch {
	case len(line) > 0 && line[0] == '+':
		p.text = append(p.text, raw[1:]...)
	case bytes.HasPrefix(line, []byte(`\ `)):
		// "\ No newline at end of file": the last line has none
		p.text = bytes.TrimSuffix(p.text, []byte{'\n'})
	}
}

// hunk reads a hunk header, "@@ -a[,b] +c[,d] @@", into the added lines of the current file.
func (p *diffParser) hunk(line string) {
	p.hunks = true
	f := strings.Fields(line)
	if len(f) < 3 || !strings.HasPrefix(f[2], "+") {
		p.plain = false
		return
	}
	startS, countS, hasCount := strings.Cut(f[2][1:], ",")
	start, err := strconv.Atoi(startS)
	if err != nil {
		p.plain = false
		return
	}
	count := 1
	if hasCount {
		if count, err = strconv.Atoi(countS); err != nil {
			p.plain = false
			return
		}
	}
	if start != len(p.added[p.cur])+1 {
		p.plain = false // lines left out: not a whole file
	}
	for l := start; l < start+count; l++ {
		p.added[p.cur] = append(p.added[p.cur], l)
	}
}

// end closes the current file's part.
func (p *diffParser) end() error {
	if p.fileEnd == nil || p.cur == "" && !p.created {
		return nil
	}
	var content []byte
	if p.created && p.cur != "" && p.plain && len(p.text) > 0 {
		content = p.text
	}
	cur := p.cur
	p.cur, p.hunks, p.created, p.text = "", false, false, nil
	return p.fileEnd(cur, content)
}

// sameBlob reports whether content is the blob git names oid (SHA-1, or SHA-256 in a
// repository of that object format).
func sameBlob(oid string, content []byte) bool {
	var h hash.Hash
	switch len(oid) {
	case 40:
		h = sha1.New()
	case 64:
		h = sha256.New()
	default:
		return false
	}
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil)) == oid
}

// diffPath turns a "+++ b/path" name (possibly C-quoted) into a repository-relative path.
func diffPath(s string) string {
	s = strings.TrimRight(s, "\t")
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, "b/")
}

// Disk emits files from the working tree: every file under each of paths (files or
// directories, relative to root). Symbolic links are emitted as links, never followed.
func Disk(ctx context.Context, root string, paths []string, emit func(File) error) error {
	for _, p := range paths {
		abs := filepath.Join(root, filepath.FromSlash(p))
		err := filepath.WalkDir(abs, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && name == abs {
					return fmt.Errorf("%s: no such file or directory (check the path)", p)
				}
				return fmt.Errorf("reading %s: %w", rel(root, name), fsutil.WithoutPath(err))
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if d.IsDir() {
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			f := File{Path: rel(root, name)}
			if d.Type()&fs.ModeSymlink != 0 {
				f.Mode = ModeSymlink
				// the advice differs for a tracked link; links are rare, so asking git is cheap
				_, lerr := gitexec.Run(ctx, root, "ls-files", "--error-unmatch", "--", f.Path)
				f.Tracked = lerr == nil
				return emit(f)
			}
			if !d.Type().IsRegular() {
				return nil // sockets, fifos: nothing a commit can hold
			}
			fi, err := d.Info()
			if err != nil {
				return fmt.Errorf("reading %s: %w", f.Path, fsutil.WithoutPath(err))
			}
			f.Size = fi.Size()
			if f.Size <= MaxFileSize { // a larger one is named too large unread
				if f.Content, err = readFile(name); err != nil {
					return fmt.Errorf("reading %s: %w", f.Path, fsutil.WithoutPath(err))
				}
			}
			return emit(f)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// readFile is os.ReadFile; a variable so that tests can see which files Disk reads.
var readFile = os.ReadFile

func rel(root, name string) string {
	r, err := filepath.Rel(root, name)
	if err != nil {
		return filepath.ToSlash(name)
	}
	return filepath.ToSlash(r)
}
