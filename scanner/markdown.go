package scanner

import (
	"fmt"

	"github.com/mbguard/mbguard/bank"
)

// CheckMarkdown applies the block-marker rules to one Markdown file and, when entry is true
// (the file is memory-bank/MEMORY.md), the entry and template-version rules against minimum.
// Markers inside fenced or inline code are text and never checked.
func CheckMarkdown(path string, content []byte, entry bool, minimum bank.Version) []Finding {
	c := &mdCheck{path: path, sc: bank.ScanMarkers(content), suggested: map[bank.MarkerKind]bool{}}
	c.nearMisses()
	for _, m := range c.sc.Markers {
		c.byKind[m.Kind] = append(c.byKind[m.Kind], m)
	}
	c.duplicates()
	m := c.block(bank.MachineStart)
	if u := c.block(bank.UserStart); m != nil && u != nil {
		c.nesting(m, u)
	}
	if !entry {
		return c.out
	}
	c.entryBlocks()
	c.out = append(c.out, checkTemplate(path, c.sc, c.byKind[bank.MachineStart], minimum)...)
	return c.out
}

// mdCheck holds the findings of one CheckMarkdown run and the markers they are about.
type mdCheck struct {
	path      string
	sc        bank.Scan
	byKind    [4][]bank.Marker
	suggested map[bank.MarkerKind]bool // kinds a near miss was taken for
	out       []Finding
}

// markerBlock is a block's first START and the first END after it.
type markerBlock struct{ start, end bank.Marker }

func (c *mdCheck) add(line int, rule string, sev Severity, fix, format string, a ...any) {
	c.out = append(c.out, Finding{Path: c.path, Line: line, Rule: rule, Severity: sev, Message: fmt.Sprintf(format, a...), Fix: fix})
}

func (c *mdCheck) nearMisses() {
	for _, nm := range c.sc.NearMiss {
		c.suggested[nm.Suggest] = true
		c.add(nm.Line, RuleMarkerMalformed, SeverityError,
			fmt.Sprintf("write it exactly as %s", nm.Suggest),
			"%q is not a block marker (did you mean %s?)", nm.Text, nm.Suggest)
	}
}

func (c *mdCheck) duplicates() {
	for k, ms := range c.byKind {
		for _, m := range ms[min(1, len(ms)):] {
			c.add(m.Line, RuleMarkerDuplicate, SeverityError,
				fmt.Sprintf("keep one %s: merge the two blocks and delete this marker", bank.MarkerKind(k).Name()),
				"%s appears again (first on line %d)", bank.MarkerKind(k).Name(), ms[0].Line)
		}
	}
}

// block returns the block that starts with k when its START and END both exist in order, and
// reports the marker missing or out of order otherwise.
func (c *mdCheck) block(k bank.MarkerKind) *markerBlock {
	s, e := c.byKind[k], c.byKind[k.Pair()]
	switch {
	case len(s) > 0 && len(e) == 0:
		c.add(s[0].Line, RuleMarkerUnclosed, SeverityError,
			fmt.Sprintf("add %s where the block ends", k.Pair()),
			"%s has no %s", k.Name(), k.Pair().Name())
	case len(s) == 0 && len(e) > 0:
		c.add(e[0].Line, RuleMarkerUnclosed, SeverityError,
			fmt.Sprintf("add %s where the block begins, or delete this marker", k),
			"%s has no %s before it", k.Pair().Name(), k.Name())
	case len(s) > 0 && e[0].Offset < s[0].Offset:
		c.add(e[0].Line, RuleMarkerOrder, SeverityError,
			fmt.Sprintf("move %s below %s (line %d)", k.Pair(), k, s[0].Line),
			"%s comes before %s (line %d)", k.Pair().Name(), k.Name(), s[0].Line)
	case len(s) > 0:
		return &markerBlock{s[0], e[0]}
	}
	return nil
}

