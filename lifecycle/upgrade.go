package lifecycle

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/templates"
)

// WriteFunc writes a whole file; tests inject a failing one to simulate a full disk.
type WriteFunc func(name string, data []byte, perm os.FileMode) error

// UpgradeOptions configures Upgrade.
type UpgradeOptions struct {
	Root     string // repository root
	StateDir string // repo.StateDir(): backups go to StateDir/backups, never into memory-bank/
	NoBackup bool
	Now      func() time.Time // backup names; time.Now when nil
	Write    WriteFunc        // fsutil.WriteFileAtomic when nil
}

// UpgradeResult says what Upgrade did; Changed is false on a no-op.
type UpgradeResult struct {
	Path    string   // memory-bank/MEMORY.md
	From    string   // the version found, or "no marker"
	Actions []string // one line per change, for the plan and the report
	Backup  string   // absolute path of the backup, when one was written
	Changed bool
}

// fixedSections are MEMORY.md's sections in template order; Upgrade appends the missing ones.
var fixedSections = []string{
	templates.SnapshotHeading, templates.FocusHeading, templates.DecisionsHeading,
	templates.RoutingHeading, templates.DrillHeading, templates.SafetyHeading, templates.AnswersHeading,
}

// legacyRoutingNote heads the new routing section when an older plain one stays above it.
const legacyRoutingNote = "> The plain \"## Routing Rules\" section above is legacy; where the two differ, this intent-driven section wins."

// Upgrade brings memory-bank/MEMORY.md to the current template in place, append-only: it sets
// or inserts the version marker on the line after MACHINE_BLOCK_START and appends the missing
// fixed sections before MACHINE_BLOCK_END; the USER_BLOCK stays byte-identical. A MEMORY.md with
// no block markers at all gets them around its text, which becomes the USER_BLOCK byte for byte
// (see wrapUnmarked). It changes nothing and returns an error when only some of the four block
// markers are present, or they are malformed.
func Upgrade(o UpgradeOptions) (UpgradeResult, error) {
	res := UpgradeResult{Path: bank.Entry}
	p := filepath.Join(o.Root, filepath.FromSlash(bank.Entry))
	layout, err := DetectLayout(filepath.Join(o.Root, bank.Dir))
	if err != nil {
		return res, err
	}
	switch layout {
	case bank.LayoutLegacy, bank.LayoutMixed:
		return res, ErrLegacy
	case bank.LayoutNone, bank.LayoutEmpty:
		if why := bankElsewhere(o.Root); why != "" {
			return res, errors.New(why)
		}
		return res, errors.New("no memory-bank/MEMORY.md: run mbguard init")
	}
	fi, old, err := readEntry(p)
	if err != nil {
		return res, err
	}
	next, from, actions, err := upgradeContent(old)
	res.From, res.Actions = from, actions
	if err != nil || bytes.Equal(next, old) {
		return res, err
	}
	write := o.Write
	if write == nil {
		write = fsutil.WriteFileAtomic
	}
	if !o.NoBackup {
		now := time.Now
		if o.Now != nil {
			now = o.Now
		}
		dir := filepath.Join(o.StateDir, "backups")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return res, fmt.Errorf("creating the backup folder: %w", err)
		}
		res.Backup = filepath.Join(dir, "MEMORY.md."+now().UTC().Format("20060102T150405.000000000Z")+".bak")
		if err := write(res.Backup, old, 0o600); err != nil {
			return res, fmt.Errorf("backing up %s (nothing changed; free space or use --no-backup): %w", bank.Entry, err)
		}
	}
	if err := write(p, next, fi.Mode().Perm()); err != nil {
		return res, fmt.Errorf("%w (%s is unchanged)", err, bank.Entry)
	}
	res.Changed = true
	return res, nil
}

// readEntry reads MEMORY.md at p, which must be a regular file.
func readEntry(p string) (os.FileInfo, []byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", bank.Entry, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file (a symlink?): replace it with the file itself, then run mbguard upgrade", bank.Entry)
	}
	old, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", bank.Entry, err)
	}
	return fi, old, nil
}

