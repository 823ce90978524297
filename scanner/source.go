package scanner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
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
func Staged(ctx context.Context, root string, emit func(File) error) error {
	type diffResult struct {
		added map[string][]int
		err   error
	}
	diffc := make(chan diffResult, 1)
	go func() {
		out, err := gitexec.Run(ctx, root, "-c", "core.quotePath=false", "diff", "--cached", "-U0", "-M", "--no-color",
			"--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "--", bank.Dir+"/")
		if err != nil {
			diffc <- diffResult{err: fmt.Errorf("reading the staged diff: %w", err)}
			return
		}
		diffc <- diffResult{added: addedLines(out)}
	}()
	ls, err := gitexec.Run(ctx, root, "ls-files", "-s", "-z", "--", bank.Dir+"/")
	if err != nil {
		return fmt.Errorf("listing the index: %w", err)
	}
	entries, err := stagedEntries(ls)
	if err != nil {
		return err
	}
	blobs, err := emitLinks(entries, emit)
	if err != nil {
		return err
	}
	if len(blobs) == 0 {
		d := <-diffc
		return d.err
	}
	var oids bytes.Buffer
	for _, e := range blobs {
		oids.WriteString(e.oid)
		oids.WriteByte('\n')
	}
	stdout, err := gitexec.Cmd{Dir: root, Stdin: &oids}.Stream(ctx, "cat-file", "--batch")
	if err != nil {
		<-diffc
		return fmt.Errorf("reading staged files: %w", err)
	}
	// The blobs are read while git diff runs (it takes as long as reading them, on a bank of
	// new notes): up to readAhead of them wait for their added lines.
	type blob struct {
		f   File
		err error
	}
	ahead := make(chan blob, readAhead)
	stop := make(chan struct{})
	go func() {
		defer close(ahead)
		r := bufio.NewReaderSize(stdout, 1<<16)
		for _, e := range blobs {
			f, err := readBlob(r, e.oid)
			if err != nil {
				err = fmt.Errorf("reading staged %s: %w", e.path, err)
			}
			select {
			case ahead <- blob{f, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	fail := func(err error) error {
		close(stop)
		stdout.Stop()
		for range ahead { // the reader ends once git is stopped
		}
		return err
	}
	d := <-diffc
	if d.err != nil {
		return fail(d.err)
	}
	i := 0
	for b := range ahead {
		if b.err != nil {
			return fail(b.err)
		}
		e := blobs[i]
		i++
		f := b.f
		f.Path, f.Mode, f.AddedOnly, f.Added = e.path, e.mode, true, d.added[e.path]
		if err := emit(f); err != nil {
			return fail(err)
		}
	}
	if err := stdout.Close(); err != nil {
		return fmt.Errorf("reading staged files: %w", err)
	}
	return nil
}

// readAhead bounds the staged blobs read before git diff has answered.
const readAhead = 64

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
	out := map[string][]int{}
	var cur string
	for len(diff) > 0 {
		line := diff
		if i := bytes.IndexByte(diff, '\n'); i >= 0 {
			line, diff = diff[:i], diff[i+1:]
		} else {
			diff = nil
		}
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")):
			cur = ""
		case bytes.HasPrefix(line, []byte("+++ ")):
			cur = diffPath(string(line[4:]))
		case bytes.HasPrefix(line, []byte("@@ ")) && cur != "":
			// @@ -a[,b] +c[,d] @@
			f := strings.Fields(string(line))
			if len(f) < 3 || !strings.HasPrefix(f[2], "+") {
				continue
			}
			startS, countS, hasCount := strings.Cut(f[2][1:], ",")
			start, err := strconv.Atoi(startS)
			if err != nil {
				continue
			}
			count := 1
			if hasCount {
				if count, err = strconv.Atoi(countS); err != nil {
					continue
				}
			}
			for l := start; l < start+count; l++ {
				out[cur] = append(out[cur], l)
			}
		}
	}
	return out
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
