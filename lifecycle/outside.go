package lifecycle

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/gitexec"
)

// Mention is a reference to a moved or removed bank path that migrate did not rewrite, because
// changing it could change what the text means: in code, in another tool's configuration, or a
// bare file name in prose. It is listed with file:line for the user.
type Mention struct {
	Path string // the file that holds it (slash path from the root)
	Line int
	Text string // the path or name as written
	Now  string // where it went: the new path, or memory-bank/MEMORY.md for a merged file
	Why  string
}

// maxOutsideFile is the largest file outside the bank searched for references: larger ones are
// data, not instructions or documentation.
const maxOutsideFile = 1 << 20

// bankMap says where each bank path of the start went, for references to it.
type bankMap struct {
	to     map[string]string   // old file → new file (a merged entry file → MEMORY.md)
	merged map[string]bool     // entry files whose text went into MEMORY.md
	dirs   map[string]string   // old folder → new folder
	byBase map[string][]string // lower-case base name without .md → old bank Markdown files
	bare   []string            // base names worth listing when prose names them alone
	src    string              // the folder the bank was found in when not memory-bank/ (Plan.From)
	// srcOnly looks for paths into src alone: the bank's own files, whose memory-bank/ paths
	// are already the new ones.
	srcOnly bool
}

// prefixes are the folder prefixes a path into the bank starts with.
func (m bankMap) prefixes() []string {
	switch {
	case m.srcOnly:
		return []string{m.src + "/"}
	case m.src != "":
		return []string{bank.Dir + "/", m.src + "/"}
	}
	return []string{bank.Dir + "/"}
}

// searched are the texts a reference to the bank starts with: the prefixes, and the folder a bank
// was brought from named on its own ("the memory bank files are located in
// `.kilocode/rules/memory-bank`", in Kilo Code's instructions), which follows it to memory-bank.
// A name that goes on (memory-bank-instructions.md) is no reference: where() knows no such path.
func (m bankMap) searched() []string {
	if m.src == "" {
		return m.prefixes()
	}
	return append(m.prefixes(), m.src)
}

// inBank is true for the bank's folders and what is in them: they are not "outside".
func (m bankMap) inBank(name string) bool {
	for _, d := range m.prefixes() {
		if name == d[:len(d)-1] || strings.HasPrefix(name, d) {
			return true
		}
	}
	return false
}

// nextPath finds the first of prefixes in l at or after at: its start, and its length.
func nextPath(l string, at int, prefixes []string) (start, n int) {
	start = -1
	for _, p := range prefixes {
		if k := strings.Index(l[at:], p); k >= 0 && (start < 0 || at+k < start) {
			start, n = at+k, len(p)
		}
	}
	return start, n
}

func newBankMap(p Plan, before map[string]bool) bankMap {
	m := bankMap{to: map[string]string{}, merged: map[string]bool{}, dirs: map[string]string{}, byBase: map[string][]string{}, src: p.From}
	for _, mv := range p.Moves {
		m.to[mv.From] = mv.To
		if path.Base(mv.From) != path.Base(mv.To) {
			m.bare = append(m.bare, path.Base(mv.From))
		}
	}
	for _, d := range p.Delete {
		m.to[d], m.merged[d] = bank.Entry, true
		m.bare = append(m.bare, path.Base(d))
	}
	for _, d := range p.Dirs {
		m.dirs[d.From] = d.To
	}
	if p.From != "" {
		m.dirs[p.From] = bank.Dir
	}
	names := make([]string, 0, len(before))
	for f := range before {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if markdownFile(f) {
			k := strings.ToLower(strings.TrimSuffix(path.Base(f), path.Ext(f)))
			m.byBase[k] = append(m.byBase[k], f)
		}
	}
	sort.Strings(m.bare)
	return m
}

// where returns the new place of an old bank path (file or folder).
func (m bankMap) where(old string) (string, bool) {
	if t, ok := m.to[old]; ok {
		return t, true
	}
	if t, ok := m.dirs[old]; ok {
		return t, true
	}
	return "", false
}

