package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/gitexec"
)

// Move is one file rename, as slash paths relative to the repository root.
type Move struct{ From, To string }

// Plan is everything a migration will do; Refusals non-empty means it will not run.
type Plan struct {
	Layout   bank.Layout
	Kind     bank.Kind `json:",omitempty"` // the convention recognised; empty in journals older than it
	Moves    []Move
	Dirs     []Move   `json:",omitempty"` // the folders the moves empty, and where their files go
	Merges   []Move   `json:",omitempty"` // entry files whose text goes into MEMORY.md (To names the section)
	Create   []string // MEMORY.md, and legacy.md when some text has no other place
	Rewrite  []string `json:",omitempty"` // an unmarked MEMORY.md, rewritten around the user's text
	Delete   []string // the old entry files
	Notes    []string // things the user should know: non-.md files, symlinks, files left in place
	Refusals []string // collisions and a mixed layout
	// Unsure says why the bank does not look enough like the convention (see confidence); a
	// run refuses then unless forced.
	Unsure  string  `json:",omitempty"`
	Sources Sources `json:",omitempty"`
	// From is the folder the bank was found in when it is not memory-bank/: Cursor rules
	// (.cursor/rules/memory-bank) or .memory-bank. Its files move straight to their v7.1 places.
	From string `json:",omitempty"`
}

// srcDir is the folder the bank's files are in before the migration.
func (p Plan) srcDir() string {
	if p.From != "" {
		return p.From
	}
	return bank.Dir
}

// Sources are the files commit 2 builds MEMORY.md from, as slash paths from the repository root
// (Decisions as they are after the moves).
type Sources struct {
	Brief, Active, Index, Memory string   `json:",omitempty"`
	Decisions                    []string `json:",omitempty"`
}

// mapping is one convention's way into the v7.1 layout.
type mapping struct {
	files [][2]string // top-level file (matched without case) → its place under memory-bank/
	dirs  [][2]string // top-level folder → its place; subfolders are kept
	// The entry files: their text goes into MEMORY.md and they are deleted. index is kept
	// verbatim in legacy.md (its topic routing has no v7.1 place).
	brief, active, index string
	decisions            []string // moved files whose headings become Decision Highlights
}

// dirMoves map the legacy folders to their v7.1 places; subfolders are kept.
var dirMoves = [][2]string{{"docs", "details/design"}, {"requirements", "details/requirements"}, {"learnings", "details/learnings"}, {"archive", "details/archive"}}

// skillMapping is memory-bank-skill's legacy layout (seed 004).
var skillMapping = mapping{
	files: [][2]string{{"tech.md", "details/tech.md"}, {"patterns.md", "details/patterns.md"}, {"progress.md", "details/progress.md"}},
	dirs:  dirMoves,
	brief: "brief.md", active: "active.md", index: "_index.md",
	decisions: []string{"details/patterns.md"},
}

// contextMapping is the Cline family: Cline's six core files, Roo Code's decisionLog.md and
// Cursor's tasks.md, style-guide.md, creative/ and reflection/. docs/migrate.md states this
// table for users; keep the two together.
var contextMapping = mapping{
	files: [][2]string{
		{"techContext.md", "details/tech.md"},
		{"systemPatterns.md", "details/patterns.md"},
		{"progress.md", "details/progress.md"},
		{"productContext.md", "details/requirements/product-context.md"},
		{"decisionLog.md", "details/design/decision-log.md"},
		{"tasks.md", "details/tasks.md"},
		{"style-guide.md", "details/design/style-guide.md"},
	},
	dirs: append(append([][2]string{}, dirMoves...),
		[2]string{"creative", "details/design/creative"}, [2]string{"reflection", "details/learnings/reflection"},
		[2]string{"tasks", "details/tasks"}), // tasks/_index.md + TASKnnn-*.md, a common Cline addition
	brief: "projectbrief.md", active: "activeContext.md",
	decisions: []string{"details/patterns.md", "details/design/decision-log.md"},
}

// kiloMapping is Kilo Code's memory bank (.kilocode/rules/memory-bank/): brief.md is the project
// snapshot, context.md the current focus, architecture.md the system's design and decisions.
// docs/migrate.md states this table for users; keep the two together.
var kiloMapping = mapping{
	files: [][2]string{
		{"tech.md", "details/tech.md"},
		{"architecture.md", "details/patterns.md"},
		{"product.md", "details/requirements/product-context.md"},
		{"tasks.md", "details/tasks.md"},
	},
	dirs:  dirMoves,
	brief: "brief.md", active: "context.md",
	decisions: []string{"details/patterns.md"},
}

// Commit messages also identify our own commits when a run resumes without its journal entry.
const (
	msgMoves  = "memory-bank: move legacy files to the v7.1 layout (mbguard migrate: renames)\n\nPure renames, committed alone so git log --follow and git diff -M keep the history.\n"
	msgMemory = "memory-bank: build MEMORY.md from the legacy entry files (mbguard migrate: MEMORY.md)\n\nbrief.md, active.md and _index.md become MEMORY.md (and legacy.md for text with no other place).\n"
	msgLinks  = "memory-bank: point links at the moved files (mbguard migrate: links)\n\nLinks, paths and wiki-links to the files the migration moved or merged, in the bank and in the\nrepository's other text files, rewritten apart from the renames so this commit can be reviewed\nor reverted on its own.\n"
)

