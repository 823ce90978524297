package stale

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mbguard/mbguard/internal/gitexec"
	"github.com/mbguard/mbguard/scanner"
	"github.com/mbguard/mbguard/templates"
)

// Rule ids of the stale-reference check; scanner.Rules describes them.
const (
	RulePath    = scanner.RuleStalePath
	RuleCommand = scanner.RuleStaleCommand
	RuleSymbol  = scanner.RuleStaleSymbol
)

// Note is one bank file to check.
type Note struct {
	Path    string // repository-relative, with /
	Content []byte
}

// Options are the check's settings.
type Options struct {
	// Severity of every finding; scanner.SeverityWarning unless configured.
	Severity scanner.Severity
	// Since, when set, checks only notes changed since this revision and references to paths
	// (or to Makefiles and package.json files) changed since it.
	Since string
}

// Fix is one rewrite of a renamed path that Apply makes in a note.
type Fix struct {
	Path string `json:"path"` // the note
	Line int    `json:"line"`
	Old  string `json:"old"` // as written in the note
	New  string `json:"new"`
}

// Result is what Check found.
type Result struct {
	Findings []scanner.Finding
	Fixes    []Fix
	// Warnings are for people (stderr): parts of the check that ran without git's history.
	Warnings []string
}

// Check judges the references of notes against the repository at root: the index for what
// exists, the history reachable from HEAD for the evidence.
func Check(ctx context.Context, root string, notes []Note, o Options) (Result, error) {
	if o.Severity == "" {
		o.Severity = scanner.SeverityWarning
	}
	ix, err := buildIndex(ctx, root)
	if err != nil {
		return Result{}, err
	}
	c := &checker{ctx: ctx, root: root, o: o, ix: ix, wantNames: map[Kind]map[string]bool{}, symbolSet: map[string]bool{}}
	if o.Since != "" {
		if c.since, err = changedSince(ctx, root, o.Since); err != nil {
			return c.res, err
		}
	}
	for _, n := range notes {
		c.sortRefs(n)
	}
	// the order of the steps is the order of their warnings
	for _, step := range []func() error{c.judgeCommands, c.judgePaths, c.judgeSymbols} {
		if err := step(); err != nil {
			return c.res, err
		}
	}
	scanner.SortFindings(c.res.Findings)
	sort.Slice(c.res.Fixes, func(i, j int) bool {
		a, b := c.res.Fixes[i], c.res.Fixes[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	return c.res, nil
}

// pending is one reference Check must ask git about.
type pending struct {
	note string
	ref  Ref
	cand []string // repository-relative readings of a path, the note-relative one first
}

// checker holds one Check run: the references sorted by kind, then judged kind by kind.
type checker struct {
	ctx   context.Context
	root  string
	o     Options
	ix    *index
	since *changes
	res   Result

	missing   []pending // paths in no file, folder or module of the tree
	symbols   []pending
	commands  []pending // commands the project's files do not define
	wantNames map[Kind]map[string]bool
	symbolSet map[string]bool
}

func (c *checker) add(note string, line int, rule, fix, format string, a ...any) {
	c.res.Findings = append(c.res.Findings, scanner.Finding{Path: note, Line: line, Rule: rule, Severity: c.o.Severity, Message: fmt.Sprintf(format, a...), Fix: fix})
}

// sortRefs files the live references of one note under the step that judges them, leaving out
// those the tree answers on its own.
func (c *checker) sortRefs(n Note) {
	touched := c.since == nil || c.since.paths[n.Path]
	for _, r := range Extract(n.Content) {
		if r.Historical {
			continue
		}
		switch r.Kind {
		case KindPath:
			cand := candidates(n.Path, r.Name)
			if len(cand) == 0 || c.inTree(cand) || (!touched && !c.since.touches(cand)) {
				continue
			}
			c.missing = append(c.missing, pending{n.Path, r, cand})
		case KindSymbol:
			if !touched {
				continue
			}
			c.symbols = append(c.symbols, pending{note: n.Path, ref: r})
			c.symbolSet[r.Name] = true
		default:
			c.sortCommand(n.Path, r, touched)
		}
	}
}

// sortCommand keeps a command the project's files could define but do not.
func (c *checker) sortCommand(note string, r Ref, touched bool) {
	defined := c.ix.names[r.Kind]
	if defined == nil || defined[r.Name] || (!touched && !c.since.definers[r.Kind]) {
		return // no file of the project defines this kind: not its own command
	}
	c.commands = append(c.commands, pending{note: note, ref: r})
	if c.wantNames[r.Kind] == nil {
		c.wantNames[r.Kind] = map[string]bool{}
	}
	c.wantNames[r.Kind][r.Name] = true
}

// inTree reports whether one reading of a path is a file, a folder or a module of the tree.
func (c *checker) inTree(cand []string) bool {
	for _, p := range cand {
		if c.ix.exists(p) || c.ix.cutAtSpace(p) || c.ix.module(p) {
			return true
		}
	}
	return false
}

func (c *checker) judgeCommands() error {
	if len(c.commands) == 0 {
		return nil
	}
	removed, err := removedNames(c.ctx, c.root, c.wantNames)
	if err != nil {
		c.res.Warnings = append(c.res.Warnings, err.Error()+": commands are judged without git's evidence")
	}
	for _, p := range c.commands {
		r := p.ref
		if at, ok := removed[r.Kind][r.Name]; ok {
			c.add(p.note, r.Line, RuleCommand, "update the note to the command that replaced it, or mark it historical with <!-- mbguard:historical -->",
				"%s: the repository no longer defines %s %s; removed in %s", commandText(r), kindNoun(r.Kind), r.Name, at)
		} else if !r.Planned { // a script a to-do asks for is not there yet
			c.add(p.note, r.Line, RuleCommand, "correct the note, or mark it historical with <!-- mbguard:historical -->",
				"%s: the repository defines no %s %s", commandText(r), kindNoun(r.Kind), r.Name)
		}
	}
	return nil
}

// pathEvidence is what git says about the missing paths: their history, which are ignored, and
// which HEAD still has.
type pathEvidence struct {
	h       *history
	ignored map[string]bool
	inHEAD  map[string]bool
}

func (c *checker) judgePaths() error {
	if len(c.missing) == 0 {
		return nil
	}
	ev, err := c.pathEvidence()
	if err != nil {
		return err
	}
	for _, m := range c.missing {
		c.judgePath(m, ev)
	}
	return nil
}

func (c *checker) pathEvidence() (pathEvidence, error) {
	var ev pathEvidence
	h, err := readHistory(c.ctx, c.root)
	if err != nil {
		// a partial clone missing old blobs, say: the paths are still judged, without evidence
		c.res.Warnings = append(c.res.Warnings, err.Error()+": stale paths are listed without git's evidence")
		h = &history{byOld: map[string][]event{}}
	}
	ev.h = h
	var all []string
	asked := map[string]bool{}
	for _, m := range c.missing {
		for _, p := range m.cand {
			if !asked[p] {
				asked[p] = true
				all = append(all, p)
			}
		}
	}
	if ev.ignored, err = ignoredPaths(c.ctx, c.root, all); err != nil {
		return ev, err
	}
	// HEAD's tree is asked only about paths history says nothing of
	var unexplained []string
	for _, m := range c.missing {
		if _, ok := c.gone(h, m.cand); !ok {
			unexplained = append(unexplained, m.cand...)
		}
	}
	ev.inHEAD, err = headPaths(c.ctx, c.root, c.ix, unexplained)
	return ev, err
}

// gone is history's word on the first reading of a path it knows.
func (c *checker) gone(h *history, cand []string) (event, bool) {
	for _, p := range cand {
		if e, ok := h.gone(c.ix, p); ok {
			return e, true
		}
	}
	return event{}, false
}

func (c *checker) judgePath(m pending, e pathEvidence) {
	// on a case-insensitive disk Src/a.ts opens src/a.ts: ask the disk only about
	// paths git knows in no case
	other := c.ix.folded(m.cand)
	if other == "" && (onDisk(c.root, m.cand) || anyOf(e.ignored, m.cand)) {
		return
	}
	ev, ok := c.gone(e.h, m.cand)
	switch {
	case ok && ev.new != "":
		c.fix(m, ev.old, ev.new, "%s was renamed to %s in %s", m.ref.Raw, ev.new, ev.commit)
	case ok:
		c.add(m.note, m.ref.Line, RulePath, "update or remove the note, or mark it historical with <!-- mbguard:historical -->",
			"%s was deleted in %s", m.ref.Raw, ev.commit)
	case other != "":
		read := m.cand[len(m.cand)-1]
		for _, p := range m.cand {
			if strings.EqualFold(p, other) {
				read = p
				break
			}
		}
		c.fix(m, read, other, "%s is not in the repository; the case differs from %s (git and case-sensitive file systems tell them apart)", m.ref.Raw, other)
	case anyOf(e.inHEAD, m.cand):
		c.add(m.note, m.ref.Line, RulePath, "update or remove the note in the same commit, or mark it historical with <!-- mbguard:historical -->",
			"%s is deleted by the staged changes (still in HEAD)", m.ref.Raw)
	case anchored(c.ix, m.ref, m.cand) && !m.ref.Planned && !bankFolder(c.ix, m.note, m.ref, m.cand):
		c.add(m.note, m.ref.Line, RulePath, "correct the path, or mark the note historical with <!-- mbguard:historical -->",
			"%s is not on this branch (neither in its files nor in its history)", m.ref.Raw)
	}
}

// fix reports a path written under an old name and the rewrite that corrects it.
func (c *checker) fix(m pending, old, new, format string, a ...any) {
	written := rewritten(m.note, m.ref, old, new)
	c.add(m.note, m.ref.Line, RulePath, fmt.Sprintf("write %s instead (mbguard check --stale --fix does it)", written), format, a...)
	c.res.Fixes = append(c.res.Fixes, Fix{Path: m.note, Line: m.ref.Line, Old: m.ref.Raw, New: written})
}

func (c *checker) judgeSymbols() error {
	if len(c.symbols) == 0 {
		return nil
	}
	names := make([]string, 0, len(c.symbolSet))
	for n := range c.symbolSet {
		names = append(names, n)
	}
	sort.Strings(names)
	present, err := presentSymbols(c.ctx, c.root, names)
	if err != nil {
		return err
	}
	gone := map[string]bool{}
	for _, s := range c.symbols {
		if !present[s.ref.Name] {
			gone[s.ref.Name] = true
		}
	}
	removed, err := removedSymbols(c.ctx, c.root, gone)
	if err != nil {
		// symbols are reported only with evidence: without history there are none
		c.res.Warnings = append(c.res.Warnings, err.Error()+": symbols are not judged")
	}
	for _, s := range c.symbols {
		at, ok := removed[s.ref.Name]
		if present[s.ref.Name] || !ok {
			continue // present, or never in the source: a library's name, not the project's
		}
		c.add(s.note, s.ref.Line, RuleSymbol, "update the note to the code's current name, or mark it historical with <!-- mbguard:historical -->",
			"%s no longer occurs in the tracked source; removed in %s", s.ref.Name, at)
	}
	return nil
}

func kindNoun(k Kind) string {
	switch k {
	case KindMake:
		return "make target"
	case KindScript:
		return "package.json script"
	case KindJust:
		return "just recipe"
	case KindTask:
		return "task"
	}
	return string(k)
}

func commandText(r Ref) string {
	switch r.Kind {
	case KindMake:
		return "make " + r.Name
	case KindScript:
		return "npm run " + r.Name
	case KindJust:
		return "just " + r.Name
	case KindTask:
		return "task " + r.Name
	}
	return r.Name
}

// candidates are the repository-relative readings of a path a note names: relative to the
// note's directory, then to the repository root. A path that leaves the repository is none.
func candidates(note, p string) []string {
	var out []string
	if rel := path.Clean(path.Join(path.Dir(note), p)); validRel(rel) {
		out = append(out, rel)
	}
	if root := path.Clean(p); validRel(root) && (len(out) == 0 || out[0] != root) {
		out = append(out, root)
	}
	return out
}

func validRel(p string) bool {
	return p != "." && p != ".." && !strings.HasPrefix(p, "../") && !path.IsAbs(p)
}

// anchored reports whether a path that git never knew starts in a directory the repository
// has, so it is about this repository (src/auth/gone.ts) and not some other one
// (facebook/react, and/or).
//
// A link's own directory must be there (a broken link to a sibling note is stale; links into a
// folder nobody made, placeholders for screenshots to come, are not); a bare name in prose or
// code says nothing, since its directory is the note's.
func anchored(ix *index, ref Ref, cand []string) bool {
	if !ref.Link && !strings.Contains(strings.TrimPrefix(ref.Name, "./"), "/") {
		return false
	}
	for _, c := range cand {
		d := path.Dir(c)
		if ix.dirs[d] || (ref.Link && d == ".") {
			return true
		}
	}
	return false
}

// bankFolder reports whether a path git never knew names a place of the bank itself: a folder
// (details/archive/ in MEMORY.md's routing table, a folder of a bank folder that exists), or a
// detail file MEMORY.md's routing table names (details/tech.md in a Roo Code bank migrated
// without a techContext.md), or legacy.md, which migrate makes only when something needs it;
// from another note, these count only when named from the root (memory-bank/legacy.md). These are the bank's own places, made when the first note goes
// there, not a claim about the repository.
func bankFolder(ix *index, note string, ref Ref, cand []string) bool {
	if note == "memory-bank/MEMORY.md" && routingPlace(ref.Name) {
		return true
	}
	if rest, ok := strings.CutPrefix(ref.Name, "memory-bank/"); ok && (rest == "legacy.md" || routingPlace(rest)) {
		return true // named from the root: the same places, in any note
	}
	if !strings.HasSuffix(ref.Name, "/") && !strings.HasSuffix(ref.Raw, "/") {
		return false
	}
	for _, c := range cand {
		if strings.HasPrefix(c, "memory-bank/") && ix.dirs[path.Dir(c)] {
			return true
		}
	}
	return false
}

// routingPlace reports whether a path MEMORY.md names is one of the template's routing places.
func routingPlace(name string) bool {
	places, err := templates.RoutingPlaces()
	if err != nil {
		return false // the embedded template is checked by its own tests
	}
	for _, p := range places {
		if strings.TrimSuffix(p, "/") == strings.TrimSuffix(name, "/") {
			return true
		}
	}
	return false
}

// onDisk reports whether a path git does not track is on disk all the same (a local file):
// not stale.
func onDisk(root string, cand []string) bool {
	for _, c := range cand {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(c))); err == nil {
			return true
		}
	}
	return false
}

func anyOf(set map[string]bool, cand []string) bool {
	for _, c := range cand {
		if set[c] {
			return true
		}
	}
	return false
}

// ignoredPaths returns which paths .gitignore covers (build outputs, local files): one git
// check-ignore for all.
func ignoredPaths(ctx context.Context, root string, paths []string) (map[string]bool, error) {
	out, err := gitexec.Cmd{Dir: root, Stdin: strings.NewReader(strings.Join(paths, "\x00") + "\x00")}.Run(ctx, "check-ignore", "--no-index", "-z", "--stdin")
	if err != nil && gitexec.ExitCode(err) != 1 { // 1: none is ignored
		return nil, fmt.Errorf("asking git which paths are ignored: %w", err)
	}
	set := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			set[p] = true
		}
	}
	return set, nil
}

