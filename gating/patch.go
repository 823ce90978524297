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

func parseCodexPatch(text string) []PatchFile {
	var files []PatchFile
	var cur *PatchFile
	var h *Hunk
	var added strings.Builder
	flush := func() {
		if cur == nil {
			return
		}
		if h != nil && (len(h.Old) > 0 || len(h.New) > 0) {
			cur.Hunks = append(cur.Hunks, *h)
		}
		cur.Added = added.String()
		if cur.Path != "" {
			files = append(files, *cur)
		}
		cur, h = nil, nil
		added.Reset()
	}
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "*** ") {
			// an indented header is still a header to a lenient applier
			directive := strings.TrimRight(t, " \t")
			if p, ok := cutHeader(directive, "*** Add File:"); ok {
				flush()
				cur = &PatchFile{Op: PatchAdd, Path: p}
				continue
			}
			if p, ok := cutHeader(directive, "*** Update File:"); ok {
				flush()
				cur = &PatchFile{Op: PatchUpdate, Path: p}
				h = &Hunk{}
				continue
			}
			if p, ok := cutHeader(directive, "*** Delete File:"); ok {
				flush()
				cur = &PatchFile{Op: PatchDelete, Path: p}
				continue
			}
			if p, ok := cutHeader(directive, "*** Move to:"); ok {
				// only an update can move; "Move to" after an add or delete is noise
				if cur != nil && p != "" && (cur.Op == PatchUpdate || cur.Op == PatchMove) {
					cur.Op, cur.To = PatchMove, p
				}
				continue
			}
			if directive == "*** End Patch" || directive == "*** Begin Patch" {
				flush()
				continue
			}
			if directive == "*** End of File" {
				continue
			}
		}
		if cur == nil {
			continue
		}
		switch cur.Op {
		case PatchAdd:
			if strings.HasPrefix(line, "+") {
				added.WriteString(line[1:])
				added.WriteByte('\n')
			}
		case PatchUpdate, PatchMove:
			if h == nil {
				h = &Hunk{}
			}
			if strings.HasPrefix(line, "@@") {
				if len(h.Old) > 0 || len(h.New) > 0 {
					cur.Hunks = append(cur.Hunks, *h)
				}
				h = &Hunk{}
				continue
			}
			hunkLine(h, &added, line)
		}
	}
	flush()
	return files
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
	var files []PatchFile
	var cur *PatchFile
	var h *Hunk
	var added strings.Builder
	var oldName, newName string
	// remaining counts of old/new lines in the current hunk; -1 when the header had none
	remOld, remNew := -1, -1
	flush := func() {
		if cur == nil {
			return
		}
		if h != nil && (len(h.Old) > 0 || len(h.New) > 0) {
			cur.Hunks = append(cur.Hunks, *h)
		}
		cur.Added = added.String()
		if cur.Path == "" {
			cur.Path = cur.To
		}
		if cur.Op == PatchMove && (cur.To == "" || cur.To == cur.Path) {
			cur.Op, cur.To = PatchUpdate, ""
		}
		if cur.Path != "" {
			files = append(files, *cur)
		}
		cur, h = nil, nil
		added.Reset()
		oldName, newName = "", ""
	}
	start := func() {
		if cur == nil {
			cur = &PatchFile{Op: PatchUpdate}
		}
	}
	inHunk := func() bool { return h != nil && (remOld > 0 || remNew > 0 || remOld < 0) }
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if inHunk() && (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-") || strings.HasPrefix(line, " ") || strings.HasPrefix(line, `\`)) &&
			!(remOld < 0 && (strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ "))) {
			if strings.HasPrefix(line, `\`) { // "\ No newline at end of file"
				continue
			}
			hunkLine(h, &added, line)
			switch line[0] {
			case '+':
				remNew--
			case '-':
				remOld--
			default:
				remOld--
				remNew--
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			start()
			a, b := splitGitHeader(line[len("diff --git "):])
			cur.Path, newName = stripAB(a), stripAB(b)
			if newName != "" && newName != cur.Path {
				cur.Op, cur.To = PatchMove, newName
			}
		case strings.HasPrefix(line, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			name := headerName(line[4:])
			if cur != nil && (h != nil || oldName != "") {
				flush()
			}
			start()
			oldName = name
			if name == "/dev/null" {
				cur.Op = PatchAdd
			} else {
				cur.Path = stripAB(name)
			}
		case strings.HasPrefix(line, "+++ ") && cur != nil:
			newName = headerName(line[4:])
			switch {
			case newName == "":
			case newName == "/dev/null":
				cur.Op = PatchDelete
			case cur.Op == PatchAdd:
				cur.Path = stripAB(newName)
			case stripAB(newName) != cur.Path && cur.Path != "":
				cur.Op, cur.To = PatchMove, stripAB(newName)
			}
			if cur.Path == "" {
				cur.Path = stripAB(newName)
			}
		case strings.HasPrefix(line, "rename from ") && cur != nil && len(line) > len("rename from "):
			cur.Path = unquote(strings.TrimPrefix(line, "rename from "))
		case strings.HasPrefix(line, "rename to ") && cur != nil && len(line) > len("rename to "):
			cur.To = unquote(strings.TrimPrefix(line, "rename to "))
			cur.Op = PatchMove
		case strings.HasPrefix(line, "new file mode") && cur != nil:
			cur.Op = PatchAdd
		case strings.HasPrefix(line, "deleted file mode") && cur != nil:
			cur.Op = PatchDelete
		case strings.HasPrefix(line, "@@") && cur != nil:
			if h != nil && (len(h.Old) > 0 || len(h.New) > 0) {
				cur.Hunks = append(cur.Hunks, *h)
			}
			h = &Hunk{}
			remOld, remNew = hunkCounts(line)
		}
	}
	flush()
	return files
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