// wikiRe finds [[target]], [[target#heading]] and [[target|alias]].
var wikiRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\[([^\]\|#\n]+)([^\]\n]*)\]\]`) })

// wikiTarget maps a wiki-link target written in file name to its new spelling; ok is false when
// it names no moved or merged bank file, or the new spelling is the same.
func (m bankMap) wikiTarget(t string) (string, bool) {
	name := strings.TrimSpace(t)
	ext := ""
	if strings.HasSuffix(strings.ToLower(name), ".md") {
		name, ext = name[:len(name)-3], name[len(name)-3:]
	}
	if strings.Contains(name, "/") {
		old := path.Clean(name) + ".md"
		prefix := ""
		if !strings.HasPrefix(old, bank.Dir+"/") {
			old, prefix = bank.Dir+"/"+old, bank.Dir+"/"
		}
		nw, ok := m.where(old)
		if !ok {
			return "", false
		}
		return strings.TrimSuffix(strings.TrimPrefix(nw, prefix), ".md") + ext, true
	}
	olds := m.byBase[strings.ToLower(name)]
	if len(olds) != 1 {
		return "", false // none, or ambiguous: the link resolves as it did
	}
	nw, ok := m.where(olds[0])
	if !ok {
		return "", false
	}
	base := strings.TrimSuffix(path.Base(nw), ".md")
	if strings.EqualFold(base, name) {
		return "", false
	}
	return base + ext, true
}

// rewriteWiki points the wiki-links of one file's lines at the files' new names. Lines in
// fenced or inline code are left alone.
func rewriteWiki(content []byte, file string, m bankMap) (out []byte, rewritten []Link) {
	if !bytes.Contains(content, []byte("[[")) {
		return nil, nil
	}
	lines := strings.SplitAfter(string(content), "\n")
	var fence bank.Fence
	changed := false
	for i, l := range lines {
		if fence.Line([]byte(strings.TrimRight(l, "\n"))) || !strings.Contains(l, "[[") {
			continue
		}
		code := codeSpans(l)
		var b strings.Builder
		last := 0
		for _, loc := range wikiRe().FindAllStringSubmatchIndex(l, -1) {
			if inSpans(loc[0], code) {
				continue
			}
			raw := l[loc[2]:loc[3]]
			nt, ok := m.wikiTarget(raw)
			if !ok {
				continue
			}
			rewritten = append(rewritten, Link{Path: file, Line: i + 1, Target: "[[" + raw + "]]", New: "[[" + nt + "]]"})
			b.WriteString(l[last:loc[2]])
			b.WriteString(nt)
			last = loc[3]
		}
		if last > 0 {
			b.WriteString(l[last:])
			lines[i] = b.String()
			changed = true
		}
	}
	if !changed {
		return nil, rewritten
	}
	return []byte(strings.Join(lines, "")), rewritten
}

// rewriteSpans points the inline code spans of one bank file that name a moved or merged bank
// path, whole, at its new place. Cline-style banks name their own files that way, relative to
// the bank (`tasks/`, `activeContext.md`) or from the root (`memory-bank/progress.md`); left as
// they were, they name files the migration removed (CivWeb-Lite's memory-bank/AGENTS.md).
// Fenced code is left alone: it is commands and samples.
func rewriteSpans(content []byte, file string, m bankMap) (out []byte, rewritten []Link) {
	if !bytes.Contains(content, []byte("`")) {
		return nil, nil
	}
	src := bank.Dir
	if m.src != "" {
		src = m.src
	}
	lines := strings.SplitAfter(string(content), "\n")
	var fence bank.Fence
	changed := false
	for i, l := range lines {
		if fence.Line([]byte(strings.TrimRight(l, "\r\n"))) || !strings.Contains(l, "`") {
			continue
		}
		var b strings.Builder
		last := 0
		for _, sp := range codeSpans(l) {
			inner := l[sp[0]:sp[1]]
			tick := len(inner) - len(strings.TrimLeft(inner, "`"))
			s, e := sp[0]+tick, sp[1]-tick
			tok := l[s:e]
			if tok == "" || strings.ContainsAny(tok, " \t*?") {
				continue
			}
			nw, ok := spanTarget(tok, src, m)
			if !ok || nw == tok {
				continue
			}
			rewritten = append(rewritten, Link{Path: file, Line: i + 1, Target: tok, New: nw})
			b.WriteString(l[last:s])
			b.WriteString(nw)
			last = e
		}
		if last > 0 {
			b.WriteString(l[last:])
			lines[i] = b.String()
			changed = true
		}
	}
	if !changed {
		return nil, rewritten
	}
	return []byte(strings.Join(lines, "")), rewritten
}

// spanTarget is the new name of the bank file the code span tok names, written as tok writes
// it (from the bank's folder, or the repository's root); ok is false when it names none.
func spanTarget(tok, src string, m bankMap) (string, bool) {
	name := strings.TrimPrefix(tok, "./")
	slash := strings.HasSuffix(name, "/")
	name = strings.TrimSuffix(name, "/")
	old, full := src+"/"+name, false
	if strings.HasPrefix(name, bank.Dir+"/") || strings.HasPrefix(name, src+"/") {
		old, full = name, true
	}
	nw, ok := m.where(old)
	if !ok {
		return "", false
	}
	if !full {
		nw = strings.TrimPrefix(nw, bank.Dir+"/")
	}
	if slash {
		nw += "/"
	}
	return nw, true
}

// agentFiles are the instruction files of agent hosts; they are prose for the agent to follow.
var agentFiles = map[string]bool{"AGENTS.md": true, "CLAUDE.md": true, "GEMINI.md": true, ".clinerules": true, ".windsurfrules": true, ".cursorrules": true, "copilot-instructions.md": true}

// prose reports whether a file is text for people or agents to read (Markdown, plain text, an
// agent's instruction file), where a path can be rewritten without changing what it does.
func prose(name string) bool {
	if agentFiles[path.Base(name)] {
		return true
	}
	for _, d := range []string{".roo/", ".clinerules/", ".cursor/rules/", ".windsurf/rules/"} {
		if strings.HasPrefix(name, d) && path.Ext(name) == "" {
			return true
		}
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx", ".mdc", ".txt", ".rst":
		return true
	}
	return false
}

// markdown reports whether a prose file's links are Markdown links.
func markdown(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx", ".mdc":
		return true
	}
	return agentFiles[path.Base(name)]
}

func pathByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == '/' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// rewriteOutside rewrites, in one file outside the bank, the Markdown links, bare and backticked
// paths and wiki-links that name a moved bank file or folder, and points those naming a merged
// entry file at MEMORY.md. What it would not change safely is listed: a path in code, in front
// matter or in a file that is not prose (another tool's configuration), and a bank file's bare
// name in prose.
func rewriteOutside(name string, content []byte, m bankMap, r linkResolver) (out []byte, rewritten []Link, listed []Mention) {
	text := content
	isProse := prose(name)
	if isProse && markdown(name) {
		text, rewritten = rewriteOutsideLinks(text, name, m, r)
	}
	lines := strings.SplitAfter(string(text), "\n")
	ff := newFrontFence(lines, markdown(name))
	changed := false
	for i, l := range lines {
		hidden := ff.hidden(i, l)
		nl, rw, ls := rewritePaths(name, i+1, l, m, isProse, hidden)
		rewritten, listed = append(rewritten, rw...), append(listed, ls...)
		if nl != l {
			lines[i], l, changed = nl, nl, true
		}
		if !isProse || hidden {
			continue
		}
		listed = append(listed, bareMentions(name, i+1, l, m)...)
	}
	if changed {
		text = []byte(strings.Join(lines, ""))
	}
	if !bytes.Equal(text, content) {
		out = text
	}
	return out, rewritten, listed
}

// frontFence follows a file line by line through its front matter and, in Markdown, its code
// fences.
type frontFence struct {
	front, md bool
	fence     bank.Fence
}

func newFrontFence(lines []string, md bool) *frontFence {
	return &frontFence{front: len(lines) > 0 && strings.TrimRight(lines[0], "\r\n") == "---" && md, md: md}
}

// hidden reports whether line i, l, is front matter or code; lines come in order.
func (f *frontFence) hidden(i int, l string) bool {
	trimmed := strings.TrimRight(l, "\r\n")
	inFront := f.front
	if f.front && i > 0 && (trimmed == "---" || trimmed == "...") {
		f.front = false
	}
	code := !inFront && f.md && f.fence.Line([]byte(trimmed))
	return inFront || code
}

// readOutside is the content of name (tree entry e) when it is a text file outside the bank
// that may name bank files, else nil: from the work tree when the file there is the commit's,
// else from the objects (and then it is marked in dirty, when dirty is not nil).
func readOutside(r *gitRepo, root, name string, e *object.TreeEntry, m bankMap, dirty map[string]bool) []byte {
	if e.Mode != filemode.Regular && e.Mode != filemode.Executable || m.inBank(name) {
		return nil
	}
	full := filepath.Join(root, filepath.FromSlash(name))
	if fi, err := os.Lstat(full); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > maxOutsideFile {
			return nil
		}
		if b, err := os.ReadFile(full); err == nil && plumbing.ComputeHash(plumbing.BlobObject, b) == e.Hash {
			return textOnly(b, m)
		}
	}
	if dirty != nil {
		dirty[name] = true
	}
	blob, err := object.GetBlob(r.Storer, e.Hash)
	if err != nil || blob.Size > maxOutsideFile {
		return nil
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil
	}
	return textOnly(b, m)
}