// oldSubjects are the subjects earlier versions gave the same commits ("1/2", "2/2" and then a
// third): a rollback still recognises them.
var oldSubjects = []string{
	"memory-bank: move legacy files to the v7.1 layout (mbguard migrate 1/2)",
	"memory-bank: build MEMORY.md from the legacy entry files (mbguard migrate 2/2)",
	"memory-bank: point links at the moved files (mbguard migrate, links)",
}

// PlanMigration reads memory-bank/ under root and plans the migration to v7.1; when memory-bank/
// holds no bank, it plans bringing one kept as Cursor rules or in .memory-bank/ (elsewhere.go).
func PlanMigration(root string) (Plan, error) {
	dir := filepath.Join(root, bank.Dir)
	layout, err := DetectLayout(dir)
	p := Plan{Layout: layout}
	if err != nil {
		return p, err
	}
	if layout == bank.LayoutNone || layout == bank.LayoutEmpty {
		return planElsewhere(root, p)
	}
	ents, _ := os.ReadDir(dir)
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return planFrom(root, p, names, nil)
}

// planFrom plans the moves of a bank whose top-level names (as the mapping knows them) are
// names. real maps such a name to the file's own name in the source folder when they differ
// (techContext.mdc read as techContext.md); nil for memory-bank/ itself.
func planFrom(root string, p Plan, names []string, real map[string]string) (Plan, error) {
	p.Kind = bank.DetectKind(names)
	unmarked := false // an unmarked MEMORY.md beside one older convention's files
	switch p.Layout {
	case bank.LayoutMixed:
		var why string
		p.Kind, unmarked, why = planMixed(root, names)
		if !unmarked {
			p.Refusals = append(p.Refusals, "memory-bank/ mixes conventions ("+why+"): merge them by hand into one, then run mbguard migrate again")
			return p, nil
		}
	case bank.LayoutV7:
		return planUnmarked(root, p)
	case bank.LayoutLegacy:
	default:
		return p, nil
	}
	pl := &planner{root: root, src: p.srcDir(), names: names, real: real, p: &p,
		m: mappingOf(p.Kind), known: map[string]bool{"details": true}, targets: map[string]string{}}
	pl.dir = filepath.Join(root, filepath.FromSlash(pl.src))
	if err := pl.mappedMoves(); err != nil {
		return p, err
	}
	if p.From != "" {
		if err := pl.wholeBank(); err != nil {
			return p, err
		}
	}
	pl.checkMoves()
	pl.entries()
	if unmarked {
		pl.unmarkedEntry()
	} else {
		p.Create = append(p.Create, bank.Entry)
	}
	if pl.exists("legacy.md") {
		p.Refusals = append(p.Refusals, "memory-bank/legacy.md already exists: rename it, then run mbguard migrate again")
	}
	// legacy.md is created when _index.md exists (its topic routing is kept there) or when a
	// user block or broken markers need a verbatim home; the build decides, the plan says maybe.
	p.Unsure = confidence(p.Kind, names, pl.known, p.From)
	if p.From == "" { // a bank kept elsewhere comes whole (wholeBank)
		pl.leftNotes()
	}
	sort.Slice(p.Moves, func(i, j int) bool { return p.Moves[i].From < p.Moves[j].From })
	return p, nil
}

// mappingOf is the convention's mapping of old names to new places.
func mappingOf(k bank.Kind) mapping {
	switch k {
	case bank.KindSkill:
		return skillMapping
	case bank.KindKilo:
		return kiloMapping
	}
	return contextMapping
}

// planner builds one legacy bank's plan (planFrom): the folder's names, the mapping of its
// convention, and what the plan has taken so far.
type planner struct {
	root, src, dir string // the repository, the bank's folder (slash, relative) and its path
	names          []string
	real           map[string]string // name as listed → name on disk, where they differ
	m              mapping
	p              *Plan
	known          map[string]bool   // names the plan has a place for
	targets        map[string]string // new path → old path, of every move
}

// own is n as it is named on disk.
func (pl *planner) own(n string) string {
	if r, ok := pl.real[n]; ok {
		return r
	}
	return n
}

// actual finds a top-level name without regard to case: Roo Code writes projectBrief.md.
func (pl *planner) actual(want string) string {
	for _, n := range pl.names {
		if n == want {
			return n
		}
	}
	for _, n := range pl.names {
		if strings.EqualFold(n, want) {
			return n
		}
	}
	return ""
}

// exists reports whether rel, a place under memory-bank/, is taken.
func (pl *planner) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(pl.root, bank.Dir, filepath.FromSlash(rel)))
	return err == nil
}

// mappedMoves plans the moves the convention's mapping names.
func (pl *planner) mappedMoves() error {
	for _, f := range pl.m.files {
		if n := pl.actual(f[0]); n != "" {
			pl.known[n] = true
			pl.p.Moves = append(pl.p.Moves, Move{pl.own(n), f[1]})
		}
	}
	for _, dm := range pl.m.dirs {
		n := pl.actual(dm[0])
		if n == "" {
			continue
		}
		pl.known[n] = true
		if err := moveDir(pl.dir, pl.src, pl.own(n), dm[1], pl.p); err != nil {
			return err
		}
	}
	return nil
}

// wholeBank plans the rest of a bank brought from elsewhere, which comes whole: what the
// mapping does not name moves to the same name under memory-bank/ (see elsewhere.go). It stays
// unknown to the confidence rule: a folder of its own convention is still refused.
func (pl *planner) wholeBank() error {
	for _, n := range pl.names {
		if pl.known[n] || containsFold([]string{pl.m.brief, pl.m.active, pl.m.index}, n) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(pl.dir, pl.own(n)))
		switch {
		case err != nil:
			continue
		case fi.IsDir():
			if err := moveDir(pl.dir, pl.src, pl.own(n), n, pl.p); err != nil {
				return err
			}
		case strings.EqualFold(path.Ext(n), ".md") || bankDotfiles[n]:
			pl.p.Moves = append(pl.p.Moves, Move{pl.own(n), n})
		default:
			pl.p.Notes = append(pl.p.Notes, fmt.Sprintf("%s/%s is not Markdown: left where it is", pl.src, pl.own(n)))
		}
	}
	return nil
}

