package gating

import (
	"strconv"
	"strings"
)

// PatchOp is what a patch does to one file.
type PatchOp string

// Patch operations. A move also carries hunks when the file is edited on the way.
const (
	PatchAdd    PatchOp = "add"
	PatchUpdate PatchOp = "update"
	PatchDelete PatchOp = "delete"
	PatchMove   PatchOp = "move"
)

// PatchFile is one file touched by a patch, as written in its headers (not canonical).
type PatchFile struct {
	Op   PatchOp
	Path string // the file the patch names; for a move, the source
	To   string // the destination of a move or rename
	// Added is the text of the added ("+") lines, newline-terminated: the whole new file for
	// an add, and what a secret scan must see for an update.
	Added string
	Hunks []Hunk
}

// Hunk is one change of an update: Old (context and removed lines) becomes New (context and
// added lines). Line numbers are ignored: agents' patches rarely have correct ones.
type Hunk struct {
	Old, New []string
	// ops has one byte per body line (' ' context, '-' removed, '+' added) so Apply can keep the
	// file's own spelling of context lines that matched loosely.
	ops []byte
}

// ParsePatch reads the files a patch touches, in either unified diff form (git or plain) or
// the OpenCode/Codex "*** Begin Patch" form. It never fails: it returns what it recognised.
func ParsePatch(text string) []PatchFile {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if strings.Contains(text, "*** Begin Patch") || strings.Contains(text, "*** Add File:") ||
		strings.Contains(text, "*** Update File:") || strings.Contains(text, "*** Delete File:") {
		return parseCodexPatch(text)
	}
	return parseUnifiedPatch(text)
}

// patchBuilder collects the files of a patch as its parser reads them: the file being read, its
// open hunk and the text of its added lines.
type patchBuilder struct {
	files []PatchFile
	cur   *PatchFile
	h     *Hunk
	added strings.Builder
}

// closeHunk keeps the open hunk when it holds a line.
func (b *patchBuilder) closeHunk() {
	if b.h != nil && (len(b.h.Old) > 0 || len(b.h.New) > 0) {
		b.cur.Hunks = append(b.cur.Hunks, *b.h)
	}
}

// flush ends the file being read; a file without a name is dropped.
func (b *patchBuilder) flush() {
	if b.cur == nil {
		return
	}
	b.closeHunk()
	b.cur.Added = b.added.String()
	if b.cur.Path != "" {
		b.files = append(b.files, *b.cur)
	}
	b.cur, b.h = nil, nil
	b.added.Reset()
}

func parseCodexPatch(text string) []PatchFile {
	var b patchBuilder
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "*** ") {
			// an indented header is still a header to a lenient applier
			if b.codexDirective(strings.TrimRight(t, " \t")) {
				continue
			}
		}
		b.codexBody(line)
	}
	b.flush()
	return b.files
}

// codexDirective acts on one "*** " line of the Codex form, and reports whether it was one.
func (b *patchBuilder) codexDirective(directive string) bool {
	for _, f := range []struct {
		header string
		op     PatchOp
	}{{"*** Add File:", PatchAdd}, {"*** Update File:", PatchUpdate}, {"*** Delete File:", PatchDelete}} {
		if p, ok := cutHeader(directive, f.header); ok {
			b.flush()
			b.cur = &PatchFile{Op: f.op, Path: p}
			if f.op == PatchUpdate {
				b.h = &Hunk{}
			}
			return true
		}
	}
	if p, ok := cutHeader(directive, "*** Move to:"); ok {
		// only an update can move; "Move to" after an add or delete is noise
		if b.cur != nil && p != "" && (b.cur.Op == PatchUpdate || b.cur.Op == PatchMove) {
			b.cur.Op, b.cur.To = PatchMove, p
		}
		return true
	}
	switch directive {
	case "*** End Patch", "*** Begin Patch":
		b.flush()
		return true
	case "*** End of File":
		return true
	}
	return false
}

// codexBody reads one line of a Codex file's body: the content of an add, a hunk line of an
// update.
func (b *patchBuilder) codexBody(line string) {
	if b.cur == nil {
		return
	}
	switch b.cur.Op {
	case PatchAdd:
		if strings.HasPrefix(line, "+") {
			b.added.WriteString(line[1:])
			b.added.WriteByte('\n')
		}
	case PatchUpdate, PatchMove:
		if b.h == nil {
			b.h = &Hunk{}
		}
		if strings.HasPrefix(line, "@@") {
			b.closeHunk()
			b.h = &Hunk{}
			return
		}
		hunkLine(b.h, &b.added, line)
	}
}

