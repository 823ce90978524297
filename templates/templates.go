package templates

import (
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mbguard/mbguard/bank"
)

// The explicit list keeps the .go files and anything else out of the binary.
//
//go:embed files/MEMORY.md files/details/tech.md files/details/patterns.md files/details/progress.md
//go:embed files/details/requirement.md files/details/design.md files/details/learning.md
//go:embed files/details/archive.md files/details/index.md
var files embed.FS

// Names of the templates, relative to memory-bank/ for the ones init writes as they are.
const (
	Memory      = "MEMORY.md"
	Tech        = "details/tech.md"
	Patterns    = "details/patterns.md"
	Progress    = "details/progress.md"
	Requirement = "details/requirement.md" // for details/requirements/REQ-….md
	Design      = "details/design.md"      // for details/design/….md
	Learning    = "details/learning.md"    // for details/learnings/….md
	Archive     = "details/archive.md"     // for details/archive/….md
	Index       = "details/index.md"       // for a folder's optional index.md
)

// Fixed section headings of MEMORY.md, matched exactly by upgrade.
const (
	SnapshotHeading  = "## Project Snapshot"
	FocusHeading     = "## Current Focus"
	DecisionsHeading = "## Decision Highlights"
	RoutingHeading   = "## Routing Rules (intent-driven)"
	DrillHeading     = "## Drill-Down Protocol"
	SafetyHeading    = "## Write Safety Rules"
	AnswersHeading   = "## Top Quick Answers"
	// LegacyRoutingHeading is the plain heading older templates used.
	LegacyRoutingHeading = "## Routing Rules"
)

// defaults fill placeholders a caller leaves empty, so every rendered template is usable.
var defaults = map[string]string{
	"snapshot": "- (what the project is, who it is for, and what it must never break)",
	"stack":    "- (languages, frameworks and their versions)",
	"id":       "000",
	"title":    "Untitled",
}

var parsed = sync.OnceValues(func() (map[string]string, error) {
	m := make(map[string]string)
	for _, n := range Names() {
		b, err := files.ReadFile("files/" + n)
		if err != nil {
			return nil, fmt.Errorf("reading embedded template %s: %w", n, err)
		}
		m[n] = strings.ReplaceAll(string(b), "{{template_marker}}", bank.TemplateMarker(bank.CurrentTemplate))
	}
	return m, nil
})

// Names lists every template, sorted.
func Names() []string {
	n := []string{Memory, Tech, Patterns, Progress, Requirement, Design, Learning, Archive, Index}
	sort.Strings(n)
	return n
}

// Render returns template name with its {{placeholders}} replaced by vars, falling back to
// neutral defaults for the ones vars lacks.
func Render(name string, vars map[string]string) ([]byte, error) {
	m, err := parsed()
	if err != nil {
		return nil, err
	}
	t, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("no template %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	var pairs []string
	for k, v := range defaults {
		if x, ok := vars[k]; ok && x != "" {
			v = x
		}
		pairs = append(pairs, "{{"+k+"}}", v)
	}
	return []byte(strings.NewReplacer(pairs...).Replace(t)), nil
}

// Section returns one fixed section of the MEMORY.md template, from its heading line up to the
// next "## " heading or the end of the machine block, ending in a newline.
func Section(heading string) (string, error) {
	m, err := parsed()
	if err != nil {
		return "", err
	}
	t := m[Memory]
	start := strings.Index(t, "\n"+heading+"\n")
	if start < 0 {
		return "", fmt.Errorf("MEMORY.md template has no section %q", heading)
	}
	rest := t[start+1:]
	end := len(rest)
	if i := strings.Index(rest[len(heading):], "\n## "); i >= 0 {
		end = len(heading) + i + 1
	}
	if i := strings.Index(rest, bank.MachineEnd.String()); i >= 0 && i < end {
		end = i
	}
	return renderDefaults(strings.TrimRight(rest[:end], "\n") + "\n"), nil
}

// RoutingPlaces lists the bank places (relative to memory-bank/) that the template's Routing
// Rules table sends an agent to, as written: details/tech.md, details/archive/. They name where
// a kind of note goes, whether or not the bank has one yet.
func RoutingPlaces() ([]string, error) {
	sec, err := Section(RoutingHeading)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(sec, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		if len(cells) < 2 {
			continue
		}
		if f := strings.Fields(cells[len(cells)-1]); len(f) > 0 && strings.HasPrefix(f[0], "details/") {
			out = append(out, f[0])
		}
	}
	return out, nil
}

// renderDefaults fills every placeholder of t with its neutral default, so a section copied out
// of a template on its own (upgrade, migrate) never carries a literal {{name}} into a bank.
func renderDefaults(t string) string {
	pairs := make([]string, 0, 2*len(defaults))
	for k, v := range defaults {
		pairs = append(pairs, "{{"+k+"}}", v)
	}
	return strings.NewReplacer(pairs...).Replace(t)
}

// Placeholders lists the names of every {{name}} placeholder the templates carry, sorted: text
// of that form in a bank is a placeholder mbguard's template left there, not the user's own.
func Placeholders() []string {
	n := make([]string, 0, len(defaults)+1)
	for k := range defaults {
		n = append(n, k)
	}
	n = append(n, "template_marker")
	sort.Strings(n)
	return n
}