// textOnly is b when it is a text file that may name bank files, else nil.
func textOnly(b []byte, m bankMap) []byte {
	if textFile(b, m) {
		return b
	}
	return nil
}

// rewriteOutsideLinks rewrites the Markdown links and wiki-links of a prose file outside the
// bank to moved bank files.
func rewriteOutsideLinks(text []byte, name string, m bankMap, r linkResolver) ([]byte, []Link) {
	var rewritten []Link
	if o, rw, _ := rewriteLinks(text, name, name, r); o != nil || len(rw) > 0 {
		rewritten = append(rewritten, rw...)
		if o != nil {
			text = o
		}
	}
	if o, rw := rewriteWiki(text, name, m); o != nil {
		rewritten = append(rewritten, rw...)
		text = o
	}
	return text, rewritten
}

// rewritePaths rewrites the paths to moved bank files in line l (number n) of file name. In
// code, front matter or a file that is not prose (hidden) they are listed as mentions instead.
func rewritePaths(name string, n int, l string, m bankMap, isProse, hidden bool) (string, []Link, []Mention) {
	var rewritten []Link
	var listed []Mention
	var b strings.Builder
	last := 0
	for at := 0; ; {
		s, k := nextPath(l, at, m.searched())
		if s < 0 {
			break
		}
		at = s + k
		tok, ok := pathToken(l, s)
		if !ok {
			continue
		}
		nw, ok := m.where(strings.TrimSuffix(tok, "/"))
		if !ok {
			continue
		}
		if strings.HasSuffix(tok, "/") {
			nw += "/"
		}
		if !isProse || hidden {
			why := "in code or front matter"
			if !isProse {
				why = "in a file that is not prose (another tool's configuration or code)"
			}
			listed = append(listed, Mention{Path: name, Line: n, Text: tok, Now: nw, Why: why + ": not rewritten, change it by hand"})
			continue
		}
		rewritten = append(rewritten, Link{Path: name, Line: n, Target: tok, New: nw})
		b.WriteString(l[last:s])
		b.WriteString(nw)
		last = s + len(tok)
		at = last
	}
	if last == 0 {
		return l, rewritten, listed
	}
	b.WriteString(l[last:])
	return b.String(), rewritten, listed
}

