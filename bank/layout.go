package bank

// Layout is the shape of a memory-bank/ directory.
type Layout int

// Layouts. LayoutMixed has both MEMORY.md and legacy entry files and must be fixed by hand.
const (
	LayoutNone   Layout = iota // no memory-bank/ directory
	LayoutEmpty                // memory-bank/ with neither MEMORY.md nor legacy entry files
	LayoutLegacy               // _index.md / brief.md / active.md, no MEMORY.md
	LayoutV7                   // MEMORY.md (any template version)
	LayoutMixed                // MEMORY.md and legacy entry files together
)

// String names the layout for messages.
func (l Layout) String() string {
	return [...]string{"none", "empty", "legacy", "v7", "mixed"}[l]
}

// LegacyEntries are the entry files of the legacy layout, relative to memory-bank/.
var LegacyEntries = []string{"_index.md", "brief.md", "active.md"}

// DetectLayout classifies a bank from the names present directly in memory-bank/.
// exists is false when memory-bank/ itself is missing.
func DetectLayout(exists bool, names []string) Layout {
	if !exists {
		return LayoutNone
	}
	var memory, legacy bool
	for _, n := range names {
		if n == "MEMORY.md" {
			memory = true
		}
		for _, l := range LegacyEntries {
			if n == l {
				legacy = true
			}
		}
	}
	switch {
	case memory && legacy:
		return LayoutMixed
	case memory:
		return LayoutV7
	case legacy:
		return LayoutLegacy
	}
	return LayoutEmpty
}