// hunkLine adds one body line of a hunk. An empty line is an empty context line: editors and
// models strip the single space.
func hunkLine(h *Hunk, added *strings.Builder, line string) {
	switch {
	case strings.HasPrefix(line, "+"):
		h.ops = append(h.ops, '+')
		h.New = append(h.New, line[1:])
		added.WriteString(line[1:])
		added.WriteByte('\n')
	case strings.HasPrefix(line, "-"):
		h.ops = append(h.ops, '-')
		h.Old = append(h.Old, line[1:])
	case strings.HasPrefix(line, " "):
		h.ops = append(h.ops, ' ')
		h.Old = append(h.Old, line[1:])
		h.New = append(h.New, line[1:])
	case line == "":
		h.ops = append(h.ops, ' ')
		h.Old = append(h.Old, "")
		h.New = append(h.New, "")
	}
}

func cutHeader(line, prefix string) (string, bool) {
	if !strings.HasPrefix(line, prefix) {
		return "", false
	}
	return strings.TrimSpace(line[len(prefix):]), true
}

func parseUnifiedPatch(text string) []PatchFile {
	p := &unifiedParser{remOld: -1, remNew: -1}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if p.hunkBody(line) {
			continue
		}
		nextNew := i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")
		switch {
		case strings.HasPrefix(line, "diff --git "):
			p.gitHeader(line[len("diff --git "):])
		case strings.HasPrefix(line, "--- ") && nextNew:
			p.oldHeader(headerName(line[4:]))
		case p.cur != nil:
			p.fileLine(line)
		}
	}
	p.flush()
	return p.files
}

// unifiedParser reads a unified diff: headers name and classify each file, hunk bodies are
// counted against their "@@" header so a "--- " line inside a hunk stays a removed line.
type unifiedParser struct {
	patchBuilder
	oldName string
	// remaining counts of old/new lines in the current hunk; -1 when the header had none
	remOld, remNew int
}

func (p *unifiedParser) flush() {
	if f := p.cur; f != nil {
		if f.Path == "" {
			f.Path = f.To
		}
		if f.Op == PatchMove && (f.To == "" || f.To == f.Path) {
			f.Op, f.To = PatchUpdate, ""
		}
	}
	p.patchBuilder.flush()
	p.oldName = ""
}

func (p *unifiedParser) start() {
	if p.cur == nil {
		p.cur = &PatchFile{Op: PatchUpdate}
	}
}

// hunkBody takes one body line of the open hunk, and reports whether line was one.
func (p *unifiedParser) hunkBody(line string) bool {
	inHunk := p.h != nil && (p.remOld > 0 || p.remNew > 0 || p.remOld < 0)
	if !inHunk || line == "" || strings.IndexByte("+- \\", line[0]) < 0 {
		return false
	}
	if p.remOld < 0 && (strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ ")) {
		return false // without counts, a file header ends the hunk
	}
	switch line[0] {
	case '\\': // "\ No newline at end of file"
	case '+':
		hunkLine(p.h, &p.added, line)
		p.remNew--
	case '-':
		hunkLine(p.h, &p.added, line)
		p.remOld--
	default:
		hunkLine(p.h, &p.added, line)
		p.remOld--
		p.remNew--
	}
	return true
}

// gitHeader starts a file at its "diff --git a/… b/…" line.
func (p *unifiedParser) gitHeader(names string) {
	p.flush()
	p.start()
	a, b := splitGitHeader(names)
	from, to := stripAB(a), stripAB(b)
	p.cur.Path = from
	if to != "" && to != from {
		p.cur.Op, p.cur.To = PatchMove, to
	}
}

// oldHeader reads a "--- name" line that a "+++ " line follows; it starts a new file unless it
// belongs to the one a "diff --git" line opened.
func (p *unifiedParser) oldHeader(name string) {
	if p.cur != nil && (p.h != nil || p.oldName != "") {
		p.flush()
	}
	p.start()
	p.oldName = name
	if name == "/dev/null" {
		p.cur.Op = PatchAdd
	} else {
		p.cur.Path = stripAB(name)
	}
}

// fileLine reads one line of a file's extended headers or a hunk header.
func (p *unifiedParser) fileLine(line string) {
	if name, ok := strings.CutPrefix(line, "rename from "); ok && name != "" {
		p.cur.Path = unquote(name)
		return
	}
	if name, ok := strings.CutPrefix(line, "rename to "); ok && name != "" {
		p.cur.To = unquote(name)
		p.cur.Op = PatchMove
		return
	}
	switch {
	case strings.HasPrefix(line, "+++ "):
		p.newHeader(headerName(line[4:]))
	case strings.HasPrefix(line, "new file mode"):
		p.cur.Op = PatchAdd
	case strings.HasPrefix(line, "deleted file mode"):
		p.cur.Op = PatchDelete
	case strings.HasPrefix(line, "@@"):
		p.closeHunk()
		p.h = &Hunk{}
		p.remOld, p.remNew = hunkCounts(line)
	}
}

// newHeader reads a "+++ name" line.
func (p *unifiedParser) newHeader(name string) {
	to := stripAB(name)
	switch {
	case name == "":
	case name == "/dev/null":
		p.cur.Op = PatchDelete
	case p.cur.Op == PatchAdd:
		p.cur.Path = to
	case to != p.cur.Path && p.cur.Path != "":
		p.cur.Op, p.cur.To = PatchMove, to
	}
	if p.cur.Path == "" {
		p.cur.Path = to
	}
}