// checkMoves makes the moves full paths, notes symlinks and files that are not Markdown, and
// refuses moves onto something that exists or onto one another.
func (pl *planner) checkMoves() {
	p := pl.p
	for i, mv := range p.Moves {
		p.Moves[i] = Move{pl.src + "/" + mv.From, bank.Dir + "/" + mv.To}
		full := filepath.Join(pl.root, filepath.FromSlash(p.Moves[i].From))
		fi, _ := os.Lstat(full)
		switch {
		case fi != nil && fi.Mode()&fs.ModeSymlink != 0:
			p.Notes = append(p.Notes, fmt.Sprintf("%s is a symlink: moved as the link itself (mbguard check flags symlinks; replace it with a file)", p.Moves[i].From))
		case path.Ext(mv.To) != ".md" && path.Base(mv.From) != ".gitkeep" && !bankDotfiles[path.Base(mv.From)]:
			p.Notes = append(p.Notes, fmt.Sprintf("%s is not Markdown: moved as is (mbguard check flags it; convert or remove it)", p.Moves[i].From))
		}
		if pl.exists(mv.To) {
			p.Refusals = append(p.Refusals, fmt.Sprintf("%s already exists (collides with %s): rename or remove one of them", p.Moves[i].To, p.Moves[i].From))
		}
		if other, dup := pl.targets[p.Moves[i].To]; dup {
			p.Refusals = append(p.Refusals, fmt.Sprintf("%s and %s would both become %s: rename one of them", other, p.Moves[i].From, p.Moves[i].To))
		}
		pl.targets[p.Moves[i].To] = p.Moves[i].From
	}
}

// entry plans the merge of the entry file name into section, and returns its path ("" when
// the bank has no such file).
func (pl *planner) entry(name, section string) string {
	n := pl.actual(name)
	if n == "" {
		return ""
	}
	pl.known[n] = true
	rel := pl.src + "/" + pl.own(n)
	pl.p.Merges = append(pl.p.Merges, Move{rel, section})
	pl.p.Delete = append(pl.p.Delete, rel)
	return rel
}

// entries plans the merges of the brief, active and index files into MEMORY.md and legacy.md,
// and names the decision files among the moves.
func (pl *planner) entries() {
	p := pl.p
	p.Sources.Brief = pl.entry(pl.m.brief, bank.Entry+" ## Project Snapshot")
	focus := bank.Entry + " ## Current Focus"
	if n := pl.actual(pl.m.active); n != "" && hasUserBlock(filepath.Join(pl.dir, pl.own(n))) {
		focus += " (its USER_BLOCK kept byte for byte)"
	}
	p.Sources.Active = pl.entry(pl.m.active, focus)
	if pl.m.index != "" {
		p.Sources.Index = pl.entry(pl.m.index, "memory-bank/legacy.md (its topic routing, verbatim)")
	}
	for _, d := range pl.m.decisions {
		if _, ok := pl.targets[bank.Dir+"/"+d]; ok {
			p.Sources.Decisions = append(p.Sources.Decisions, bank.Dir+"/"+d)
		}
	}
}

// hasUserBlock reports whether the file at p reads and has a well-formed USER_BLOCK.
func hasUserBlock(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	_, _, has, ok := split(b)
	return ok && has
}

// unmarkedEntry plans the unmarked MEMORY.md beside the old files. It stays in place through
// commit 1 and is rewritten by commit 2: its bytes become the USER_BLOCK, or go to legacy.md
// when the active file brings a user block of its own (see buildMemory).
func (pl *planner) unmarkedEntry() {
	p := pl.p
	pl.known[entryName] = true
	p.Rewrite = []string{bank.Entry}
	p.Sources.Memory = bank.Entry
	where := bank.Entry + " USER_BLOCK (byte for byte: it has no block markers)"
	if p.Sources.Active != "" && hasUserBlock(filepath.Join(pl.root, filepath.FromSlash(p.Sources.Active))) {
		where = "memory-bank/legacy.md (verbatim: " + path.Base(p.Sources.Active) + "'s user block takes the USER_BLOCK)"
	}
	p.Merges = append(p.Merges, Move{bank.Entry, where})
}

// leftNotes notes every name of the bank the plan has no place for: it stays where it is.
func (pl *planner) leftNotes() {
	for _, n := range pl.names {
		if pl.known[n] || bankDotfiles[n] {
			continue
		}
		note := fmt.Sprintf("memory-bank/%s is not part of the %s layout: left where it is", n, pl.p.Kind)
		if fi, err := os.Lstat(filepath.Join(pl.dir, n)); err == nil && !fi.IsDir() && !strings.EqualFold(path.Ext(n), ".md") {
			note += " (it is not Markdown, so mbguard check flags it: move it out of memory-bank/)"
		} else if err == nil && fi.IsDir() {
			if first, count := nonMarkdown(filepath.Join(pl.dir, n)); count > 0 {
				note += fmt.Sprintf(" (it holds %d file(s) that are not Markdown, such as %s/%s, which mbguard check flags: move them out of memory-bank/)", count, n, first)
			}
		}
		pl.p.Notes = append(pl.p.Notes, note)
	}
}

