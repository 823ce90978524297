package lifecycle

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mbguard/mbguard/bank"
)

// Banks kept outside memory-bank/ by other tools: Cursor rules (.mdc files with a front matter
// of description, globs and alwaysApply; some projects keep plain .md there), Kilo Code's rules
// folder (.kilocode/rules/memory-bank/: brief.md, context.md, product.md…) and the hidden
// folder other memory-bank skills use. When memory-bank/ has no bank and one of these holds a
// convention migrate knows, migrate moves its files straight to their v7.1 places (one rename
// commit, so git log --follow reaches back into the old folder); init never starts a second,
// empty bank beside one.
const (
	cursorRulesBank = ".cursor/rules/memory-bank"
	kiloBank        = ".kilocode/rules/memory-bank" // Kilo Code's own place for its bank
	hiddenBank      = ".memory-bank"
)

// elsewhereDirs are the places searched, in order.
var elsewhereDirs = []string{cursorRulesBank, kiloBank, hiddenBank}

// planElsewhere plans the migration of a bank kept in one of elsewhereDirs when memory-bank/
// has none. Its top-level names are read as the mapping knows them: a Cursor rule's .mdc as .md,
// and a snake- or kebab-case spelling of a Cline file (tech_context.md) as Cline's. A folder
// whose names are no convention migrate knows leaves p as it is (Migrate then refuses, naming
// the git mv that brings it over by hand).
func planElsewhere(root string, p Plan) (Plan, error) {
	for _, src := range elsewhereDirs {
		ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(src)))
		if err != nil || len(ents) == 0 {
			continue
		}
		var names []string
		real := map[string]string{}
		var clash []string
		for _, e := range ents {
			n := e.Name()
			if !e.IsDir() {
				n = canonicalName(mdName(n))
			}
			if prev, dup := real[n]; dup {
				clash = append(clash, prev+" and "+e.Name())
				continue
			}
			real[n] = e.Name()
			names = append(names, n)
		}
		if bank.DetectLayout(true, names) != bank.LayoutLegacy {
			continue
		}
		q := p
		q.Layout, q.From = bank.LayoutLegacy, src
		q, err = planFrom(root, q, names, real)
		for _, c := range clash {
			q.Refusals = append(q.Refusals, fmt.Sprintf("%s/: %s would both become one file in memory-bank/: rename or remove one of them", src, c))
		}
		alreadyThere(root, &q)
		return q, err
	}
	return p, nil
}

// alreadyThere says what memory-bank/ holds before a bank kept elsewhere is brought in. Files
// that read as another bank's (productContext.mdc, techContext.mdc: a copy of Cursor rules kept
// in memory-bank/, as in etanheyman.com) make two banks, which migrate does not merge: refused.
// Anything else stays where it is and is listed, with what mbguard check will say of it.
func alreadyThere(root string, p *Plan) {
	ents, err := os.ReadDir(filepath.Join(root, bank.Dir))
	if err != nil {
		return
	}
	var twin []string
	for _, e := range ents {
		n := e.Name()
		if bankDotfiles[n] {
			continue
		}
		if !e.IsDir() {
			if c := canonicalName(mdName(n)); containsFold(bank.ContextEntries, c) || containsFold(bank.LegacyEntries, c) {
				twin = append(twin, n)
				continue
			}
		}
		note := fmt.Sprintf("%s/%s is already there, not part of the bank in %s/: left where it is", bank.Dir, n, p.From)
		if !e.IsDir() && !strings.EqualFold(path.Ext(n), ".md") {
			note += " (it is not Markdown, so mbguard check flags it: move it out of memory-bank/)"
		} else if first, count := nonMarkdown(filepath.Join(root, bank.Dir, n)); e.IsDir() && count > 0 {
			note += fmt.Sprintf(" (it holds %d file(s) that are not Markdown, such as %s/%s, which mbguard check flags: move them out of memory-bank/)", count, n, first)
		}
		p.Notes = append(p.Notes, note)
	}
	if len(twin) > 0 {
		p.Refusals = append(p.Refusals, fmt.Sprintf("%s/ already holds files of another bank (%s) beside the %s bank in %s/: two banks, which migrate does not merge. "+
			"Nothing changed: keep one (git rm the other, or fold its text into the one you keep), then run mbguard migrate again", bank.Dir, shortList(twin), p.Kind, p.From))
	}
}

// mdName names a Cursor rule file (.mdc) as the Markdown file it becomes; other names are kept.
func mdName(n string) string {
	if ext := path.Ext(n); strings.EqualFold(ext, ".mdc") {
		return strings.TrimSuffix(n, ext) + ".md"
	}
	return n
}

// canonicalName spells a file the way the mappings know it when it differs only in case, "_"
// or "-" (tech_context.md, active-context.md); other names are kept.
func canonicalName(n string) string {
	key := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	k := key(n)
	for _, set := range [][]string{bank.ContextEntries, bank.LegacyEntries} {
		for _, c := range set {
			if key(c) == k {
				return c
			}
		}
	}
	for _, f := range contextMapping.files {
		if key(f[0]) == k {
			return f[0]
		}
	}
	return n
}

// bankElsewhere names a bank found in one of elsewhereDirs, with the next step: mbguard
// migrate --apply when migrate takes it over, else the commands that bring it to memory-bank/
// by hand (its files are no convention migrate knows); "" when there is none.
func bankElsewhere(root string) string {
	if l := ElsewhereLayout(root); l != "" {
		return "found a " + l + ". Nothing changed: run mbguard migrate to see the plan, then mbguard migrate --apply to bring it to memory-bank/ with its history"
	}
	for _, src := range elsewhereDirs {
		files := listFiles(filepath.Join(root, filepath.FromSlash(src)), ".md", ".mdc")
		if len(files) == 0 {
			continue
		}
		mv := fmt.Sprintf("git mv %s %s", src, bank.Dir)
		if src == cursorRulesBank {
			mv = fmt.Sprintf("git mv %s/<name>.mdc %s/<name>.md for each rule file", src, bank.Dir)
		}
		return fmt.Sprintf("found a memory bank in %s/ (%s) whose names are no layout mbguard migrate knows. Nothing changed. "+
			"Bring it over with its history (%s), commit, then run mbguard init or mbguard migrate",
			src, shortList(files), mv)
	}
	return ""
}

// ElsewhereLayout names the bank kept in one of elsewhereDirs that mbguard migrate --apply takes
// over ("Cline bank kept in .memory-bank/"), or "" when there is none; doctor says
// it instead of suggesting init.
func ElsewhereLayout(root string) string {
	p, err := planElsewhere(root, Plan{})
	if err != nil || p.From == "" {
		return ""
	}
	if p.From == cursorRulesBank {
		return fmt.Sprintf("%s bank kept in %s/ (as Cursor rules)", p.Kind, p.From)
	}
	return fmt.Sprintf("%s bank kept in %s/", p.Kind, p.From)
}

// listFiles names the files directly in dir with one of the extensions exts, and its folders
// (with a trailing slash), sorted.
func listFiles(dir string, exts ...string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		switch {
		case e.IsDir():
			out = append(out, e.Name()+"/")
		case e.Type().IsRegular() && containsFold(exts, filepath.Ext(e.Name())):
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func shortList(s []string) string {
	if len(s) > 4 {
		return strings.Join(s[:4], ", ") + fmt.Sprintf(" and %d more", len(s)-4)
	}
	return strings.Join(s, ", ")
}
