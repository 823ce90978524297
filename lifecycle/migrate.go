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
	"time"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/fsutil"
)

// Move is one file rename, as slash paths relative to the repository root.
type Move struct{ From, To string }

// Plan is everything a migration will do; Refusals non-empty means it will not run.
type Plan struct {
	Layout   bank.Layout
	Moves    []Move
	Create   []string // MEMORY.md, and legacy.md when some text has no other place
	Delete   []string // the old entry files
	Notes    []string // things the user should know: non-.md files, symlinks, files left in place
	Refusals []string // collisions and a mixed layout
}

// dirMoves map the legacy folders to their v7.1 places; subfolders are kept.
var dirMoves = [][2]string{{"docs", "details/design"}, {"requirements", "details/requirements"}, {"learnings", "details/learnings"}, {"archive", "details/archive"}}

var fileMoves = []string{"tech.md", "patterns.md", "progress.md"}

// Commit messages also identify our own commits when a run resumes without its journal entry.
const (
	msgMoves  = "memory-bank: move legacy files to the v7.1 layout (mbguard migrate 1/2)\n\nPure renames, committed alone so git log --follow and git diff -M keep the history.\n"
	msgMemory = "memory-bank: build MEMORY.md from the legacy entry files (mbguard migrate 2/2)\n\nbrief.md, active.md and _index.md become MEMORY.md (and legacy.md for text with no other place).\n"
)

// PlanMigration reads memory-bank/ under root and plans the migration to v7.1.
func PlanMigration(root string) (Plan, error) {
	dir := filepath.Join(root, bank.Dir)
	layout, err := DetectLayout(dir)
	p := Plan{Layout: layout}
	if err != nil || layout != bank.LayoutLegacy {
		if layout == bank.LayoutMixed {
			p.Refusals = append(p.Refusals, "memory-bank/ has MEMORY.md and legacy entry files (_index.md, brief.md, active.md) together: merge them by hand into MEMORY.md and delete the old entry files")
		}
		return p, err
	}
	exists := func(rel string) bool {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		return err == nil
	}
	for _, f := range fileMoves {
		if exists(f) {
			p.Moves = append(p.Moves, Move{f, "details/" + f})
		}
	}
	for _, dm := range dirMoves {
		src := filepath.Join(dir, dm[0])
		fi, err := os.Lstat(src)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			p.Notes = append(p.Notes, fmt.Sprintf("memory-bank/%s is not a folder: left where it is", dm[0]))
			continue
		}
		err = filepath.WalkDir(src, func(fp string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(src, fp)
			rel = filepath.ToSlash(rel)
			p.Moves = append(p.Moves, Move{dm[0] + "/" + rel, dm[1] + "/" + rel})
			return nil
		})
		if err != nil {
			return p, fmt.Errorf("reading memory-bank/%s: %w", dm[0], err)
		}
	}
	for i, m := range p.Moves {
		p.Moves[i] = Move{bank.Dir + "/" + m.From, bank.Dir + "/" + m.To}
		full := filepath.Join(root, filepath.FromSlash(p.Moves[i].From))
		fi, _ := os.Lstat(full)
		switch {
		case fi != nil && fi.Mode()&fs.ModeSymlink != 0:
			p.Notes = append(p.Notes, fmt.Sprintf("%s is a symlink: moved as the link itself (mbguard check flags symlinks; replace it with a file)", m.From))
		case path.Ext(m.From) != ".md" && path.Base(m.From) != ".gitkeep":
			p.Notes = append(p.Notes, fmt.Sprintf("%s is not Markdown: moved as is (mbguard check flags it; convert or remove it)", p.Moves[i].From))
		}
		if exists(m.To) {
			p.Refusals = append(p.Refusals, fmt.Sprintf("%s already exists (collides with %s): rename or remove one of them", p.Moves[i].To, p.Moves[i].From))
		}
	}
	for _, e := range bank.LegacyEntries {
		if exists(e) {
			p.Delete = append(p.Delete, bank.Dir+"/"+e)
		}
	}
	p.Create = append(p.Create, bank.Entry)
	if exists("legacy.md") {
		p.Refusals = append(p.Refusals, "memory-bank/legacy.md already exists: rename it, then run mbguard migrate again")
	}
	// legacy.md is created when _index.md exists (its topic routing is kept there) or when a
	// user block or broken markers need a verbatim home; the build decides, the plan says maybe.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		known := n == "docs" || n == "requirements" || n == "learnings" || n == "archive" || n == "details"
		for _, f := range append(append([]string{}, fileMoves...), bank.LegacyEntries...) {
			known = known || n == f
		}
		if !known {
			p.Notes = append(p.Notes, fmt.Sprintf("memory-bank/%s is not part of the legacy layout: left where it is", n))
		}
	}
	sort.Slice(p.Moves, func(i, j int) bool { return p.Moves[i].From < p.Moves[j].From })
	return p, nil
}