// moveDir plans the move of the folder n of the source folder (dir on disk, src as a slash
// path) to to under memory-bank/, file by file, names unchanged (git mv moves it whole).
func moveDir(dir, src, n, to string, p *Plan) error {
	from := filepath.Join(dir, n)
	fi, err := os.Lstat(from)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		p.Notes = append(p.Notes, fmt.Sprintf("%s/%s is not a folder: left where it is", src, n))
		return nil
	}
	p.Dirs = append(p.Dirs, Move{src + "/" + n, bank.Dir + "/" + to})
	err = filepath.WalkDir(from, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(from, fp)
		rel = filepath.ToSlash(rel)
		p.Moves = append(p.Moves, Move{n + "/" + rel, to + "/" + rel})
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading %s/%s: %w", src, n, err)
	}
	return nil
}

// nonMarkdown counts the files under dir that mbguard check would flag as not Markdown, and
// names the first (relative to dir).
func nonMarkdown(dir string) (first string, count int) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".gitkeep" || strings.EqualFold(path.Ext(d.Name()), ".md") {
			return nil
		}
		if count == 0 {
			rel, _ := filepath.Rel(dir, p)
			first = filepath.ToSlash(rel)
		}
		count++
		return nil
	})
	return first, count
}

// entryName is MEMORY.md's name inside memory-bank/.
const entryName = "MEMORY.md"

// planMixed decides whether a mixed bank can still be migrated: a MEMORY.md without block
// markers (a Claude-style memory file, or one written before the markers) beside the files of
// exactly one older convention. Then kind is that convention and ok is true; else why names
// what is mixed.
func planMixed(root string, names []string) (kind bank.Kind, ok bool, why string) {
	var rest []string
	memory := false
	for _, n := range names {
		if n == entryName {
			memory = true
			continue
		}
		rest = append(rest, n)
	}
	kind = bank.DetectKind(rest)
	var found []string
	for _, n := range names {
		for _, set := range [][]string{bank.LegacyEntries, bank.ContextEntries} {
			for _, e := range set {
				if strings.EqualFold(n, e) {
					found = append(found, n)
				}
			}
		}
	}
	sort.Strings(found)
	if memory {
		found = append([]string{entryName}, found...)
	}
	why = strings.Join(found, ", ")
	if !memory || kind == bank.KindNone || kind == bank.KindV7 {
		return kind, false, why
	}
	fp := filepath.Join(root, filepath.FromSlash(bank.Entry))
	fi, err := os.Lstat(fp)
	if err != nil || !fi.Mode().IsRegular() {
		return kind, false, why
	}
	b, err := os.ReadFile(fp)
	if err != nil || len(bank.ScanMarkers(b).Markers) > 0 {
		return kind, false, why + "; MEMORY.md has block markers, so its text cannot simply become the USER_BLOCK"
	}
	return kind, true, why
}

// planUnmarked plans the migration of a lone MEMORY.md without block markers: nothing moves,
// and the file is rewritten around the user's text (see wrapUnmarked). A MEMORY.md with markers
// is already v7: no plan, and Kind says so.
func planUnmarked(root string, p Plan) (Plan, error) {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(bank.Entry)))
	if err != nil {
		return p, fmt.Errorf("reading %s: %w", bank.Entry, err)
	}
	if len(bank.ScanMarkers(b).Markers) > 0 {
		return p, nil
	}
	p.Kind = bank.KindUnmarked
	p.Rewrite = []string{bank.Entry}
	p.Merges = []Move{{bank.Entry, bank.Entry + " USER_BLOCK (byte for byte; markers, template version and the fixed sections added around it)"}}
	p.Sources.Memory = bank.Entry
	return p, nil
}

// MigrateOptions configures Migrate.
type MigrateOptions struct {
	Root, GitDir, StateDir string
	Apply                  bool // false: plan only
	Rollback               bool
	GitCLI                 bool // moves and commits through the git CLI: hooks, signing and filters apply
	NoGit                  bool // plain file moves, no commits, no journal
	NoRewriteLinks         bool // leave links inside the bank as they are
	// Force migrates a bank that does not look enough like its convention, and merges entry
	// files that references outside the bank would still name.
	Force bool
	// Progress, when set, is told how far the moves are (a terminal progress bar).
	Progress func(done, total int)
	// FailAfter stops the run after a named step ("moves", "commit1", "memory") as if the
	// process had been killed there; tests use it to prove a run resumes. Empty in real use.
	FailAfter string
	// Write writes MEMORY.md and legacy.md; fsutil.WriteFileAtomic when nil (tests inject a full disk).
	Write WriteFunc

	scan *outsideScan // the files outside the bank as read before the run, reused by the links commit
}

// MigrateResult says what Migrate did.
type MigrateResult struct {
	Plan       Plan
	Applied    bool
	Resumed    bool
	NoOp       bool      // already v7: nothing to do
	RolledBack string    // the commit restored by --rollback
	Commits    []Commit  // the commits this run (or the run it resumed) made; never one it did not
	NoMoves    bool      // the plan had nothing to rename, so there is no rename commit
	Legacy     bool      // legacy.md was written
	Rewritten  []Link    // links pointed at the moved files (in their own commit)
	Unresolved []Link    // relative links whose targets were missing before the migration: left as they were
	Mentions   []Mention // references to moved or merged files that were not rewritten (bare names in the bank too)
	Warnings   []string
}

// Commit is one commit mbguard made.
type Commit struct{ Hash, Subject string }