// upgradeContent computes the upgraded file; it is pure so the plan and the write agree.
func upgradeContent(old []byte) (next []byte, from string, actions []string, err error) {
	sc := bank.ScanMarkers(old)
	if len(sc.Markers) == 0 {
		return upgradeUnmarked(old, sc)
	}
	start, end, blocks, err := checkBlocks(old, sc)
	if err != nil {
		return old, "", nil, err
	}
	onNext, others, from := templateMarks(sc, start)
	if onNext != nil && onNext.Valid && bank.CurrentTemplate.Less(onNext.Version) {
		return old, from, nil, nil // newer than this binary: never downgrade
	}
	u := upgrade{old: old, lines: lineStarts(old), crlf: usesCRLF(old)}
	// 1. sections, appended before MACHINE_BLOCK_END
	// A bank at the current version is the user's to shape: its sections are never second-guessed.
	// Older ones are matched by meaning, so a heading in another language or with a note after it
	// ("(Still Binding)", "（意图驱动）") is not appended a second time.
	if onNext == nil || !onNext.Valid || onNext.Version != bank.CurrentTemplate {
		if err := u.appendSections(string(old[blocks.Machine.Start:blocks.Machine.End]), end); err != nil {
			return old, from, nil, err
		}
	}
	// 2. the version marker on the line after MACHINE_BLOCK_START
	u.setMarker(onNext, start, from)
	u.dropStray(others, blocks)
	if len(u.edits) == 0 {
		return old, from, nil, nil
	}
	out := applyEdits(old, u.edits)
	if u1, ok1 := bank.UserBlock(old); ok1 {
		if u2, ok2 := bank.UserBlock(out); !ok2 || !bytes.Equal(u1, u2) {
			return old, from, nil, errors.New("upgrade would change the USER_BLOCK (a bug): nothing changed; please report it")
		}
	}
	return out, from, u.actions, nil
}

// upgradeUnmarked upgrades a file with no markers at all: the old text becomes the
// USER_BLOCK, byte for byte.
func upgradeUnmarked(old []byte, sc bank.Scan) (next []byte, from string, actions []string, err error) {
	from = "no markers"
	if len(sc.Templates) > 0 && sc.Templates[0].Valid {
		from = sc.Templates[0].Version.String() + " without block markers"
	}
	next, dropped, err := wrapUnmarked(old)
	if err != nil {
		return old, from, nil, err
	}
	actions = []string{"add the four block markers: the old text is kept byte for byte as the USER_BLOCK"}
	if dropped > 0 {
		actions = append(actions, "move the old template marker out of the text: "+bank.TemplateMarker(bank.CurrentTemplate)+" now follows MACHINE_BLOCK_START")
	} else {
		actions = append(actions, "insert "+bank.TemplateMarker(bank.CurrentTemplate)+" after MACHINE_BLOCK_START")
	}
	for _, h := range fixedSections {
		actions = append(actions, "add "+h)
	}
	return next, from, actions, nil
}

// checkBlocks wants all four block markers, well formed, and returns the machine block's
// markers and the blocks.
func checkBlocks(old []byte, sc bank.Scan) (start, end bank.Marker, blocks bank.Blocks, err error) {
	var count [4]int
	for _, m := range sc.Markers {
		count[m.Kind]++
		switch m.Kind {
		case bank.MachineStart:
			start = m
		case bank.MachineEnd:
			end = m
		}
	}
	for k := bank.MachineStart; k <= bank.UserEnd; k++ {
		if count[k] == 0 {
			return start, end, blocks, fmt.Errorf("%s has no %s: restore the four block markers by hand, then run mbguard upgrade (nothing changed)", bank.Entry, k)
		}
	}
	blocks, ok := bank.ParseBlocks(old)
	if !ok {
		return start, end, blocks, fmt.Errorf("%s has malformed block markers (duplicated, out of order or nested): run mbguard check %s and fix them, then run mbguard upgrade (nothing changed)", bank.Entry, bank.Entry)
	}
	return start, end, blocks, nil
}

// templateMarks splits the template markers into the one on the line after
// MACHINE_BLOCK_START (nil when none) and the others, and says which version the file is at.
func templateMarks(sc bank.Scan, start bank.Marker) (onNext *bank.TemplateMark, others []bank.TemplateMark, from string) {
	from = "no marker"
	for i, t := range sc.Templates {
		if t.Line == start.Line+1 {
			onNext = &sc.Templates[i]
		} else {
			others = append(others, t)
		}
	}
	switch {
	case onNext != nil && onNext.Valid:
		from = onNext.Version.String()
	case onNext != nil:
		from = onNext.Raw
	case len(others) > 0:
		from = others[0].Raw
	}
	return onNext, others, from
}

// textEdit replaces old[at:end] with text.
type textEdit struct {
	at, end int
	text    string
}