// headPaths returns which of paths HEAD's tree holds although the index does not: deleted by
// staged changes not yet committed. One git diff-index lists the staged deletions; a
// directory is in HEAD when a deleted file lies under it. (Asking HEAD's tree about each path
// took 16 s for the 150,000 readings of the 2,000-note bench.)
func headPaths(ctx context.Context, root string, ix *index, paths []string) (map[string]bool, error) {
	set := map[string]bool{}
	if len(paths) == 0 {
		return set, nil
	}
	if _, err := gitexec.Run(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return set, nil
	}
	out, err := gitexec.Run(ctx, root, "diff-index", "--cached", "--no-renames", "--diff-filter=D", "--name-only", "-z", "HEAD", "--")
	if err != nil {
		return nil, fmt.Errorf("reading the staged deletions: %w", err)
	}
	deleted := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		deleted[p] = true
		for d := path.Dir(p); d != "." && !deleted[d]; d = path.Dir(d) {
			deleted[d] = true
		}
	}
	for _, p := range paths {
		if deleted[p] && !ix.exists(p) {
			set[p] = true
		}
	}
	return set, nil
}

// rewritten is the path to write in place of ref: the new path, in the form the note wrote
// the old one (relative to the note, or to the root; with or without ./).
func rewritten(note string, ref Ref, old, new string) string {
	noteRel := path.Clean(path.Join(path.Dir(note), ref.Name)) == old
	out := new
	if noteRel && path.Dir(note) != "." {
		if r, err := filepath.Rel(filepath.FromSlash(path.Dir(note)), filepath.FromSlash(new)); err == nil {
			out = filepath.ToSlash(r)
		}
	}
	if strings.HasPrefix(ref.Raw, "./") && !strings.HasPrefix(out, "../") {
		out = "./" + out
	}
	if strings.HasSuffix(ref.Raw, "/") {
		out += "/"
	}
	return out
}