// ErrRefused wraps every reason Migrate declines to start; nothing has changed when it is returned.
var ErrRefused = errors.New("migration refused")

// ErrInjected is returned by the test-only fault injection (MigrateOptions.FailAfter).
var ErrInjected = errors.New("stopped by fault injection")

// noBank is the refusal when neither memory-bank/ nor a place elsewhere holds a bank migrate
// knows, with the next step.
func noBank(root string) error {
	if why := bankElsewhere(root); why != "" {
		return refuse("%s", why)
	}
	return refuse("no legacy memory bank in %s: run mbguard init to create a v7.1 one", root)
}

func refuse(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrRefused}, a...)...)
}

// admit says whether the plan stops here (nothing to migrate: stop, no error) or is refused,
// and records the references kept outside the bank in o unless forced.
func admit(o *MigrateOptions, plan Plan, j *journal, res *MigrateResult) (stop bool, err error) {
	switch {
	case plan.Layout == bank.LayoutV7 && plan.Kind != bank.KindUnmarked:
		res.NoOp = true
		return true, nil
	case plan.Layout == bank.LayoutNone, plan.Layout == bank.LayoutEmpty:
		return true, noBank(o.Root)
	}
	if j != nil && j.Phase != phaseDone {
		res.Warnings = append(res.Warnings, "an interrupted migration is recorded: mbguard migrate --apply resumes it, --rollback undoes it")
	}
	if len(plan.Refusals) > 0 {
		return true, refuse("%s", strings.Join(plan.Refusals, "; "))
	}
	if plan.Unsure != "" && !o.Force {
		return true, refuse("%s", plan.Unsure)
	}
	if !o.Force {
		scan, err := keptReferences(*o, plan)
		if err != nil {
			return true, err
		}
		o.scan = scan
	}
	return false, nil
}

// gitChecks refuses, before anything changes, a migration git cannot take: no repository, a
// format mbguard cannot write, a run in the way, entry files git does not track, or commits
// that would not be made as git makes them.
func gitChecks(o MigrateOptions, plan Plan, res *MigrateResult) error {
	if o.GitDir == "" {
		return refuse("not inside a git repository: run it in one, or pass --no-git for plain moves without history")
	}
	if err := repoFormat(o.Root); err != nil {
		return err
	}
	if err := preflight(o, plan.From); err != nil {
		return err
	}
	if err := entriesTracked(o.Root, plan); err != nil {
		return err
	}
	warn, err := commitsLikeGit(o)
	if err != nil {
		return err
	}
	if warn != "" {
		res.Warnings = append(res.Warnings, warn)
	}
	return nil
}

// gitChecked is what gitChecks said, from its goroutine.
type gitChecked struct {
	warnings []string
	err      error
}

// startGitChecks runs gitChecks in the background when o applies the plan with git; the
// function returned waits for its answer (at once without git).
func startGitChecks(o MigrateOptions, plan Plan) func() gitChecked {
	if !o.Apply || o.NoGit {
		return func() gitChecked { return gitChecked{} }
	}
	ch := make(chan gitChecked, 1)
	go func() {
		var r MigrateResult
		err := gitChecks(o, plan, &r)
		ch <- gitChecked{r.Warnings, err}
	}()
	return sync.OnceValue(func() gitChecked { return <-ch })
}

// Migrate plans, applies, resumes or rolls back the legacy → v7.1 migration.
func Migrate(ctx context.Context, o MigrateOptions) (MigrateResult, error) {
	var res MigrateResult
	if o.Write == nil {
		o.Write = fsutil.WriteFileAtomic
	}
	if o.Rollback {
		return rollback(o)
	}
	j, jerr := readJournal(o.StateDir)
	if jerr != nil {
		return res, jerr
	}
	if j != nil && j.Phase != phaseDone && o.Apply {
		res.Resumed = true
		res.Plan = j.Plan
		return res, runGit(ctx, o, j, &res)
	}
	plan, err := PlanMigration(o.Root)
	res.Plan = plan
	if err != nil {
		return res, err
	}
	// git's checks only read (git status, git config, the index), as does admit's search of
	// the repository for references: they run side by side, and admit's answer comes first.
	checks := startGitChecks(o, plan)
	defer checks() // no git process outlives the call
	if stop, err := admit(&o, plan, j, &res); stop || err != nil {
		return res, err
	}
	if !o.Apply {
		return res, nil
	}
	if o.NoGit {
		return res, plainMigrate(o, plan, &res)
	}
	c := checks()
	res.Warnings = append(res.Warnings, c.warnings...)
	if c.err != nil {
		return res, c.err
	}
	head, branch, err := headOf(o)
	if err != nil {
		return res, err
	}
	j = &journal{Version: 1, Start: head, Branch: branch, Phase: phaseStarted, GitCLI: o.GitCLI, NoLinks: o.NoRewriteLinks, Plan: plan}
	if err := j.save(o.StateDir); err != nil {
		return res, err
	}
	return res, runGit(ctx, o, j, &res)
}

