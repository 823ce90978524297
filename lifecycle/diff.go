package lifecycle

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mbguard/mbguard/bank"
)

// Preview is the content a migration would write, computed without changing anything
// (migrate --diff).
type Preview struct {
	Files     []FileChange // MEMORY.md, legacy.md, then each file whose links change, by path
	Rewritten []Link
	Mentions  []Mention
}

// FileChange is one file's content before (nil when new) and after the migration. Path is
// where it will be; From where it is now.
type FileChange struct {
	Path, From string
	Old, New   []byte
}

// previewable says whether PreviewMigration has content to show for plan (planned with
// planErr): not when planning failed or was refused, or there is no legacy bank; an error for
// what --apply would refuse, which --diff does not show as if it would be written.
func previewable(o MigrateOptions, plan Plan, planErr error) (bool, error) {
	if planErr != nil || len(plan.Refusals) > 0 || (plan.Layout == bank.LayoutV7 && plan.Kind != bank.KindUnmarked) {
		return false, planErr
	}
	if plan.Layout == bank.LayoutNone || plan.Layout == bank.LayoutEmpty {
		return false, noBank(o.Root) // as migrate and migrate --apply say (BIG-BRAIN-Memory-Bank)
	}
	if plan.Layout != bank.LayoutLegacy && plan.Layout != bank.LayoutMixed && plan.Kind != bank.KindUnmarked {
		return false, nil
	}
	if o.Force {
		return true, nil
	}
	if plan.Unsure != "" {
		return false, refuse("%s", plan.Unsure)
	}
	if _, err := keptReferences(o, plan); err != nil {
		return false, err
	}
	return true, nil
}

// otherChanges are the changes to files other than MEMORY.md and legacy.md, by path, each
// with the content it had before the moves.
func otherChanges(plan Plan, changed map[string][]byte, readOld func(string) []byte) []FileChange {
	from := map[string]string{}
	for _, m := range plan.Moves {
		from[m.To] = m.From
	}
	names := make([]string, 0, len(changed))
	for p := range changed {
		if p != bank.Entry && p != bank.Dir+"/legacy.md" {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	var out []FileChange
	for _, p := range names {
		f := p
		if old, ok := from[p]; ok {
			f = old
		}
		out = append(out, FileChange{Path: p, From: f, Old: readOld(f), New: changed[p]})
	}
	return out
}

// PreviewMigration plans the migration and computes what it would write, changing nothing.
// The plan is returned too; a plan with refusals has no preview.
func PreviewMigration(o MigrateOptions) (Plan, Preview, error) {
	var pv Preview
	plan, err := PlanMigration(o.Root)
	if show, err := previewable(o, plan, err); !show || err != nil {
		return plan, pv, err
	}
	sim, err := simulate(o, plan)
	if err != nil {
		return plan, pv, err
	}
	readOld := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(o.Root, filepath.FromSlash(p)))
		if err != nil {
			return nil
		}
		return b
	}
	pv.Files = append(pv.Files, FileChange{Path: bank.Entry, From: bank.Entry, Old: readOld(bank.Entry), New: sim.mem})
	if sim.leg != nil {
		pv.Files = append(pv.Files, FileChange{Path: bank.Dir + "/legacy.md", New: sim.leg})
	}
	pv.Files = append(pv.Files, otherChanges(plan, sim.changed, readOld)...)
	// MEMORY.md's and legacy.md's own link rewrites are part of their new content
	for i := range pv.Files[:min(2, len(pv.Files))] {
		if b, ok := sim.changed[pv.Files[i].Path]; ok {
			pv.Files[i].New = b
		}
	}
	pv.Rewritten, pv.Mentions = sim.rewritten, sim.mentions
	return plan, pv, nil
}

// Diff renders the preview as a unified-style diff: a new or rebuilt file in full, a file whose
// links change line by line (rewrites never add or remove lines).
func (pv Preview) Diff() string {
	var b strings.Builder
	for _, f := range pv.Files {
		oldName := "a/" + f.From
		if f.Old == nil {
			oldName = "/dev/null"
		}
		fmt.Fprintf(&b, "--- %s\n+++ b/%s\n", oldName, f.Path)
		newLines := strings.SplitAfter(string(f.New), "\n")
		oldLines := strings.SplitAfter(string(f.Old), "\n")
		if f.Old == nil || len(oldLines) != len(newLines) {
			if f.Old != nil {
				fmt.Fprintf(&b, "@@ -1,%d +1,%d @@\n", len(oldLines), len(newLines))
				for _, l := range oldLines {
					if l != "" {
						b.WriteString("-" + strings.TrimSuffix(l, "\n") + "\n")
					}
				}
			} else {
				fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", len(newLines))
			}
			for _, l := range newLines {
				if l != "" {
					b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
				}
			}
			continue
		}
		for i := range newLines {
			if oldLines[i] != newLines[i] {
				fmt.Fprintf(&b, "@@ -%d +%d @@\n-%s\n+%s\n", i+1, i+1, strings.TrimSuffix(oldLines[i], "\n"), strings.TrimSuffix(newLines[i], "\n"))
			}
		}
	}
	return b.String()
}