// MigrateOptions configures Migrate.
type MigrateOptions struct {
	Root, GitDir, StateDir string
	Apply                  bool // false: plan only
	Rollback               bool
	GitCLI                 bool // moves and commits through the git CLI: hooks, signing and filters apply
	NoGit                  bool // plain file moves, no commits, no journal
	// Progress, when set, is told how far the moves are (a terminal progress bar).
	Progress func(done, total int)
	// FailAfter stops the run after a named step ("moves", "commit1", "memory") as if the
	// process had been killed there; tests use it to prove a run resumes. Empty in real use.
	FailAfter string
	// Write writes MEMORY.md and legacy.md; fsutil.WriteFileAtomic when nil (tests inject a full disk).
	Write WriteFunc
}

// MigrateResult says what Migrate did.
type MigrateResult struct {
	Plan       Plan
	Applied    bool
	Resumed    bool
	NoOp       bool     // already v7: nothing to do
	RolledBack string   // the commit restored by --rollback
	Commits    []string // the commits made
	Legacy     bool     // legacy.md was written
	Warnings   []string
}

// ErrRefused wraps every reason Migrate declines to start; nothing has changed when it is returned.
var ErrRefused = errors.New("migration refused")

// ErrInjected is returned by the test-only fault injection (MigrateOptions.FailAfter).
var ErrInjected = errors.New("stopped by fault injection")

func refuse(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrRefused}, a...)...)
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
	switch plan.Layout {
	case bank.LayoutV7:
		res.NoOp = true
		return res, nil
	case bank.LayoutNone, bank.LayoutEmpty:
		return res, refuse("no legacy memory bank in %s: run mbguard init to create a v7.1 one", o.Root)
	}
	if j != nil && j.Phase != phaseDone {
		res.Warnings = append(res.Warnings, "an interrupted migration is recorded: mbguard migrate --apply resumes it, --rollback undoes it")
	}
	if len(plan.Refusals) > 0 {
		return res, refuse("%s", strings.Join(plan.Refusals, "; "))
	}
	if !o.Apply {
		return res, nil
	}
	if o.NoGit {
		return res, plainMigrate(o, plan, &res)
	}
	if o.GitDir == "" {
		return res, refuse("not inside a git repository: run it in one, or pass --no-git for plain moves without history")
	}
	if err := preflight(o); err != nil {
		return res, err
	}
	head, branch, err := headOf(o)
	if err != nil {
		return res, err
	}
	j = &journal{Version: 1, Start: head, Branch: branch, Phase: phaseStarted, GitCLI: o.GitCLI, Plan: plan}
	if err := j.save(o.StateDir); err != nil {
		return res, err
	}
	return res, runGit(ctx, o, j, &res)
}

// preflight refuses a merge or rebase in progress and uncommitted changes under memory-bank/
// (or staged anywhere: the migration's commits would take them along).
func preflight(o MigrateOptions) error {
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
	out, err := gitOut(o.Root, "status", "--porcelain", "--untracked-files=all", "--", bank.Dir)
	stagedErr := <-staged
	if err != nil {
		return err
	}
	if out != "" {
		first, _, _ := strings.Cut(out, "\n")
		return refuse("uncommitted changes under memory-bank/ (%s): commit them first", strings.TrimSpace(first))
	}
	if stagedErr != nil {
		return refuse("staged changes outside memory-bank/ would go into the migration's commits: commit or unstage them first")
	}
	return nil
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
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
	Plan    Plan   `json:"plan"`
}

const (
	phaseStarted = "started" // journal written, moves may be half done
	phaseMoved   = "moved"   // commit 1 made
	phaseDone    = "done"    // commit 2 made; kept so --rollback still knows the start
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
func renameOnDisk(root string, moves []Move, progress func(int, int)) error {
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
	for _, dm := range dirMoves {
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

// plainMigrate is --no-git: the same moves and files, without commits, history or journal.
func plainMigrate(o MigrateOptions, plan Plan, res *MigrateResult) error {
	res.Warnings = append(res.Warnings, "--no-git: files are moved without commits, so history is not linked and the run cannot be rolled back")
	in := legacyInputs{}
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(o.Root, bank.Dir, rel))
		if err != nil {
			return nil
		}
		return b
	}
	in.Brief, in.Active, in.Index, in.Patterns = read("brief.md"), read("active.md"), read("_index.md"), read("patterns.md")
	mem, leg, err := buildMemory(in)
	if err != nil {
		return err
	}
	if err := writeOutputs(o, mem, leg); err != nil {
		return err
	}
	res.Legacy = leg != nil
	if err := renameOnDisk(o.Root, plan.Moves, o.Progress); err != nil {
		return err
	}
	for _, d := range plan.Delete {
		if err := os.Remove(filepath.Join(o.Root, filepath.FromSlash(d))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", d, err)
		}
	}
	res.Applied = true
	return nil
}

func writeOutputs(o MigrateOptions, mem, leg []byte) error {
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