// preflight refuses a merge or rebase in progress and uncommitted changes under memory-bank/
// and the folder from, when the bank is brought from there (or staged anywhere: the
// migration's commits would take them along).
func preflight(o MigrateOptions, from string) error {
	for _, f := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply", "BISECT_LOG"} {
		if _, err := os.Stat(filepath.Join(o.GitDir, f)); err == nil {
			return refuse("a merge, rebase, cherry-pick, revert or bisect is in progress (%s): finish or abort it first", f)
		}
	}
	if err := checkIndexLock(o.GitDir, time.Now()); err != nil {
		return err
	}
	if _, err := exec.LookPath("git"); err != nil {
		return dirtyGoGit(o)
	}
	// The two checks read the index only; they run side by side.
	staged := make(chan error, 1)
	go func() {
		_, err := gitOut(o.Root, "diff", "--cached", "--quiet")
		staged <- err
	}()
	dirs := []string{bank.Dir}
	if from != "" {
		dirs = append(dirs, from)
	}
	out, err := gitOut(o.Root, append([]string{"status", "--porcelain", "--untracked-files=all", "--"}, dirs...)...)
	stagedErr := <-staged
	if err != nil {
		return err
	}
	if out != "" {
		first, _, _ := strings.Cut(out, "\n")
		return refuse("uncommitted changes under %s/ (%s): commit them first", strings.Join(dirs, "/ or "), strings.TrimSpace(first))
	}
	if stagedErr != nil {
		return refuse("staged changes outside memory-bank/ would go into the migration's commits: commit or unstage them first")
	}
	return nil
}

// entriesTracked refuses a plan whose entry files git does not track (an ignored .memory-bank/,
// say): commit 2 builds MEMORY.md from the tree of commit 1, so the text of such a file would be
// missing from MEMORY.md while the file itself is deleted.
func entriesTracked(root string, p Plan) error {
	r, err := open(root)
	if err != nil {
		return err
	}
	ref, err := r.Head()
	if err != nil {
		return nil // headOf says what is wrong with HEAD
	}
	c, err := r.CommitObject(ref.Hash())
	if err != nil {
		return fmt.Errorf("reading HEAD: %w", err)
	}
	tree, err := c.Tree()
	if err != nil {
		return fmt.Errorf("reading HEAD: %w", err)
	}
	var missing []string
	for _, f := range append(append([]string{}, p.Delete...), p.Rewrite...) {
		if _, err := tree.FindEntry(f); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return refuse("%s not in the last commit (ignored, or never added), and migrate builds MEMORY.md from the commit: commit it first (git add -f when it is ignored), or run mbguard migrate --apply --no-git", strings.Join(missing, ", "))
}

func gitOut(dir string, args ...string) (string, error) {
	out, err := gitexec.Run(context.Background(), dir, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(out), "\n"), nil
}

// journal lets a killed run resume and --rollback find the starting commit.
type journal struct {
	Version int    `json:"version"`
	Start   string `json:"start"`  // HEAD before the migration
	Branch  string `json:"branch"` // the ref HEAD pointed to
	Phase   string `json:"phase"`
	GitCLI  bool   `json:"git_cli"`
	Commit1 string `json:"commit1,omitempty"`
	Commit2 string `json:"commit2,omitempty"`
	Commit3 string `json:"commit3,omitempty"`
	NoLinks bool   `json:"no_links,omitempty"`
	Plan    Plan   `json:"plan"`
}

const (
	phaseStarted = "started" // journal written, moves may be half done
	phaseMoved   = "moved"   // commit 1 made (or nothing to move)
	phaseBuilt   = "built"   // commit 2 made; links not yet rewritten
	phaseDone    = "done"    // finished; kept so --rollback still knows the start
)

// JournalPath is where the migration journal lives, under the git directory.
func JournalPath(stateDir string) string { return filepath.Join(stateDir, "migrate.journal.json") }

func readJournal(stateDir string) (*journal, error) {
	if stateDir == "" {
		return nil, nil
	}
	b, err := os.ReadFile(JournalPath(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the migration journal: %w", err)
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("reading the migration journal %s: %w (move it away to start over)", JournalPath(stateDir), err)
	}
	return &j, nil
}

func (j *journal) save(stateDir string) error {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return fmt.Errorf("writing the migration journal: %w", err)
	}
	b, _ := json.MarshalIndent(j, "", "  ")
	return fsutil.WriteFileAtomic(JournalPath(stateDir), append(b, '\n'), 0o600)
}

// renameOnDisk performs the moves in the work tree; it is idempotent so a resumed run can
// repeat it, and it removes the legacy folders the moves emptied.
func renameOnDisk(root string, p Plan, progress func(int, int)) error {
	moves := p.Moves
	made := map[string]bool{}
	for i, m := range moves {
		src := filepath.Join(root, filepath.FromSlash(m.From))
		dst := filepath.Join(root, filepath.FromSlash(m.To))
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			if _, err := os.Lstat(dst); err == nil {
				continue // done by an earlier, interrupted run
			}
			return fmt.Errorf("moving %s: it is gone and %s does not exist: run mbguard migrate --rollback", m.From, m.To)
		}
		if d := filepath.Dir(dst); !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("moving %s: %w", m.From, err)
			}
			made[d] = true
		}
		if err := os.Rename(src, dst); err != nil {
			return fmt.Errorf("moving %s to %s: %w (run mbguard migrate --apply again to resume)", m.From, m.To, err)
		}
		if progress != nil && (i%50 == 0 || i == len(moves)-1) {
			progress(i+1, len(moves))
		}
	}
	for _, d := range p.Dirs {
		removeEmptyDirs(filepath.Join(root, filepath.FromSlash(d.From)))
	}
	for _, dm := range dirMoves { // journals from before Plan.Dirs
		removeEmptyDirs(filepath.Join(root, bank.Dir, dm[0]))
	}
	return nil
}

func removeEmptyDirs(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() {
			removeEmptyDirs(filepath.Join(dir, e.Name()))
		}
	}
	_ = os.Remove(dir) // fails, rightly, when something is left
}