// pathToken is the path that starts at l[s], without a sentence's full stop; ok is false
// when it is part of another path (docs/memory-bank/…).
func pathToken(l string, s int) (tok string, ok bool) {
	if s > 0 && pathByte(l[s-1]) && !(l[s-1] == '/' && s >= 2 && l[s-2] == '.' && (s == 2 || !pathByte(l[s-3]))) {
		return "", false
	}
	e := s
	for e < len(l) && pathByte(l[e]) {
		e++
	}
	tok = l[s:e]
	for strings.HasSuffix(tok, ".") {
		tok = tok[:len(tok)-1] // the sentence's full stop
	}
	return tok, true
}

// outsideRelevant is a quick test that a file might mention the bank at all.
func outsideRelevant(b []byte, m bankMap) bool {
	for _, p := range m.searched() {
		if bytes.Contains(b, []byte(p)) {
			return true
		}
	}
	if bytes.Contains(b, []byte("[[")) {
		return true
	}
	for _, base := range m.bare {
		if bytes.Contains(b, []byte(base)) {
			return true
		}
	}
	return false
}

// outsideChanges runs rewriteOutside over the files outside the bank (path → content) in name
// order.
func outsideChanges(files map[string][]byte, m bankMap, r linkResolver) (changed map[string][]byte, rewritten []Link, listed []Mention) {
	changed = map[string][]byte{}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out, rw, ls := rewriteOutside(n, files[n], m, r)
		rewritten = append(rewritten, rw...)
		listed = append(listed, ls...)
		if out != nil {
			changed[n] = out
		}
	}
	return changed, rewritten, listed
}

// textFile keeps what is worth searching: not binary, not too large, possibly about the bank.
func textFile(b []byte, m bankMap) bool {
	return len(b) <= maxOutsideFile && !bytes.Contains(b[:min(len(b), 8000)], []byte{0}) && outsideRelevant(b, m)
}

