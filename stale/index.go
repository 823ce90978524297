package stale

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/mbguard/mbguard/internal/gitexec"
)

// index is what the repository holds, read once per run from git's index.
type index struct {
	files, dirs map[string]bool
	top         map[string]bool // first segments of every path: "src", "Makefile"
	// the project's own entry points, by kind; a kind is absent when the repository has no
	// file that defines it (then its commands are not the project's own)
	names map[Kind]map[string]bool
	lower map[string]string // lower-cased path → tracked path, built on first use
	cut   map[string]bool   // every part of a tracked path before one of its spaces, built on first use
}

// defining files, by base name
func definerKind(base string) Kind {
	switch {
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(base, ".mk"):
		return KindMake
	case base == "package.json":
		return KindScript
	case base == "justfile" || base == "Justfile" || base == ".justfile":
		return KindJust
	case base == "Taskfile.yml" || base == "Taskfile.yaml" || base == "taskfile.yml" || base == "taskfile.yaml":
		return KindTask
	}
	return ""
}

func buildIndex(ctx context.Context, root string) (*index, error) {
	out, err := gitexec.Run(ctx, root, "ls-files", "-z", "--cached")
	if err != nil {
		return nil, fmt.Errorf("listing the repository's files: %w", err)
	}
	ix := &index{files: map[string]bool{}, dirs: map[string]bool{}, top: map[string]bool{}, names: map[Kind]map[string]bool{}}
	var definers []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) == 0 {
			continue
		}
		s := string(p)
		ix.addFile(s)
		if k := definerKind(path.Base(s)); k != "" && !strings.Contains(s, "node_modules/") {
			definers = append(definers, s)
		}
	}
	if len(definers) == 0 {
		return ix, nil
	}
	var stdin bytes.Buffer
	for _, d := range definers {
		stdin.WriteString(":" + d + "\n")
	}
	blobs, err := gitexec.Cmd{Dir: root, Stdin: &stdin}.Run(ctx, "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("reading the repository's Makefiles and package.json files: %w", err)
	}
	r := bufio.NewReader(bytes.NewReader(blobs))
	for _, d := range definers {
		hdr, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("reading %s from git: %w", d, err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 {
			continue // missing (a conflict entry, say)
		}
		size, _ := strconv.Atoi(f[2])
		body := make([]byte, size+1)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, fmt.Errorf("reading %s from git: %w", d, err)
		}
		k := definerKind(path.Base(d))
		if ix.names[k] == nil {
			ix.names[k] = map[string]bool{}
		}
		for _, n := range definedNames(k, body[:size]) {
			ix.names[k][n] = true
		}
	}
	return ix, nil
}

// addFile records a tracked file, its top-level entry and its folders.
func (ix *index) addFile(s string) {
	ix.files[s] = true
	if i := strings.IndexByte(s, '/'); i >= 0 {
		ix.top[s[:i]] = true
	} else {
		ix.top[s] = true
	}
	for d := path.Dir(s); d != "." && !ix.dirs[d]; d = path.Dir(d) {
		ix.dirs[d] = true
	}
}

var (
	makeRule   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^\s:=#][^:=#]*?)\s*::?(?:[^=]|$)`) })
	justRecipe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^@?([A-Za-z_][A-Za-z0-9_-]*)(?:\s+[^:=]*)?:(?:[^=]|$)`)
	})
	justAlias = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^alias\s+([A-Za-z_][A-Za-z0-9_-]*)\s*:=`) })
)

// definedNames lists the targets, scripts, recipes or tasks a file defines.
func definedNames(k Kind, body []byte) []string {
	var out []string
	switch k {
	case KindMake:
		out = makeTargets(body)
	case KindJust:
		for _, l := range strings.Split(string(body), "\n") {
			l = strings.TrimRight(l, "\r")
			if m := justAlias().FindStringSubmatch(l); m != nil {
				out = append(out, m[1])
			} else if m := justRecipe().FindStringSubmatch(l); m != nil {
				out = append(out, m[1])
			}
		}
	case KindScript:
		var pkg struct {
			Scripts map[string]any `json:"scripts"`
		}
		if json.Unmarshal(body, &pkg) == nil {
			for n := range pkg.Scripts {
				out = append(out, n)
			}
		}
	case KindTask:
		var tf struct {
			Tasks map[string]any `yaml:"tasks"`
		}
		if yaml.Unmarshal(body, &tf) == nil {
			for n := range tf.Tasks {
				out = append(out, n)
			}
		}
	}
	return out
}

// makeTargets are the targets a Makefile's rules name, then those it declares .PHONY.
func makeTargets(body []byte) []string {
	var out []string
	for _, l := range strings.Split(string(body), "\n") {
		m := makeRule().FindStringSubmatch(strings.TrimRight(l, "\r"))
		if m == nil || strings.HasPrefix(m[1], ".PHONY") {
			continue
		}
		out = append(out, strings.Fields(m[1])...)
	}
	for _, l := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), ".PHONY:"); ok {
			out = append(out, strings.Fields(rest)...)
		}
	}
	return out
}

// exists reports whether a repository-relative path is a tracked file or directory.
func (ix *index) exists(p string) bool { return ix.files[p] || ix.dirs[p] }