// simulation is what a migration writes, computed from the files as they are, without changing
// anything: --no-git applies it, --diff prints it.
type simulation struct {
	mem, leg   []byte
	changed    map[string][]byte // link rewrites: path after the migration → new content
	rewritten  []Link
	unresolved []Link
	mentions   []Mention
}

func simulate(o MigrateOptions, plan Plan) (simulation, error) {
	var sim simulation
	var err error
	if sim.mem, sim.leg, err = buildOutputs(plan, readBeforeMoves(o.Root, plan)); err != nil {
		return sim, err
	}
	if o.NoRewriteLinks || (len(plan.Moves) == 0 && len(plan.Delete) == 0) {
		return sim, nil
	}
	was, before, err := bankFiles(o.Root, plan, true)
	if err != nil {
		return sim, err
	}
	if len(before) == 0 {
		return sim, nil
	}
	after := bankAfter(plan, before, sim.mem, sim.leg)
	sim.changed, sim.rewritten, sim.unresolved = rewriteAll(o.Root, plan, after, was)
	m := newBankMap(plan, was)
	files, err := outsideDisk(o.Root, m)
	if err != nil {
		return sim, fmt.Errorf("reading the files outside memory-bank/: %w", err)
	}
	och, orw, listed := outsideChanges(files, m, resolverFor(o.Root, plan, was))
	for p, b := range och {
		sim.changed[p] = b
	}
	sim.rewritten, sim.mentions = append(sim.rewritten, orw...), append(bankMentions(after, sim.changed, m), listed...)
	return sim, nil
}

// readBeforeMoves reads a bank file by its place after the plan's moves from where it is
// before them: the outputs are built before the moves. nil when it cannot be read.
func readBeforeMoves(root string, plan Plan) func(p string) []byte {
	from := map[string]string{}
	for _, m := range plan.Moves {
		from[m.To] = m.From
	}
	return func(p string) []byte {
		if f, ok := from[p]; ok {
			p = f
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil
		}
		return b
	}
}

// bankAfter is the bank's files after the migration: MEMORY.md and legacy.md as built, the
// moved files at their new places, the rest of the bank but the merged entry files as it was.
func bankAfter(plan Plan, before map[string][]byte, mem, leg []byte) map[string][]byte {
	after := map[string][]byte{bank.Entry: mem}
	if leg != nil {
		after[bank.Dir+"/legacy.md"] = leg
	}
	to := map[string]string{}
	for _, m := range plan.Moves {
		to[m.From] = m.To
	}
	for p, b := range before {
		if t, ok := to[p]; ok {
			after[t] = b
		} else if !contains(plan.Delete, p) && strings.HasPrefix(p, bank.Dir+"/") {
			after[p] = b
		}
	}
	return after
}

// plainMigrate is --no-git: the same moves and files, without commits, history or journal.
func plainMigrate(o MigrateOptions, plan Plan, res *MigrateResult) error {
	res.Warnings = append(res.Warnings, "--no-git: files are moved without commits, so history is not linked and the run cannot be rolled back")
	sim, err := simulate(o, plan)
	if err != nil {
		return err
	}
	if err := writeOutputs(o, sim.mem, sim.leg); err != nil {
		return err
	}
	res.Legacy = sim.leg != nil
	if err := renameOnDisk(o.Root, plan, o.Progress); err != nil {
		return err
	}
	for _, d := range plan.Delete {
		if err := os.Remove(filepath.Join(o.Root, filepath.FromSlash(d))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", d, err)
		}
	}
	if plan.From != "" {
		removeEmptyDirs(filepath.Join(o.Root, filepath.FromSlash(plan.From)))
	}
	res.Rewritten, res.Unresolved, res.Mentions = sim.rewritten, sim.unresolved, sim.mentions
	names := make([]string, 0, len(sim.changed))
	for p := range sim.changed {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if err := o.Write(filepath.Join(o.Root, filepath.FromSlash(p)), sim.changed[p], 0o644); err != nil {
			return fmt.Errorf("rewriting the links of %s: %w", p, err)
		}
	}
	res.NoMoves = len(plan.Moves) == 0
	res.Applied = true
	return nil
}