// hunkCounts reads "@@ -a,b +c,d @@"; -1 when absent, and then the hunk runs until the next
// header.
func hunkCounts(line string) (int, int) {
	f := strings.Fields(line)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return -1, -1
	}
	count := func(s string) int {
		_, n, ok := strings.Cut(s[1:], ",")
		if !ok {
			if _, err := strconv.Atoi(s[1:]); err != nil {
				return -1
			}
			return 1
		}
		v, err := strconv.Atoi(n)
		if err != nil || v < 0 {
			return -1
		}
		return v
	}
	o, n := count(f[1]), count(f[2])
	if o < 0 || n < 0 {
		return -1, -1
	}
	return o, n
}

// headerName drops a "\t<timestamp>" suffix and quotes.
func headerName(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return unquote(strings.TrimSpace(s))
}

func stripAB(p string) string {
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		return p[2:]
	}
	return p
}

// splitGitHeader splits "a/x b/y" (possibly quoted) into its two names. Unquoted names with
// spaces are ambiguous; the split at " b/" is what git itself guesses.
func splitGitHeader(s string) (string, string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		if end := closingQuote(s); end > 0 {
			return unquote(s[:end+1]), unquote(strings.TrimSpace(s[end+1:]))
		}
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return s[:i], unquote(s[i+1:])
	}
	if a, b, ok := strings.Cut(s, " "); ok {
		return a, unquote(b)
	}
	return s, s
}

func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
		return s[1 : len(s)-1]
	}
	return s
}

// Apply applies f's hunks to old and returns the new text; ok is false when a hunk's old lines
// are not found (exactly, or ignoring trailing white space as apply_patch does).
func (f PatchFile) Apply(old string) (string, bool) {
	switch f.Op {
	case PatchAdd:
		return f.Added, true
	case PatchDelete:
		return "", true
	}
	lines := strings.Split(old, "\n")
	pos := 0
	for _, h := range f.Hunks {
		ops, oldLines, newLines := trimBlankContext(h)
		if len(oldLines) == 0 {
			// pure insertion without context: apply_patch appends at the end
			tail := lines
			if n := len(tail); n > 0 && tail[n-1] == "" {
				lines = append(append(tail[:n-1:n-1], newLines...), "")
			} else {
				lines = append(tail, newLines...)
			}
			continue
		}
		at := findLines(lines, oldLines, pos, false)
		if at < 0 {
			at = findLines(lines, oldLines, pos, true)
		}
		if at < 0 {
			return "", false
		}
		next := make([]string, 0, len(lines)-len(oldLines)+len(newLines))
		next = append(next, lines[:at]...)
		fi, ni := at, 0
		for _, op := range ops {
			switch op {
			case ' ':
				next = append(next, lines[fi]) // the file's spelling, not the patch's
				fi++
				ni++
			case '-':
				fi++
			case '+':
				next = append(next, newLines[ni])
				ni++
			}
		}
		pos = len(next)
		next = append(next, lines[fi:]...)
		lines = next
	}
	return strings.Join(lines, "\n"), true
}

// trimBlankContext drops blank context lines at a hunk's end: they are usually the artefact of
// a trailing newline in the patch text, not real blank lines, and requiring them would fail
// good patches. A Hunk built by hand (no ops) counts as all-removed, then all-added.
func trimBlankContext(h Hunk) ([]byte, []string, []string) {
	ops := h.ops
	if len(ops) != len(h.Old)+len(h.New)-countOps(ops, ' ') {
		ops = make([]byte, 0, len(h.Old)+len(h.New))
		for range h.Old {
			ops = append(ops, '-')
		}
		for range h.New {
			ops = append(ops, '+')
		}
	}
	oldL, newL := h.Old, h.New
	for len(ops) > 0 && ops[len(ops)-1] == ' ' && oldL[len(oldL)-1] == "" {
		ops = ops[:len(ops)-1]
		oldL, newL = oldL[:len(oldL)-1], newL[:len(newL)-1]
	}
	return ops, oldL, newL
}

func countOps(ops []byte, c byte) int {
	n := 0
	for _, o := range ops {
		if o == c {
			n++
		}
	}
	return n
}

func findLines(lines, want []string, from int, loose bool) int {
	for i := from; i+len(want) <= len(lines); i++ {
		if matchAt(lines, want, i, loose) {
			return i
		}
	}
	for i := 0; i < from && i+len(want) <= len(lines); i++ {
		if matchAt(lines, want, i, loose) {
			return i
		}
	}
	return -1
}

func matchAt(lines, want []string, i int, loose bool) bool {
	for j, w := range want {
		l := lines[i+j]
		if loose {
			l, w = strings.TrimRight(l, " \t\r"), strings.TrimRight(w, " \t\r")
		}
		if l != w {
			return false
		}
	}
	return true
}
