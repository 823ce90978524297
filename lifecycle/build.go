package lifecycle

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/templates"
)

// legacyInputs are the old entry files' bytes as committed (nil when absent) and their names
// (brief.md or projectbrief.md, active.md or activeContext.md, _index.md).
type legacyInputs struct {
	Brief, Active, Index             []byte
	BriefName, ActiveName, IndexName string
	Decisions                        []decisionSource
	// Memory is an unmarked MEMORY.md found beside the older files (nil when there was none):
	// it becomes the USER_BLOCK byte for byte, or goes to legacy.md verbatim when Active has a
	// user block of its own.
	Memory []byte
}

// decisionSource is a moved file whose headings summarise the decisions in MEMORY.md.
type decisionSource struct {
	Rel string // under memory-bank/, e.g. details/patterns.md
	B   []byte
}

var (
	atxRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(#{1,2})(\s+\S.*|\s*)$`) })
	bomUTF = []byte("\ufeff")
)

// split separates a file into the text an agent maintained (everything outside the USER_BLOCK,
// marker lines dropped) and the raw USER_BLOCK bytes. ok is false when the markers are
// malformed: then the whole file is body and must be kept verbatim in a fence.
func split(b []byte) (body string, user []byte, hasUser, ok bool) {
	b = bytes.TrimPrefix(b, bomUTF)
	blocks, ok := bank.ParseBlocks(b)
	if !ok {
		return string(b), nil, false, false
	}
	var rest []byte
	if blocks.HasUser {
		user = b[blocks.User.Start:blocks.User.End]
		us := blocks.User.Start - len(bank.UserStart.String())
		ue := blocks.User.End + len(bank.UserEnd.String())
		rest = append(append(append(rest, b[:us]...), '\n'), b[ue:]...)
	} else {
		rest = b
	}
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(string(rest), "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(l)
		if t == bank.MachineStart.String() || t == bank.MachineEnd.String() {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n"), user, blocks.HasUser, true
}

// demote turns level-1 and level-2 headings into level-3 ones so imported text nests under
// MEMORY.md's own "## " sections; the heading text is kept as it was.
func demote(s string) string {
	lines := strings.Split(s, "\n")
	fence := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && atxRe().MatchString(l) {
			lines[i] = "###" + strings.TrimLeft(l, "#")
		}
	}
	return strings.Join(lines, "\n")
}

func trimBlank(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// fenced keeps text verbatim and inert (markers inside a fence are text to the bank parser).
func fenced(s string) string { return fencedAs(s, "text") }

func fencedAs(s, lang string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + lang + "\n" + s + "\n" + f
}

// frontKeyRe is a line of a front matter: a key, a continuation (indented or a list item) or a
// comment.
var frontKeyRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*\s*:|\s|- |#)`) })

// frontMatter splits a YAML front matter off b (Cursor rules open with one: description, globs,
// alwaysApply): the lines from a first "---" to the closing "---", when every line between
// reads as YAML keys. fm is "" when b has none; a "---" rule that opens a Markdown file is not
// mistaken for one.
func frontMatter(b []byte) (fm string, rest []byte) {
	b = bytes.TrimPrefix(b, bomUTF)
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) < 2 || strings.TrimRight(lines[0], "\r\n") != "---" {
		return "", b
	}
	n := len(lines[0])
	for i := 1; i < len(lines) && i < 60; i++ {
		l := strings.TrimRight(lines[i], "\r\n")
		n += len(lines[i])
		if l == "---" || l == "..." {
			return strings.TrimRight(string(b[:n]), "\r\n"), b[n:]
		}
		if strings.TrimSpace(l) != "" && !frontKeyRe().MatchString(l) {
			return "", b
		}
	}
	return "", b
}

// buildMemory makes MEMORY.md and legacy.md from the legacy entry files, losing no non-blank
// line: brief → Project Snapshot, active → Current Focus (its USER_BLOCK byte-identical into
// MEMORY.md's), patterns' headings → Decision Highlights (patterns.md itself moves to details/),
// and everything else — _index.md's topic routing, other user blocks, files with broken
// markers — into legacy.md. legacy is nil when nothing needed it.
func buildMemory(in legacyInputs) (memory, legacy []byte, err error) {
	mb := &memoryBuild{in: in}
	snapshot := mb.section(in.BriefName, in.Brief)
	focus := mb.section(in.ActiveName, in.Active)
	mb.index()
	userRaw, crlf, oldMemory := mb.userBlock()
	if snapshot == "" {
		snapshot = "- (what the project is, who it is for, and what it must never break)"
	}
	if focus == "" {
		focus = "- (nothing recorded yet: write the task in hand, what is done and what is next)"
	}
	head := withLineEnds(mb.head(snapshot, focus, oldMemory), crlf)
	tail := withLineEnds(bank.UserEnd.String()+"\n", crlf)
	memory = append(append([]byte(head), userRaw...), tail...)
	if mb.err != nil {
		return nil, nil, mb.err
	}
	if got, ok := bank.UserBlock(memory); (!ok || !bytes.Equal(got, userRaw)) && in.Memory != nil {
		return nil, nil, fmt.Errorf("%s ends inside an unclosed code fence or inline code span, which would swallow the USER_BLOCK_END marker: close it, commit, then run mbguard migrate again (nothing changed)", bank.Entry)
	} else if !ok || !bytes.Equal(got, userRaw) {
		return nil, nil, fmt.Errorf("building MEMORY.md: the user block would not survive intact (a bug; nothing changed)")
	}
	if len(mb.leg) > 0 {
		legacy = mb.legacyFile(oldMemory != "" && !bytes.Equal(userRaw[min(1, len(userRaw)):], in.Memory))
	}
	return memory, legacy, nil
}

// memoryBuild gathers what buildMemory takes from the old files: legacy.md's sections, the
// entry files' front matter, and the first error of a template section.
type memoryBuild struct {
	in     legacyInputs
	leg    []string
	fronts []string
	err    error
}

func (mb *memoryBuild) addLegacy(title, text string) {
	if text = trimBlank(text); text != "" {
		mb.leg = append(mb.leg, "## "+title+"\n\n"+text)
	}
}

// section is the text an entry file gives its section of MEMORY.md; its front matter, user
// block (but the active file's) or malformed text go elsewhere.
func (mb *memoryBuild) section(name string, b []byte) string {
	if b == nil {
		return ""
	}
	if fm, rest := frontMatter(b); fm != "" {
		// A Cursor rule's settings are the user's, not the agent's: they go to the
		// USER_BLOCK (or legacy.md when that block comes from elsewhere), not the section.
		mb.fronts = append(mb.fronts, "From "+name+":\n\n"+fencedAs(fm, "yaml"))
		b = rest
	}
	body, user, hasUser, ok := split(b)
	if !ok {
		mb.addLegacy(name+" (its block markers were malformed; kept verbatim)", fenced(trimBlank(body)))
		return ""
	}
	if hasUser && name != mb.in.ActiveName {
		mb.addLegacy("From "+name+" (its user block)", string(user))
	}
	return trimBlank(demote(body))
}

// index keeps the index file's topic routing, and its user block, in legacy.md.
func (mb *memoryBuild) index() {
	in := mb.in
	if in.Index == nil {
		return
	}
	body, user, hasUser, ok := split(in.Index)
	if !ok {
		mb.addLegacy("Legacy Routing (Topic), from "+in.IndexName+" (malformed markers; kept verbatim)", fenced(trimBlank(body)))
		return
	}
	mb.addLegacy("Legacy Routing (Topic), from "+in.IndexName, demote(body))
	if hasUser {
		mb.addLegacy("From "+in.IndexName+" (its user block)", string(user))
	}
}

// userBlock is the new USER_BLOCK's bytes: the active file's user block, else the unmarked
// MEMORY.md, else a Notes stub (with the front matter). crlf says whether the active file
// uses CRLF line ends; oldMemory is the note on where the old MEMORY.md went.
func (mb *memoryBuild) userBlock() (userRaw []byte, crlf bool, oldMemory string) {
	in := mb.in
	if in.Active != nil {
		a := bytes.TrimPrefix(in.Active, bomUTF)
		crlf = usesCRLF(a)
		if _, u, has, ok := split(a); ok && has {
			userRaw = u
		}
	}
	if in.Memory != nil {
		body := bytes.TrimPrefix(in.Memory, bomUTF)
		if sc := bank.ScanMarkers(body); len(sc.Templates) > 0 {
			body = dropTemplateMarks(body, sc.Templates) // the new file has its own
		}
		switch {
		case userRaw != nil:
			mb.addLegacy("From MEMORY.md (it had no block markers; kept verbatim)", fenced(trimBlank(string(body))))
			oldMemory = "The MEMORY.md that was here before is kept in legacy.md.\n\n"
		default:
			userRaw = append([]byte("\n"), body...)
			if len(body) > 0 && body[len(body)-1] != '\n' {
				userRaw = append(userRaw, '\n') // the end marker needs a line of its own
			}
			oldMemory = "The USER_BLOCK below holds the MEMORY.md that was here before, byte for byte. Agents do\nnot change it: move what should be maintained into the sections above.\n\n"
		}
	}
	switch {
	case userRaw == nil && len(mb.fronts) > 0:
		userRaw = []byte("\n## Notes\n\n(Yours to edit. Agents never change this block.)\n\n## Front matter of the old entry files\n\n" +
			"Kept verbatim by mbguard migrate. It described the old files (for a Cursor rule: when Cursor\napplied it) and means nothing to MEMORY.md, which is no Cursor rule:\n\n" +
			strings.Join(mb.fronts, "\n\n") + "\n")
	case userRaw == nil:
		userRaw = []byte("\n## Notes\n\n(Yours to edit. Agents never change this block.)\n")
	default:
		for _, f := range mb.fronts {
			name, text, _ := strings.Cut(f, ":\n\n")
			mb.addLegacy("Front matter "+strings.ToLower(name[:1])+name[1:], text)
		}
	}
	return userRaw, crlf, oldMemory
}

// fixed is the template's section under heading h; the first error is kept for the end.
func (mb *memoryBuild) fixed(h string) string {
	s, e := templates.Section(h)
	if e != nil && mb.err == nil {
		mb.err = e
	}
	return s
}

// decisions is the Decision Highlights section: the headings of the decision files, else the
// template's.
func (mb *memoryBuild) decisions() string {
	decisions := mb.fixed(templates.DecisionsHeading)
	var hs, where []string
	for _, d := range mb.in.Decisions {
		if h := decisionHeadings(d.B); len(h) > 0 && len(hs) < 20 {
			hs = append(hs, h[:min(len(h), 20-len(hs))]...)
			where = append(where, d.Rel)
		}
	}
	if len(hs) == 0 {
		return decisions
	}
	them := "it"
	if len(where) > 1 {
		them = "them"
	}
	return templates.DecisionsHeading + "\n\nRecorded in " + strings.Join(where, " and ") + " (read " + them + " for the why):\n\n- " + strings.Join(hs, "\n- ") + "\n"
}

// head is MEMORY.md up to and with USER_BLOCK_START, with "\n" line ends.
func (mb *memoryBuild) head(snapshot, focus, oldMemory string) string {
	var b strings.Builder
	b.WriteString("# Project Memory\n\n")
	b.WriteString(bank.MachineStart.String() + "\n" + bank.TemplateMarker(bank.CurrentTemplate) + "\n\n")
	b.WriteString(templates.SnapshotHeading + "\n\n" + snapshot + "\n\n")
	b.WriteString(templates.FocusHeading + "\n\n" + focus + "\n\n")
	b.WriteString(mb.decisions() + "\n")
	for _, h := range []string{templates.RoutingHeading, templates.DrillHeading, templates.SafetyHeading, templates.AnswersHeading} {
		b.WriteString(mb.fixed(h) + "\n")
	}
	if len(mb.leg) > 0 {
		b.WriteString("Older notes that had no place here are kept in legacy.md.\n\n")
	}
	b.WriteString(oldMemory)
	b.WriteString(bank.MachineEnd.String() + "\n\n" + bank.UserStart.String())
	return b.String()
}

// legacyFile is legacy.md; withMemory names MEMORY.md among its sources.
func (mb *memoryBuild) legacyFile(withMemory bool) []byte {
	var names []string
	legNames := []string{mb.in.IndexName, mb.in.BriefName, mb.in.ActiveName}
	if withMemory {
		legNames = append(legNames, "MEMORY.md")
	}
	for _, n := range legNames {
		if n != "" && n != "." {
			names = append(names, n)
		}
	}
	return []byte("# Legacy memory\n\nText from the old entry files (" + strings.Join(names, ", ") + ") that has no place in\nthe v7.1 layout, kept verbatim by mbguard migrate. Move what still matters into MEMORY.md or\ndetails/, then delete this file.\n\n" + strings.Join(mb.leg, "\n\n") + "\n")
}

// decisionHeadings lists the section headings of patterns.md (at most 20) as the summary.
func decisionHeadings(b []byte) []string {
	if b == nil {
		return nil
	}
	// Roo Code's decision log gives every decision the parts "### Decision", "### Rationale",
	// "### Implementation Details", and its empty template has them once, over a lone "*": a
	// heading that recurs, or whose section holds no words, is a part label, not a decision
	// (auto-quote-system listed "Decision" three times; miniimagecompressor only the labels).
	var hs []sectionHeading
	count := map[string]int{}
	fence := false
	for _, l := range strings.Split(string(bytes.TrimPrefix(b, bomUTF)), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence {
			h, ok := levelTwoOrThree(t)
			if ok {
				hs = append(hs, sectionHeading{text: h})
				count[strings.ToLower(h)]++
			}
			if ok || strings.HasPrefix(t, "#") {
				continue
			}
		}
		if len(hs) > 0 && strings.ContainsFunc(t, unicode.IsLetter) {
			hs[len(hs)-1].words = true
		}
	}
	return decisionsOf(hs, count)
}

// sectionHeading is a heading of a decision file, and whether its section holds words.
type sectionHeading struct {
	text  string
	words bool
}

// levelTwoOrThree is the text of a "## " or "### " heading line t.
func levelTwoOrThree(t string) (string, bool) {
	for _, p := range []string{"## ", "### "} {
		if h, ok := strings.CutPrefix(t, p); ok && strings.TrimSpace(h) != "" {
			return strings.TrimSpace(h), true
		}
	}
	return "", false
}

// decisionsOf keeps the first 20 headings that name a decision: not recurring (count, by lower
// case), with words in their section or their subheadings'.
func decisionsOf(hs []sectionHeading, count map[string]int) []string {
	var out []string
	for i, h := range hs {
		// a heading with subheadings holds its words in them
		words := h.words || i+1 < len(hs) && hs[i+1].words && !h.words && count[strings.ToLower(hs[i+1].text)] > 1
		if count[strings.ToLower(h.text)] > 1 || !words || len(out) == 20 {
			continue
		}
		out = append(out, h.text)
	}
	return out
}

// wrapUnmarked makes a v7.1 MEMORY.md of one without any block markers: the old text becomes the
// USER_BLOCK byte for byte (a leading BOM stays at the head of the file), after a machine block
// with the template version and the fixed sections. The user block is the one place the guard
// keeps byte-identical, so nothing the user wrote can be lost to an agent afterwards; moving what
// agents should maintain into the machine sections is left to the user. The one exception is an
// old template version marker in the text (a v7.0-era file): it is mbguard's, not the user's, and
// two of them would be a template-duplicate finding, so it is removed (its line too, when the line
// holds nothing else) and the new marker takes its place after MACHINE_BLOCK_START. dropped counts
// the markers removed.
func wrapUnmarked(old []byte) (out []byte, dropped int, err error) {
	if old == nil {
		return nil, 0, fmt.Errorf("reading %s: it is gone (run mbguard migrate --rollback)", bank.Entry)
	}
	sc := bank.ScanMarkers(old)
	if len(sc.Markers) > 0 {
		return nil, 0, fmt.Errorf("%s has block markers already: run mbguard upgrade", bank.Entry)
	}
	body := bytes.TrimPrefix(old, bomUTF)
	bom := old[:len(old)-len(body)]
	if len(sc.Templates) > 0 {
		body = dropTemplateMarks(old, sc.Templates)[len(bom):]
		dropped = len(sc.Templates)
	}
	crlf := usesCRLF(body)
	var b strings.Builder
	b.WriteString("# Project Memory\n\n")
	b.WriteString(bank.MachineStart.String() + "\n" + bank.TemplateMarker(bank.CurrentTemplate) + "\n\n")
	for _, h := range fixedSections {
		sec, err := templates.Section(h)
		if err != nil {
			return nil, 0, err
		}
		b.WriteString(sec + "\n")
	}
	b.WriteString("The USER_BLOCK below holds this file as it was before mbguard added the block markers, byte\nfor byte. Agents do not change it: move what should be maintained into the sections above.\n\n")
	b.WriteString(bank.MachineEnd.String() + "\n\n" + bank.UserStart.String() + "\n")
	head := b.String()
	tail := bank.UserEnd.String() + "\n"
	if len(body) > 0 && body[len(body)-1] != '\n' {
		tail = "\n" + tail // the end marker needs a line of its own
	}
	head, tail = withLineEnds(head, crlf), withLineEnds(tail, crlf)
	out = append(append(append(append([]byte(nil), bom...), head...), body...), tail...)
	sc2 := bank.ScanMarkers(out)
	if _, ok := bank.ParseBlocks(out); !ok || len(sc2.Markers) != 4 || len(sc2.Templates) != 1 || !bytes.Contains(out, body) {
		return nil, 0, fmt.Errorf("%s ends inside an unclosed code fence or inline code span, which would swallow the USER_BLOCK_END marker: close it, then run mbguard upgrade again (nothing changed)", bank.Entry)
	}
	return out, dropped, nil
}

// dropTemplateMarks removes template version markers from b: the whole line when it holds
// nothing else, else just the marker.
func dropTemplateMarks(b []byte, marks []bank.TemplateMark) []byte {
	lines := lineStarts(b)
	out := append([]byte(nil), b...)
	for i := len(marks) - 1; i >= 0; i-- {
		at, end := markSpan(b, lines, marks[i].Line)
		out = append(out[:at], out[end:]...)
	}
	return out
}
