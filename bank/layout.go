package bank

import "strings"

// Layout is the shape of a memory-bank/ directory.
type Layout int

// Layouts. LayoutMixed has MEMORY.md and older entry files together, or the entry files of two
// conventions, and must be fixed by hand.
const (
	LayoutNone   Layout = iota // no memory-bank/ directory
	LayoutEmpty                // memory-bank/ with neither MEMORY.md nor older entry files
	LayoutLegacy               // an older convention's bank (see Kind), no MEMORY.md: mbguard migrate
	LayoutV7                   // MEMORY.md (any template version)
	LayoutMixed                // MEMORY.md and older entry files together
)

// String names the layout for messages.
func (l Layout) String() string {
	return [...]string{"none", "empty", "legacy", "v7", "mixed"}[l]
}

// Kind is the convention an older bank follows: which tool or skill wrote it. Every Kind
// except KindV7 and KindNone is something mbguard migrate understands.
type Kind string

// Kinds, as they are named in messages and in the migration plan.
const (
	KindNone     Kind = ""
	KindSkill    Kind = "memory-bank-skill legacy"
	KindCline    Kind = "Cline"
	KindRoo      Kind = "Roo Code"
	KindCursor   Kind = "Cursor"
	KindKilo     Kind = "Kilo Code"
	KindV7       Kind = "v7"
	KindUnmarked Kind = "unmarked MEMORY.md"
)

// LegacyEntries are the entry files of memory-bank-skill's legacy layout, relative to memory-bank/.
var LegacyEntries = []string{"_index.md", "brief.md", "active.md"}

// ContextEntries are the files that identify the Cline family of memory banks (Cline, Roo Code,
// Cursor), compared without regard to case ("projectBrief.md" is Roo Code's spelling). progress.md
// and tasks.md are shared with other conventions and identify nothing alone.
var ContextEntries = []string{"projectbrief.md", "productContext.md", "activeContext.md", "systemPatterns.md", "techContext.md", "decisionLog.md"}

// KiloEntries are the core files of Kilo Code's memory bank (kept in .kilocode/rules/memory-bank/).
// brief.md is also memory-bank-skill's; context.md with product.md or architecture.md, and none
// of _index.md and active.md, make the bank Kilo Code's (see kilo).
var KiloEntries = []string{"brief.md", "product.md", "context.md", "architecture.md", "tech.md"}

// kilo reports whether names are Kilo Code's: its context.md beside product.md or
// architecture.md, without memory-bank-skill's own _index.md or active.md.
func kilo(names []string) bool {
	has := func(n string) bool { return in(n, names, true) }
	return has("context.md") && (has("product.md") || has("architecture.md")) && !has("_index.md") && !has("active.md")
}

// DetectLayout classifies a bank from the names present directly in memory-bank/.
// exists is false when memory-bank/ itself is missing.
func DetectLayout(exists bool, names []string) Layout {
	if !exists {
		return LayoutNone
	}
	var memory, skill, context bool
	for _, n := range names {
		memory = memory || n == "MEMORY.md"
		skill = skill || in(n, LegacyEntries, false)
		context = context || in(n, ContextEntries, true)
	}
	skill = skill || kilo(names) // one branch: Kilo Code shares brief.md with memory-bank-skill
	switch {
	case memory && (skill || context), skill && context:
		return LayoutMixed
	case memory:
		return LayoutV7
	case skill || context:
		return LayoutLegacy
	}
	return LayoutEmpty
}

// DetectKind names the convention of a bank from the names directly in memory-bank/. A lone
// MEMORY.md is KindV7 here: only its content (no block markers) makes it KindUnmarked.
func DetectKind(names []string) Kind {
	has := func(n string) bool { return in(n, names, true) }
	skill, context := entryKinds(names)
	switch {
	case has("MEMORY.md") && !skill && !context && !kilo(names):
		return KindV7
	case kilo(names) && !context && !has("MEMORY.md"):
		return KindKilo
	case skill && !context && !has("MEMORY.md"):
		return KindSkill
	case !context || has("MEMORY.md") || skill:
		return KindNone
	}
	return contextKind(has)
}

// entryKinds reports whether names hold a legacy skill entry file and a context file of the
// Cline family.
func entryKinds(names []string) (skill, context bool) {
	for _, n := range names {
		skill = skill || in(n, LegacyEntries, false)
		context = context || in(n, ContextEntries, true)
	}
	return skill, context
}

// contextKind tells the Cline family's layouts apart by the files only one of them has.
func contextKind(has func(string) bool) Kind {
	switch {
	case has("tasks.md") || has("creative") || has("reflection") || has("style-guide.md"):
		return KindCursor
	case has("decisionLog.md") && !has("techContext.md"):
		return KindRoo
	}
	return KindCline
}

func in(n string, set []string, fold bool) bool {
	for _, s := range set {
		if n == s || fold && strings.EqualFold(n, s) {
			return true
		}
	}
	return false
}
