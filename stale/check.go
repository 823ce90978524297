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
	var res Result
	ix, err := buildIndex(ctx, root)
	if err != nil {
		return res, err
	}
	var since *changes
	if o.Since != "" {
		if since, err = changedSince(ctx, root, o.Since); err != nil {
			return res, err
		}
	}
	type pending struct {
		note string
		ref  Ref
		cand []string // repository-relative readings of a path, the note-relative one first
	}
	var missing []pending
	var symbols []pending
	var commands []pending
	wantNames := map[Kind]map[string]bool{}
	symbolSet := map[string]bool{}
	add := func(note string, line int, rule, fix, format string, a ...any) {
		res.Findings = append(res.Findings, scanner.Finding{Path: note, Line: line, Rule: rule, Severity: o.Severity, Message: fmt.Sprintf(format, a...), Fix: fix})
	}
	for _, n := range notes {
		touched := since == nil || since.paths[n.Path]
		for _, r := range Extract(n.Content) {
			if r.Historical {
				continue
			}
			switch r.Kind {
			case KindPath:
				cand := candidates(n.Path, r.Name)
				if len(cand) == 0 {
					continue
				}
				found := false
				for _, c := range cand {
					if ix.exists(c) || ix.cutAtSpace(c) || ix.module(c) {
						found = true
						break
					}
				}
				if found || (!touched && !since.touches(cand)) {
					continue
				}
				missing = append(missing, pending{n.Path, r, cand})
			case KindSymbol:
				if !touched {
					continue
				}
				symbols = append(symbols, pending{note: n.Path, ref: r})
				symbolSet[r.Name] = true
			default:
				defined := ix.names[r.Kind]
				if defined == nil || defined[r.Name] || (!touched && !since.definers[r.Kind]) {
					continue // no file of the project defines this kind: not its own command
				}
				commands = append(commands, pending{note: n.Path, ref: r})
				if wantNames[r.Kind] == nil {
					wantNames[r.Kind] = map[string]bool{}
				}
				wantNames[r.Kind][r.Name] = true
			}
		}
	}
	if len(commands) > 0 {
		removed, err := removedNames(ctx, root, wantNames)
		if err != nil {
			res.Warnings = append(res.Warnings, err.Error()+": commands are judged without git's evidence")
		}
		for _, p := range commands {
			r := p.ref
			if c, ok := removed[r.Kind][r.Name]; ok {
				add(p.note, r.Line, RuleCommand, "update the note to the command that replaced it, or mark it historical with <!-- mbguard:historical -->",
					"%s: the repository no longer defines %s %s; removed in %s", commandText(r), kindNoun(r.Kind), r.Name, c)
			} else if !r.Planned { // a script a to-do asks for is not there yet
				add(p.note, r.Line, RuleCommand, "correct the note, or mark it historical with <!-- mbguard:historical -->",
					"%s: the repository defines no %s %s", commandText(r), kindNoun(r.Kind), r.Name)
			}
		}
	}
	if len(missing) > 0 {
		h, err := readHistory(ctx, root)
		if err != nil {
			// a partial clone missing old blobs, say: the paths are still judged, without evidence
			res.Warnings = append(res.Warnings, err.Error()+": stale paths are listed without git's evidence")
			h = &history{byOld: map[string][]event{}}
		}
		var all []string
		asked := map[string]bool{}
		for _, m := range missing {
			for _, c := range m.cand {
				if !asked[c] {
					asked[c] = true
					all = append(all, c)
				}
			}
		}
		ignored, err := ignoredPaths(ctx, root, all)
		if err != nil {
			return res, err
		}
		// HEAD's tree is asked only about paths history says nothing of
		var unexplained []string
		for _, m := range missing {
			explained := false
			for _, c := range m.cand {
				if _, ok := h.gone(ix, c); ok {
					explained = true
					break
				}
			}
			if !explained {
				unexplained = append(unexplained, m.cand...)
			}
		}
		inHEAD, err := headPaths(ctx, root, ix, unexplained)
		if err != nil {
			return res, err
		}
		for _, m := range missing {
			// on a case-insensitive disk Src/a.ts opens src/a.ts: ask the disk only about
			// paths git knows in no case
			if ix.folded(m.cand) == "" && (onDisk(root, m.cand) || anyOf(ignored, m.cand)) {
				continue
			}
			var ev event
			ok := false
			for _, c := range m.cand {
				if ev, ok = h.gone(ix, c); ok {
					break
				}
			}
			switch {
			case ok && ev.new != "":
				written := rewritten(m.note, m.ref, ev.old, ev.new)
				add(m.note, m.ref.Line, RulePath, fmt.Sprintf("write %s instead (mbguard check --stale --fix does it)", written),
					"%s was renamed to %s in %s", m.ref.Raw, ev.new, ev.commit)
				res.Fixes = append(res.Fixes, Fix{Path: m.note, Line: m.ref.Line, Old: m.ref.Raw, New: written})
			case ok:
				add(m.note, m.ref.Line, RulePath, "update or remove the note, or mark it historical with <!-- mbguard:historical -->",
					"%s was deleted in %s", m.ref.Raw, ev.commit)
			case ix.folded(m.cand) != "":
				other := ix.folded(m.cand)
				read := m.cand[len(m.cand)-1]
				for _, c := range m.cand {
					if strings.EqualFold(c, other) {
						read = c
						break
					}
				}
				written := rewritten(m.note, m.ref, read, other)
				add(m.note, m.ref.Line, RulePath, fmt.Sprintf("write %s instead (mbguard check --stale --fix does it)", written),
					"%s is not in the repository; the case differs from %s (git and case-sensitive file systems tell them apart)", m.ref.Raw, other)
				res.Fixes = append(res.Fixes, Fix{Path: m.note, Line: m.ref.Line, Old: m.ref.Raw, New: written})
			case anyOf(inHEAD, m.cand):
				add(m.note, m.ref.Line, RulePath, "update or remove the note in the same commit, or mark it historical with <!-- mbguard:historical -->",
					"%s is deleted by the staged changes (still in HEAD)", m.ref.Raw)
			case anchored(ix, m.ref, m.cand) && !m.ref.Planned && !bankFolder(ix, m.note, m.ref, m.cand):
				add(m.note, m.ref.Line, RulePath, "correct the path, or mark the note historical with <!-- mbguard:historical -->",
					"%s is not on this branch (neither in its files nor in its history)", m.ref.Raw)
			}
		}
	}
	if len(symbols) > 0 {
		names := make([]string, 0, len(symbolSet))
		for n := range symbolSet {
			names = append(names, n)
		}
		sort.Strings(names)
		present, err := presentSymbols(ctx, root, names)
		if err != nil {
			return res, err
		}
		gone := map[string]bool{}
		for _, s := range symbols {
			if !present[s.ref.Name] {
				gone[s.ref.Name] = true
			}
		}
		removed, err := removedSymbols(ctx, root, gone)
		if err != nil {
			// symbols are reported only with evidence: without history there are none
			res.Warnings = append(res.Warnings, err.Error()+": symbols are not judged")
		}
		for _, s := range symbols {
			c, ok := removed[s.ref.Name]
			if present[s.ref.Name] || !ok {
				continue // present, or never in the source: a library's name, not the project's
			}
			add(s.note, s.ref.Line, RuleSymbol, "update the note to the code's current name, or mark it historical with <!-- mbguard:historical -->",
				"%s no longer occurs in the tracked source; removed in %s", s.ref.Name, c)
		}
	}
	scanner.SortFindings(res.Findings)
	sort.Slice(res.Fixes, func(i, j int) bool {
		a, b := res.Fixes[i], res.Fixes[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	return res, nil
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