// outsideTree reads the tracked regular files of commit h outside memory-bank/ that may mention
// the bank, from the work tree when the file there is the commit's, else from the objects.
// dirty, when not nil, collects the files whose work-tree copy differs from the commit's: those
// must not be rewritten, or the user's uncommitted edits would be lost.
func outsideTree(r *gitRepo, root string, h plumbing.Hash, m bankMap, dirty map[string]bool) (map[string][]byte, error) {
	c, err := r.CommitObject(h)
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	read := func(name string, e *object.TreeEntry) {
		if b := readOutside(r, root, name, e, m, dirty); b != nil {
			out[name] = b
		}
	}
	if cand, ok := grepCandidates(root, m); ok {
		// only the files git grep named: look each up, never walk the whole tree
		for name := range cand {
			if e, err := tree.FindEntry(name); err == nil {
				read(name, e)
			}
		}
		return out, nil
	}
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		read(name, &e)
	}
}

// outsideDisk is outsideTree for --no-git: the files on disk, without .git, the bank and
// dependency folders.
func outsideDisk(root string, m bankMap) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "vendor":
				return filepath.SkipDir
			}
			if m.inBank(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > maxOutsideFile {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && textFile(b, m) {
			out[rel] = b
		}
		return nil
	})
	return out, err
}

// grepCandidates asks git grep (C, threaded, reading the index's stat data) which tracked text
// files outside the bank mention it at all, so a repository of twenty thousand source files is
// not read file by file. ok is false when git cannot answer: then every file is read.
func grepCandidates(root string, m bankMap) (cand map[string]bool, ok bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, false
	}
	args := []string{"-c", "core.quotePath=false", "grep", "-l", "-z", "-I", "-F", "--no-color", "-e", "[["}
	for _, p := range m.searched() {
		args = append(args, "-e", p)
	}
	for _, b := range m.bare {
		args = append(args, "-e", b)
	}
	args = append(args, "--", ".")
	for _, p := range m.prefixes() {
		args = append(args, ":(exclude)"+strings.TrimSuffix(p, "/"))
	}
	out, err := gitexec.Run(context.Background(), root, args...)
	if err != nil && gitexec.ExitCode(err) != 1 { // 1: no file matched
		return nil, false
	}
	cand = map[string]bool{}
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			cand[f] = true
		}
	}
	return cand, true
}

// bareMentions lists the bank files line l of file name names by their old base name alone
// (systemPatterns.md): not a path, so not rewritten, but stale once the file moved.
func bareMentions(name string, line int, l string, m bankMap) []Mention {
	var listed []Mention
	for _, base := range m.bare {
		for at := 0; ; {
			k := strings.Index(l[at:], base)
			if k < 0 {
				break
			}
			s := at + k
			at = s + len(base)
			if (s > 0 && (pathByte(l[s-1]) || l[s-1] == '[')) || (at < len(l) && pathByte(l[at]) && l[at] != '.') {
				continue
			}
			if strings.HasSuffix(l[:s], "](") {
				continue // a link's target: rewritten, or left as written on purpose (in code)
			}
			nw := ""
			for old, t := range m.to {
				if path.Base(old) == base {
					nw = t
					break
				}
			}
			listed = append(listed, Mention{Path: name, Line: line, Text: base, Now: nw, Why: "names the bank file without its folder: not rewritten, change it by hand"})
		}
	}
	return listed
}

// bankMentions lists the prose of the bank as the migration leaves it (changed over after) that
// names a moved or merged bank file by its old bare name: the text carried into MEMORY.md
// ("see systemPatterns.md") is as stale as such a mention outside the bank.
func bankMentions(after, changed map[string][]byte, m bankMap) []Mention {
	names := make([]string, 0, len(after))
	for p := range after {
		// legacy.md keeps the text no section took, as it was written
		if markdownFile(p) && p != bank.Dir+"/legacy.md" {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	var listed []Mention
	for _, name := range names {
		text := after[name]
		if c, ok := changed[name]; ok {
			text = c
		}
		var fence bank.Fence
		lines := strings.SplitAfter(string(text), "\n")
		front := len(lines) > 0 && strings.TrimRight(lines[0], "\r\n") == "---"
		for i, l := range lines {
			trimmed := strings.TrimRight(l, "\r\n")
			inFront := front
			if front && i > 0 && (trimmed == "---" || trimmed == "...") {
				front = false
			}
			if inFront || fence.Line([]byte(trimmed)) {
				continue
			}
			listed = append(listed, bareMentions(name, i+1, l, m)...)
		}
	}
	return listed
}