// bankFiles lists the files of the bank on disk, under memory-bank/ and the folder it was
// found in (slash paths from root), with the Markdown ones' bytes when content is true.
func bankFiles(root string, p Plan, content bool) (names map[string]bool, md map[string][]byte, err error) {
	names, md = map[string]bool{}, map[string][]byte{}
	dirs := []string{bank.Dir}
	if p.From != "" {
		dirs = append(dirs, p.From)
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(dir)), func(fp string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && fp == filepath.Join(root, filepath.FromSlash(dir)) {
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, fp)
			rel = filepath.ToSlash(rel)
			names[rel] = true
			if content && d.Type().IsRegular() && markdownFile(rel) {
				if b, err := os.ReadFile(fp); err == nil {
					md[rel] = b
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s/: %w", dir, err)
		}
	}
	return names, md, nil
}

// markdownFile is true for a Markdown file of a bank: .md, or a Cursor rule's .mdc.
func markdownFile(p string) bool {
	return strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".mdc")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// buildOutputs makes MEMORY.md (and legacy.md) from the plan's sources; read returns a source's
// bytes (nil when absent) as the moves left them.
func buildOutputs(p Plan, read func(string) []byte) (mem, leg []byte, err error) {
	if p.Kind == bank.KindUnmarked {
		mem, _, err := wrapUnmarked(read(p.Sources.Memory))
		return mem, nil, err
	}
	var memory []byte
	if p.Sources.Memory != "" { // an unmarked MEMORY.md beside the older files
		if memory = read(p.Sources.Memory); memory == nil {
			return nil, nil, fmt.Errorf("reading %s: it is gone (run mbguard migrate --rollback)", p.Sources.Memory)
		}
	}
	src := p.Sources
	if p.Kind == "" { // a journal from before Sources was recorded: memory-bank-skill's names
		src = Sources{Brief: bank.Dir + "/brief.md", Active: bank.Dir + "/active.md", Index: bank.Dir + "/_index.md", Decisions: []string{bank.Dir + "/details/patterns.md"}}
	}
	in := legacyInputs{BriefName: path.Base(src.Brief), ActiveName: path.Base(src.Active), IndexName: path.Base(src.Index), Memory: memory}
	if src.Brief != "" {
		in.Brief = read(src.Brief)
	}
	if src.Active != "" {
		in.Active = read(src.Active)
	}
	if src.Index != "" {
		in.Index = read(src.Index)
	}
	for _, d := range src.Decisions {
		if b := read(d); b != nil {
			in.Decisions = append(in.Decisions, decisionSource{strings.TrimPrefix(d, bank.Dir+"/"), b})
		}
	}
	return buildMemory(in)
}

// rewriteAll rewrites the links of every Markdown file of the bank as the migration left it
// (after: path → content). before holds the bank's files as they were; a folder that held one
// existed too, so a link to it (`[notes](notes/)`) is a link, not a broken one.
func rewriteAll(root string, p Plan, after map[string][]byte, before map[string]bool) (changed map[string][]byte, rewritten, unresolved []Link) {
	r := resolverFor(root, p, before)
	m := newBankMap(p, before)
	from := map[string]string{}
	for _, mv := range p.Moves {
		from[mv.To] = mv.From
	}
	changed = map[string][]byte{}
	names := make([]string, 0, len(after))
	for n := range after {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !strings.HasSuffix(n, ".md") {
			continue
		}
		old := n
		if f, ok := from[n]; ok {
			old = f
		} else if p.From != "" && (n == bank.Entry || n == bank.Dir+"/legacy.md") {
			// built from the entry files: their links were written from the folder they were in
			old = p.From + "/" + path.Base(n)
		}
		out, rw, un := rewriteLinks(after[n], old, n, r)
		rewritten = append(rewritten, rw...)
		unresolved = append(unresolved, un...)
		text := after[n]
		if out != nil {
			text = out
		}
		if w, rw := rewriteWiki(text, n, m); w != nil {
			rewritten = append(rewritten, rw...)
			out, text = w, w
		}
		if w, rw := rewriteSpans(text, n, m); w != nil {
			rewritten = append(rewritten, rw...)
			out, text = w, w
		}
		if p.From != "" {
			// A bank brought from elsewhere names its files from the repository root too
			// (Cursor's mdc:.cursor/rules/memory-bank/… links): those paths follow the files.
			own := bankMap{to: m.to, merged: m.merged, dirs: m.dirs, src: p.From, srcOnly: true}
			if w, rw, _ := rewriteOutside(n, text, own, r); w != nil {
				rewritten = append(rewritten, rw...)
				out = w
			}
		}
		if out != nil {
			changed[n] = out
		}
	}
	return changed, rewritten, unresolved
}

// resolverFor says where the bank's paths went, for links written before the migration.
func resolverFor(root string, p Plan, before map[string]bool) linkResolver {
	folders := map[string]bool{}
	for f := range before {
		for d := path.Dir(f); d != "." && d != bank.Dir && !folders[d]; d = path.Dir(d) {
			folders[d] = true
		}
	}
	existed := func(p string) bool { return before[p] || folders[p] }
	to := map[string]string{}
	for _, m := range p.Moves {
		to[m.From] = m.To
	}
	dirs := map[string]bool{}
	for f := range to {
		for d := path.Dir(f); d != "." && d != bank.Dir; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	return linkResolver{
		moved: func(old string) (string, bool) {
			if t, ok := to[old]; ok {
				return t, true
			}
			if contains(p.Delete, old) {
				return bank.Entry, true // its text now lives in MEMORY.md
			}
			if p.From != "" && old == p.From {
				return bank.Dir, true
			}
			for _, d := range p.Dirs {
				if old == d.From {
					return d.To, true
				}
				if rest, ok := strings.CutPrefix(old, d.From+"/"); ok && dirs[old] {
					return d.To + "/" + rest, true
				}
			}
			return "", false
		},
		existed: func(old string) bool {
			if old == bank.Dir || existed(old) || dirs[old] {
				return true
			}
			if strings.HasPrefix(old, bank.Dir+"/") {
				return false
			}
			_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(old)))
			return err == nil
		},
	}
}

func writeOutputs(o MigrateOptions, mem, leg []byte) error {
	if err := os.MkdirAll(filepath.Join(o.Root, bank.Dir), 0o755); err != nil { // a bank kept elsewhere may have none yet
		return fmt.Errorf("creating %s/: %w", bank.Dir, err)
	}
	if err := o.Write(filepath.Join(o.Root, filepath.FromSlash(bank.Entry)), mem, 0o644); err != nil {
		return fmt.Errorf("%w (the old entry files are untouched: free space, then run mbguard migrate --apply again)", err)
	}
	if leg != nil {
		if err := o.Write(filepath.Join(o.Root, bank.Dir, "legacy.md"), leg, 0o644); err != nil {
			return fmt.Errorf("%w (the old entry files are untouched: free space, then run mbguard migrate --apply again)", err)
		}
	}
	return nil
}
