package gating

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mbguard/mbguard/bank"
)

// ContextSentinel opens the injected memory-bank context; a host that finds it in the system
// prompt already does not inject it again.
const ContextSentinel = "<memory-bank>"

// AnchorSentinel opens the post-compaction anchor block, with its own sentinel so the two
// blocks are deduplicated independently.
const AnchorSentinel = "<memory-bank-anchors>"

// DefaultMaxChars is MEMORY_BANK_MAX_CHARS' default.
const DefaultMaxChars = 12000

// protocol is the short reading/writing protocol injected with MEMORY.md.
const protocol = `Memory-bank protocol (enforced by mbguard):
- MEMORY.md below is the project memory's entry; details live in memory-bank/details/.
- Before risky writes (several files, shell writes, auth/CI/dependency/infra files), read
  memory-bank/details/patterns.md or call the memory-reader subagent in this message.
- Write into memory-bank/ only .md files, only with the write/edit tools (never the shell).
- Keep the MACHINE_BLOCK/USER_BLOCK markers intact; never change USER_BLOCK.
- Never write secrets, tokens or credentials into memory-bank/.
- Record decisions and progress in memory-bank/ before changing code.
- After a context compaction, re-read the listed anchors before any write.`

// ContextBlock renders the context injected into a session: the protocol and MEMORY.md
// (head-truncated at maxChars, DefaultMaxChars when maxChars <= 0) inside <memory-bank> …
// </memory-bank>. memory is passed through redact first, when redact is not nil, so a secret
// never reaches the model provider. A legacy or mixed layout yields a "needs migration" block;
// no bank, or no MEMORY.md content, yields "".
func ContextBlock(memory string, layout bank.Layout, maxChars int, redact func(string) string) string {
	switch layout {
	case bank.LayoutLegacy, bank.LayoutMixed:
		what := "the legacy layout (_index.md, brief.md, active.md)"
		if layout == bank.LayoutMixed {
			what = "both MEMORY.md and legacy entry files (mixed layout)"
		}
		return ContextSentinel + "\nThis repository's memory-bank/ has " + what +
			" and needs migration: run `mbguard migrate` (it prints the plan; `--apply` executes it)." +
			"\nUntil then, read memory-bank/ files directly; write only .md files with the write/edit tools.\n</memory-bank>"
	case bank.LayoutNone, bank.LayoutEmpty:
		return ""
	}
	if strings.TrimSpace(memory) == "" {
		return ""
	}
	if redact != nil {
		memory = redact(memory)
	}
	if maxChars <= 0 {
		maxChars = DefaultMaxChars
	}
	var b strings.Builder
	b.Grow(len(memory) + len(protocol) + 256)
	b.WriteString(ContextSentinel)
	b.WriteString("\n")
	b.WriteString(protocol)
	b.WriteString("\n")
	b.WriteString(templateLine(memory))
	b.WriteString("\n--- memory-bank/MEMORY.md ---\n")
	body, cut := headTruncate(memory, maxChars)
	b.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteByte('\n')
	}
	if cut > 0 {
		b.WriteString("[… truncated: " + strconv.Itoa(cut) + " more characters; read memory-bank/MEMORY.md for the rest]\n")
	}
	b.WriteString("</memory-bank>")
	return b.String()
}

// templateLine reports the template version MEMORY.md declares, read from the file itself.
func templateLine(memory string) string {
	for _, t := range bank.ScanMarkers([]byte(memory)).Templates {
		if !t.Valid {
			continue
		}
		if t.Version.Less(bank.CurrentTemplate) {
			return "Template " + t.Version.String() + " (older than " + bank.CurrentTemplate.String() + ": run `mbguard upgrade`)."
		}
		return "Template " + t.Version.String() + "."
	}
	return "Template version missing: run `mbguard upgrade`."
}

// headTruncate keeps the first max characters (runes), cut back to a line end when one is near,
// and returns how many characters were dropped.
func headTruncate(s string, max int) (string, int) {
	total := utf8.RuneCountInString(s)
	if total <= max {
		return s, 0
	}
	n, i := 0, 0
	for i < len(s) && n < max {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	head := s[:i]
	if nl := strings.LastIndexByte(head, '\n'); nl >= len(head)/2 {
		head = head[:nl+1]
	}
	return head, total - utf8.RuneCountInString(head)
}
