package scanner

import (
	"fmt"
	"unicode/utf8"

	"github.com/mbguard/mbguard/bank"
)

// RuleEntryTooLong is MEMORY.md over context.max_chars: the hooks inject only its head into the
// agent's context, so whatever lies past the limit is memory the agent never sees.
const RuleEntryTooLong = "entry-too-long"

// CheckEntryLength reports MEMORY.md (path must be bank.Entry) when it holds more than maxChars
// characters (runes, as the context injection counts them); maxChars <= 0 turns the rule off.
// It is a warning: the file is valid, only partly seen. The line is where the limit falls.
func CheckEntryLength(path string, content []byte, maxChars int) []Finding {
	if path != bank.Entry || maxChars <= 0 || len(content) <= maxChars {
		return nil
	}
	n := utf8.RuneCount(content)
	if n <= maxChars {
		return nil
	}
	line, seen := 1, 0
	for _, r := range string(content) {
		if seen == maxChars {
			break
		}
		seen++
		if r == '\n' {
			line++
		}
	}
	return []Finding{{
		Path: path, Line: line, Rule: RuleEntryTooLong, Severity: SeverityWarning,
		Message: fmt.Sprintf("MEMORY.md has %d characters, over context.max_chars (%d): agents see it only up to this line", n, maxChars),
		Fix:     "move detail into memory-bank/details/ (tech.md, patterns.md, progress.md, design/, learnings/) and keep MEMORY.md a summary that routes there",
	}}
}