// maxSourceBlob is the largest file searched for symbols: bigger ones are generated or data.
const maxSourceBlob = 1 << 20

// presentSymbols returns which of names occur, as whole identifiers, in the tracked files
// outside memory-bank/ and Markdown. The blobs stream once through git cat-file and are cut
// into identifiers here: git grep -w with thousands of fixed strings took minutes on the
// 20,000-file bench, this takes a fraction of a second.
func presentSymbols(ctx context.Context, root string, names []string) (map[string]bool, error) {
	found := map[string]bool{}
	if len(names) == 0 {
		return found, nil
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	out, err := gitexec.Run(ctx, root, "ls-files", "-s", "-z", "--", ".", ":(exclude)memory-bank/**", ":(exclude,glob)**/*.md")
	if err != nil {
		return nil, fmt.Errorf("listing the source files: %w", err)
	}
	oids, n := regularBlobs(out)
	if n == 0 {
		return found, nil
	}
	pipe, err := gitexec.Cmd{Dir: root, Stdin: oids}.Stream(ctx, "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("reading the source files: %w", err)
	}
	r := bufio.NewReaderSize(pipe, 1<<16)
	var buf []byte
	for i := 0; i < n && len(found) < len(want); i++ {
		text, stop := sourceText(r, &buf)
		if stop {
			break
		}
		identifiers(text, func(id []byte) {
			if want[string(id)] {
				found[string(id)] = true
			}
		})
	}
	pipe.Stop() // done early when every name was found
	return found, nil
}

// sourceText reads the next object of a `git cat-file --batch` stream into *buf and returns its
// text; nil for a missing, oversized or binary object, and stop when the stream broke.
func sourceText(r *bufio.Reader, buf *[]byte) (text []byte, stop bool) {
	hdr, err := r.ReadString('\n')
	if err != nil {
		return nil, true
	}
	f := strings.Fields(hdr)
	if len(f) != 3 {
		return nil, false // missing object
	}
	size, _ := strconv.Atoi(f[2])
	if size > maxSourceBlob {
		_, err := r.Discard(size + 1)
		return nil, err != nil
	}
	if cap(*buf) < size+1 {
		*buf = make([]byte, size+1)
	}
	b := (*buf)[:size+1]
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, true
	}
	if bytes.IndexByte(b[:min(size, 8000)], 0) >= 0 {
		return nil, false // binary
	}
	return b[:size], false
}

// regularBlobs lists, one a line, the objects of the regular files in `git ls-files -s -z`
// output (not symlinks or submodules), and counts them.
func regularBlobs(ls []byte) (*bytes.Buffer, int) {
	var oids bytes.Buffer
	n := 0
	for _, e := range bytes.Split(ls, []byte{0}) {
		f := bytes.Fields(e) // mode oid stage\tpath
		if len(f) < 3 || !bytes.HasPrefix(f[0], []byte("100")) {
			continue // symlinks, submodules
		}
		oids.Write(f[1])
		oids.WriteByte('\n')
		n++
	}
	return &oids, n
}

// identifiers calls fn with every identifier ([A-Za-z_][A-Za-z0-9_]*) in b.
func identifiers(b []byte, fn func([]byte)) {
	for i := 0; i < len(b); {
		if !identStart(b[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(b) && (identStart(b[j]) || isDigit(b[j])) {
			j++
		}
		if i == 0 || !isDigit(b[i-1]) {
			fn(b[i:j])
		}
		i = j
	}
}

func identStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// moduleExts are the extensions a source import leaves out.
var moduleExts = []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".py", ".go", ".rs", ".rb", ".vue", ".svelte"}

// module reports whether p, written without an extension, is a tracked source file as an import
// names it: "types are defined in src/game/actions" means src/game/actions.ts (CivWeb-Lite).
func (ix *index) module(p string) bool {
	if path.Ext(p) != "" {
		return false
	}
	for _, e := range moduleExts {
		if ix.files[p+e] {
			return true
		}
	}
	return false
}

// cutAtSpace reports whether p is a tracked path cut at a space: a note's shell line
// "cd memory-bank/Bedtime Protocol/tools" leaves the words unquoted, so the path read from it is
// memory-bank/Bedtime, which is no reference of its own.
func (ix *index) cutAtSpace(p string) bool {
	if ix.cut == nil {
		ix.cut = map[string]bool{}
		for _, set := range []map[string]bool{ix.files, ix.dirs} {
			for t := range set {
				for i := 0; i < len(t); i++ {
					if t[i] == ' ' {
						ix.cut[t[:i]] = true
					}
				}
			}
		}
	}
	return ix.cut[p]
}

// folded returns the tracked path that one of cand names in another case, or "".
func (ix *index) folded(cand []string) string {
	if ix.lower == nil {
		ix.lower = make(map[string]string, len(ix.files)+len(ix.dirs))
		for _, set := range []map[string]bool{ix.files, ix.dirs} {
			for p := range set {
				ix.lower[strings.ToLower(p)] = p
			}
		}
	}
	for _, c := range cand {
		if p, ok := ix.lower[strings.ToLower(c)]; ok {
			return p
		}
	}
	return ""
}
