package outcome

import (
	"slices"
	"strings"
)

// A check after a call decides, for every change, whether it is kept (the result becomes
// known-good), left for another call's own check, or undone. settle gathers what needs the
// disk, git or the rules (inspect), verdicts decides from that alone (no I/O, tested as a
// table), and restore carries the verdicts out (restore.go).

// verdict is what a check does with one change; the order matters: a new folder takes the
// highest verdict of the files below it.
type verdict int

const (
	verdictUndo  verdict = iota // put back to the known-good state, the agent's bytes quarantined
	verdictKeep                 // accepted: the new state is known-good
	verdictLeave                // another in-flight call's: its own check judges it
)

// claim says whose a changed file is.
type claim int

const (
	claimNone   claim = iota // nobody's: undone
	claimTheirs              // another in-flight call's allowed path, not the owners'
	claimMine                // an allowed path of the calls the check settles (the owners)
	claimGit                 // git's own work during the owners' calls (gitwork.go)
)

// ownership is what the calls in flight may write: the owners' allowed paths (mine) and the
// results their write tools produce (expect), the other calls' allowed paths (theirs). Keys
// are folded to lower case where the bank's file system folds case.
type ownership struct {
	key          func(string) string
	mine, theirs map[string]bool
	expect       map[string]map[string]bool // path key -> the TextSums its write tools produce
}

// ownershipOf collects what owners and others may write.
func ownershipOf(owners, others []Call, fold bool) ownership {
	o := ownership{key: func(p string) string { return p },
		mine: map[string]bool{}, theirs: map[string]bool{}, expect: map[string]map[string]bool{}}
	if fold {
		o.key = strings.ToLower // as gating folds a canonical path
	}
	for _, c := range owners {
		for _, p := range c.Allowed {
			o.mine[o.key(p)] = true
		}
		for p, sum := range c.Expect {
			if o.expect[o.key(p)] == nil {
				o.expect[o.key(p)] = map[string]bool{}
			}
			o.expect[o.key(p)][sum] = true
		}
	}
	for _, c := range others {
		for _, p := range c.Allowed {
			o.theirs[o.key(p)] = true
		}
	}
	return o
}

// claim says whose the file at path is, before git's work is asked.
func (o ownership) claim(path string) claim {
	switch k := o.key(path); {
	case o.theirs[k] && !o.mine[k]:
		return claimTheirs
	case o.mine[k]:
		return claimMine
	}
	return claimNone
}

// finding is what inspect learned about one changed file: whose it is, and the problems the
// rules (or git's work) found in its new state.
type finding struct {
	claim claim
	probs []Problem
}

// isDir reports whether a change is a folder's (created, removed or changed).
func (c *change) isDir() bool {
	return c.d != nil && c.d.Kind == KindDir || c.d == nil && c.b.Kind == KindDir
}

// verdicts decides every change from what inspect found (found[i] for the files; folders are
// decided here from what lies below them) and says why each undone change is undone. gitWork
// says git worked during the owners' calls: a folder git removed goes with what was in it.
func verdicts(changes []*change, found []finding, own ownership, gitWork bool) ([]verdict, [][]Problem) {
	v := make([]verdict, len(changes))
	why := make([][]Problem, len(changes))
	for i, c := range changes {
		if !c.isDir() {
			v[i], why[i] = fileVerdict(c, found[i], own)
		}
	}
	// below is the highest verdict of the files under each folder: what a new folder takes
	// (only files count: the folders below it are judged after it, shallowest first).
	// One pass up each file's parents, not one pass over every change per folder.
	below := map[string]verdict{}
	for i, c := range changes {
		if v[i] == verdictUndo || c.isDir() {
			continue
		}
		for p := parentOf(c.path); p != ""; p = parentOf(p) {
			if below[p] >= v[i] {
				break // its parents have it already
			}
			below[p] = v[i]
		}
	}
	for i, c := range changes {
		if c.isDir() {
			v[i], why[i] = dirVerdict(changes, v, i, below, own, gitWork)
		}
	}
	return v, why
}

// fileVerdict decides one changed file.
func fileVerdict(c *change, f finding, own ownership) (verdict, []Problem) {
	switch f.claim {
	case claimTheirs:
		return verdictLeave, nil
	case claimMine:
		probs := slices.Clip(f.probs)
		if c.d != nil && c.d.Kind != KindFile || c.d != nil && c.new == nil {
			probs = append(probs, Problem{Path: c.path, Rule: RuleNotAllowed, Text: "is not a regular Markdown file"})
		} else if exp := own.expect[own.key(c.path)]; exp != nil && (c.d == nil || !exp[TextSum(c.new)] || !toolMode(c.b, c.d)) {
			// the tool's arguments say what it wrote: any other state is someone else's
			probs = append(probs, Problem{Path: c.path, Rule: RuleNotAllowed, Text: "is not what the write tool wrote (something else changed it during the call)"})
		}
		if len(probs) == 0 {
			return verdictKeep, nil
		}
		return verdictUndo, probs
	case claimGit:
		if f.probs == nil {
			return verdictKeep, nil
		}
		return verdictUndo, f.probs
	}
	return verdictUndo, append([]Problem{{Path: c.path, Rule: RuleNotAllowed, Text: "was not written through an allowed write tool"}}, f.probs...)
}

// dirVerdict decides the folder changes[i] once the files are decided (v): a new folder
// lives or goes with what is below it, a folder git removed goes with what was in it.
func dirVerdict(changes []*change, v []verdict, i int, below map[string]verdict, own ownership, gitWork bool) (verdict, []Problem) {
	c, vi := changes[i], v[i]
	if c.b == nil && c.d != nil { // a new folder lives or goes with what is below it
		if vi = max(vi, below[c.path]); vi == verdictUndo && own.theirsUnder(c.path) {
			vi = verdictLeave
		}
		if vi == verdictKeep {
			return vi, nil
		}
	}
	if c.b != nil && c.d == nil && gitWork { // a folder git removed goes with what was in it
		if vi = goneWith(changes, v, i); vi == verdictKeep {
			return vi, nil
		}
	}
	if vi == verdictUndo {
		return vi, []Problem{{Path: c.path, Rule: RuleNotAllowed, Text: "was not made by an allowed write tool"}}
	}
	return vi, nil
}

// theirsUnder reports whether another call may write below folder dir.
func (o ownership) theirsUnder(dir string) bool {
	for p := range o.theirs {
		if under(p, dir) {
			return true
		}
	}
	return false
}

// goneWith is the verdict of the removed folder changes[i]: kept when everything that was in
// it is kept.
func goneWith(changes []*change, v []verdict, i int) verdict {
	for j, o := range changes {
		if j != i && under(o.path, changes[i].path) && v[j] != verdictKeep {
			return verdictUndo
		}
	}
	return verdictKeep
}