// nesting reports a block inside the other one, or the USER block above the MACHINE block.
func (c *mdCheck) nesting(m, u *markerBlock) {
	switch {
	case u.start.Offset > m.start.Offset && u.start.Offset < m.end.Offset:
		c.add(u.start.Line, RuleMarkerNesting, SeverityError,
			fmt.Sprintf("close the MACHINE block with %s before %s", bank.MachineEnd, bank.UserStart),
			"USER_BLOCK_START is inside the MACHINE block (lines %d-%d)", m.start.Line, m.end.Line)
	case m.start.Offset > u.start.Offset && m.start.Offset < u.end.Offset:
		c.add(m.start.Line, RuleMarkerNesting, SeverityError,
			fmt.Sprintf("close the USER block with %s before %s, then move the USER block below the MACHINE block", bank.UserEnd, bank.MachineStart),
			"MACHINE_BLOCK_START is inside the USER block (lines %d-%d)", u.start.Line, u.end.Line)
	case u.start.Offset < m.start.Offset:
		c.add(u.start.Line, RuleMarkerOrder, SeverityError,
			"move the USER block (USER_BLOCK_START … USER_BLOCK_END) below MACHINE_BLOCK_END",
			"the USER block comes before the MACHINE block (line %d)", m.start.Line)
	}
}

// entryBlocks reports a block MEMORY.md lacks altogether (a near miss already says more).
func (c *mdCheck) entryBlocks() {
	for _, k := range []bank.MarkerKind{bank.MachineStart, bank.UserStart} {
		if len(c.byKind[k]) > 0 || len(c.byKind[k.Pair()]) > 0 || c.suggested[k] || c.suggested[k.Pair()] {
			continue
		}
		name, part := "MACHINE", "the agent's part"
		if k == bank.UserStart {
			name, part = "USER", "your own notes"
		}
		fix := fmt.Sprintf("add %s … %s around %s", k, k.Pair(), part)
		if len(c.sc.Markers) == 0 {
			fix += ", or run mbguard upgrade (it keeps the text byte for byte as the USER block)"
		}
		c.add(1, RuleEntryMissingBlock, SeverityError, fix,
			"MEMORY.md has no %s block", name)
	}
}

func checkTemplate(path string, sc bank.Scan, machineStarts []bank.Marker, minimum bank.Version) []Finding {
	var out []Finding
	add := func(line int, rule string, sev Severity, fix, format string, a ...any) {
		out = append(out, Finding{Path: path, Line: line, Rule: rule, Severity: sev, Message: fmt.Sprintf(format, a...), Fix: fix})
	}
	want := bank.TemplateMarker(bank.CurrentTemplate)
	if len(sc.Templates) == 0 {
		line := 1
		where := "near the top"
		if len(machineStarts) > 0 {
			line = machineStarts[0].Line
			where = "on the line after " + bank.MachineStart.String()
		}
		add(line, RuleTemplateMissing, SeverityError,
			fmt.Sprintf("add %s %s, or run mbguard upgrade", want, where),
			"MEMORY.md has no template version marker")
		return out
	}
	newest := newestTemplate(sc.Templates)
	for i, t := range sc.Templates {
		if !t.Valid {
			fix := want
			if v, err := bank.ParseVersion(t.Raw); err == nil {
				fix = bank.TemplateMarker(v)
			}
			add(t.Line, RuleTemplateMalformed, SeverityError,
				fmt.Sprintf("write it exactly as %s", fix),
				"the template version marker is not well formed (want <!-- MEMORY_BANK_TEMPLATE:vMAJOR.MINOR -->)")
		}
		if i == 0 {
			continue
		}
		keep := "the first"
		if newest >= 0 {
			keep = "the one for " + sc.Templates[newest].Version.String()
		}
		add(t.Line, RuleTemplateDuplicate, SeverityError,
			fmt.Sprintf("keep only %s and delete the others", keep),
			"a second template version marker (first on line %d)", sc.Templates[0].Line)
	}
	first := sc.Templates[0]
	if first.Valid && first.Version.Less(minimum) {
		add(first.Line, RuleTemplateOutdated, SeverityError,
			"run mbguard upgrade",
			"template %s is older than the minimum %s (templates.minimum)", first.Version, minimum)
	}
	if first.Valid && len(machineStarts) == 1 && first.Line != machineStarts[0].Line+1 {
		add(first.Line, RuleTemplateMalformed, SeverityWarning,
			fmt.Sprintf("move %s to line %d, right after %s", bank.TemplateMarker(first.Version), machineStarts[0].Line+1, bank.MachineStart),
			"the template version marker is not on the line after MACHINE_BLOCK_START")
	}
	return out
}

// newestTemplate is the index of the newest well-formed template marker, or -1.
func newestTemplate(ts []bank.TemplateMark) int {
	newest := -1
	for i, t := range ts {
		if t.Valid && (newest < 0 || ts[newest].Version.Less(t.Version)) {
			newest = i
		}
	}
	return newest
}
