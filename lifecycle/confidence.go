package lifecycle

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mbguard/mbguard/bank"
)

// bankDotfiles are files other tools keep in memory-bank/ for themselves; migrate leaves them
// where they are without a note, and mbguard check allows them.
var bankDotfiles = map[string]bool{".gitignore": true, ".gitattributes": true}

// confidence is the detection rule docs/migrate.md states: a bank is taken for its convention
// only when at least two of the convention's entry files are there (bank.LegacyEntries for
// memory-bank-skill, bank.ContextEntries for the Cline family), and the files and folders the
// convention knows are at least as many as those it does not. One projectbrief.md among thirty
// ADRs is a bank of its own convention that happens to share a name. The result is empty when
// the rule holds, else the reason, naming what was seen and what would be left untouched.
//
// from is the folder a bank kept elsewhere was found in ("" for memory-bank/): migrate would
// move its other files along, and the next step is bringing the folder over by hand.
func confidence(kind bank.Kind, names []string, known map[string]bool, from string) string {
	set := bank.ContextEntries
	switch kind {
	case bank.KindSkill:
		set = bank.LegacyEntries
	case bank.KindKilo:
		set = bank.KiloEntries
	}
	var seen, own []string
	ours := 0
	for _, n := range names {
		switch {
		case bankDotfiles[n] || n == entryName:
		case containsFold(set, n):
			seen = append(seen, n)
			ours++
		case known[n]:
			ours++
		default:
			own = append(own, n)
		}
	}
	if len(seen) >= 2 && len(own) <= ours {
		return ""
	}
	sort.Strings(own)
	shown := own
	if len(shown) > 5 {
		shown = append(append([]string{}, own[:5]...), "…")
	}
	dir, touch, next := bank.Dir, "which migrate would not touch", "move what belongs into MEMORY.md by hand (mbguard init makes one)"
	if from != "" {
		dir, touch, next = from, "which migrate would move to memory-bank/ as they are", "bring it over by hand (git mv "+from+" "+bank.Dir+"), commit, then run mbguard init or migrate"
	}
	why := fmt.Sprintf("%s/ does not look enough like a %s bank: of its entry files (%s) it has %s", dir, kind, strings.Join(set, ", "), orNone(seen))
	if len(seen) < 2 {
		why += " (two are needed)"
	}
	if len(own) > 0 {
		why += fmt.Sprintf(", beside %d file(s) and folder(s) of its own (%s), %s", len(own), strings.Join(shown, ", "), touch)
	}
	return why + ". Nothing changed: " + next + ", or pass --force to migrate it as " + string(kind)
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func containsFold(set []string, n string) bool {
	for _, s := range set {
		if strings.EqualFold(s, n) {
			return true
		}
	}
	return false
}

// keptReferences refuses a plan that would delete a merged entry file while references to it
// outside the bank stay: a path in code, front matter or another tool's configuration (never
// rewritten), or any link or path when links are not rewritten. A bare file name in prose does
// not block; it is listed after the run.
//
// The files it read at HEAD are returned for the links commit to reuse: commits 1 and 2 touch
// only the bank, so the files outside are the same then.
func keptReferences(o MigrateOptions, p Plan) (*outsideScan, error) {
	if len(p.Delete) == 0 {
		return nil, nil
	}
	before, _, _ := bankFiles(o.Root, p, false)
	m := newBankMap(p, before)
	var files map[string][]byte
	scan := headScan(o, m)
	if scan != nil {
		files = scan.files
	}
	if files == nil {
		var err error
		if files, err = outsideDisk(o.Root, m); err != nil {
			return nil, fmt.Errorf("reading the files outside memory-bank/: %w", err)
		}
	}
	_, rw, listed := outsideChanges(files, m, resolverFor(o.Root, p, before))
	stay := staying(listed, rw, o.NoRewriteLinks)
	if len(stay) == 0 {
		return scan, nil
	}
	how := "change them by hand to memory-bank/MEMORY.md"
	if o.NoRewriteLinks {
		how += " (or drop --no-rewrite-links)"
	}
	return nil, refuse("%s would be merged into MEMORY.md and deleted, but %d reference(s) to them outside the bank would stay: %s. Nothing changed: %s, or pass --force",
		strings.Join(p.Delete, ", "), len(stay), strings.Join(stay, "; "), how)
}

// headScan reads the files outside the bank from HEAD (see outsideTree); nil when that
// cannot be done (no git, no commit).
func headScan(o MigrateOptions, m bankMap) *outsideScan {
	if o.NoGit || o.GitDir == "" {
		return nil
	}
	r, err := open(o.Root)
	if err != nil {
		return nil
	}
	ref, err := r.Head()
	if err != nil {
		return nil
	}
	dirty := map[string]bool{}
	files, err := outsideTree(r, o.Root, ref.Hash(), m, dirty)
	if err != nil {
		return nil
	}
	return &outsideScan{head: ref.Hash().String(), files: files, dirty: dirty}
}

// staying lists the references to merged entry files that would stay as they are: paths the
// rewrite cannot change, and with noLinks the links it would have.
func staying(listed []Mention, rw []Link, noLinks bool) []string {
	var stay []string
	for _, l := range listed {
		if l.Now == bank.Entry && strings.Contains(l.Text, "/") {
			stay = append(stay, fmt.Sprintf("%s:%d %s", l.Path, l.Line, l.Text))
		}
	}
	if noLinks {
		for _, l := range rw {
			if strings.Contains(l.New, "MEMORY") {
				stay = append(stay, fmt.Sprintf("%s:%d %s", l.Path, l.Line, l.Target))
			}
		}
	}
	return stay
}

// outsideScan is the files outside the bank as keptReferences read them at commit head.
type outsideScan struct {
	head  string
	files map[string][]byte
	dirty map[string]bool
}