// upgrade gathers the edits of one upgrade of old and the actions that say them.
type upgrade struct {
	old     []byte
	lines   []int
	crlf    bool
	edits   []textEdit
	actions []string
}

// appendSections appends the template's sections machine does not have before
// MACHINE_BLOCK_END (end).
func (u *upgrade) appendSections(machine string, end bank.Marker) error {
	have := sectionsByMeaning(machine)
	var add strings.Builder
	for _, h := range fixedSections {
		if have[h] {
			continue
		}
		sec, err := templates.Section(h)
		if err != nil {
			return err
		}
		if h == templates.RoutingHeading && have[templates.LegacyRoutingHeading] {
			sec = strings.Replace(sec, h+"\n", h+"\n\n"+legacyRoutingNote+"\n", 1)
			u.actions = append(u.actions, "append "+h+" (the older plain Routing Rules stays; the new one says it wins)")
		} else {
			u.actions = append(u.actions, "append "+h)
		}
		add.WriteString(sec)
		add.WriteString("\n")
	}
	if add.Len() == 0 {
		return nil
	}
	at := end.Offset
	lineStart := u.lines[end.Line-1]
	prefix := ""
	if strings.TrimSpace(string(u.old[lineStart:at])) != "" {
		prefix = nlOf(u.crlf) // the end marker shares a line with text: start ours on a new line
	} else {
		at = lineStart
	}
	before := string(u.old[:at])
	if !strings.HasSuffix(before, "\n\n") && !strings.HasSuffix(before, "\r\n\r\n") && prefix == "" {
		prefix = nlOf(u.crlf)
	}
	u.edits = append(u.edits, textEdit{at, at, withLineEnds(prefix+add.String(), u.crlf)})
	return nil
}

// setMarker sets the current template marker on the line after MACHINE_BLOCK_START: replaces
// the one there (onNext), or inserts one.
func (u *upgrade) setMarker(onNext *bank.TemplateMark, start bank.Marker, from string) {
	marker := bank.TemplateMarker(bank.CurrentTemplate)
	switch {
	case onNext != nil && onNext.Valid && onNext.Version == bank.CurrentTemplate:
	case onNext != nil:
		ls, le := u.lines[onNext.Line-1], lineEnd(u.old, u.lines, onNext.Line)
		text := string(u.old[ls:le])
		i := strings.Index(text, "<!--")
		j := strings.Index(text[i:], "-->") + i + 3
		u.edits = append(u.edits, textEdit{ls + i, ls + j, marker})
		u.actions = append([]string{"set the template marker " + from + " → " + bank.CurrentTemplate.String()}, u.actions...)
	default:
		u.edits = append(u.edits, textEdit{start.End, start.End, nlOf(u.crlf) + marker})
		u.actions = append([]string{"insert " + marker + " after MACHINE_BLOCK_START"}, u.actions...)
	}
}

// dropStray removes the older template marks elsewhere in the machine block, which would be
// duplicates now; the user block is never touched.
func (u *upgrade) dropStray(others []bank.TemplateMark, blocks bank.Blocks) {
	for _, t := range others {
		if u.lines[t.Line-1] < blocks.Machine.Start || lineEnd(u.old, u.lines, t.Line) > blocks.Machine.End {
			continue
		}
		at, end := markSpan(u.old, u.lines, t.Line)
		u.edits = append(u.edits, textEdit{at, end, ""})
		u.actions = append(u.actions, fmt.Sprintf("remove the stray template marker on line %d", t.Line))
	}
}

// applyEdits applies edits to a copy of old, back to front so earlier offsets stay valid.
func applyEdits(old []byte, edits []textEdit) []byte {
	for i := 1; i < len(edits); i++ {
		for j := i; j > 0 && edits[j].at > edits[j-1].at; j-- {
			edits[j], edits[j-1] = edits[j-1], edits[j]
		}
	}
	out := append([]byte(nil), old...)
	for _, e := range edits {
		out = append(out[:e.at], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// lineStarts returns the byte offset of every line's start (line n at index n-1).
func lineStarts(b []byte) []int {
	s := []int{0}
	for i, c := range b {
		if c == '\n' && i+1 <= len(b) {
			s = append(s, i+1)
		}
	}
	return s
}

// lineEnd is the offset of line n's end, before its "\r\n" or "\n".
func lineEnd(b []byte, starts []int, n int) int {
	e := len(b)
	if n < len(starts) {
		e = starts[n] - 1
	}
	if e > 0 && e <= len(b) && e-1 >= starts[n-1] && b[e-1] == '\r' {
		e--
	}
	return e
}
