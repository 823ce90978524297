package scanner

import "sort"

// Severity says whether a finding fails a check (error) or is advice (warning).
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem in one file: a value, never an error.
type Finding struct {
	Path     string   `json:"path"` // repository-relative, with /
	Line     int      `json:"line"` // 1-based; 0 when the finding is about the whole file
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}

// Rule ids. Secrets use "secret:" followed by the gitleaks rule id.
const (
	RuleMarkerUnclosed    = "marker-unclosed"
	RuleMarkerDuplicate   = "marker-duplicate"
	RuleMarkerOrder       = "marker-order"
	RuleMarkerNesting     = "marker-nesting"
	RuleMarkerMalformed   = "marker-malformed"
	RuleEntryMissingBlock = "entry-missing-block"
	RuleTemplateMissing   = "template-missing"
	RuleTemplateOutdated  = "template-outdated"
	RuleTemplateMalformed = "template-malformed"
	RuleTemplateDuplicate = "template-duplicate"
	RuleNonMD             = "non-md"
	RuleSymlink           = "symlink"
	RuleTooLarge          = "too-large"
	RuleLegacyLayout      = "legacy-layout"
	SecretRulePrefix      = "secret:"
	// Stale references (package stale): warnings unless check.stale says otherwise.
	RuleStalePath    = "stale-path"
	RuleStaleCommand = "stale-command"
	RuleStaleSymbol  = "stale-symbol"
)

// Rules describes every fixed rule id, for SARIF's rule table and for documentation.
var Rules = map[string]string{
	RuleEntryTooLong:      "MEMORY.md is longer than context.max_chars, so agents see only its head (a warning).",
	RuleMarkerUnclosed:    "A block START marker has no END marker, or an END marker has no START.",
	RuleMarkerDuplicate:   "A block marker appears more than once.",
	RuleMarkerOrder:       "A block's END comes before its START, or the USER block comes before the MACHINE block.",
	RuleMarkerNesting:     "One block's markers sit inside the other block.",
	RuleMarkerMalformed:   "Text that looks like a block marker but is not written exactly as one.",
	RuleEntryMissingBlock: "memory-bank/MEMORY.md lacks the MACHINE or the USER block.",
	RuleTemplateMissing:   "memory-bank/MEMORY.md has no template version marker.",
	RuleTemplateOutdated:  "memory-bank/MEMORY.md's template is older than templates.minimum.",
	RuleTemplateMalformed: "The template version marker is not written as <!-- MEMORY_BANK_TEMPLATE:vMAJOR.MINOR -->, or not on the line after MACHINE_BLOCK_START.",
	RuleTemplateDuplicate: "memory-bank/MEMORY.md has more than one template version marker.",
	RuleNonMD:             "memory-bank/ holds only Markdown files (plus check.allowed_files).",
	RuleLegacyLayout:      "memory-bank/ has an older layout (memory-bank-skill legacy, Cline, Roo Code); mbguard migrate moves it to v7.1.",
	RuleSymlink:           "memory-bank/ must not hold symbolic links.",
	RuleTooLarge:          "The file is over 10 MB, too large to check.",
	RuleStalePath:         "A note names a repository path that is no longer there (deleted or renamed; git's commit is named).",
	RuleStaleCommand:      "A note names a make target, package.json script, just recipe or task the repository no longer defines.",
	RuleStaleSymbol:       "A note names a code symbol that no longer occurs in the tracked source; git shows the commit that removed it.",
}

// Failing reports whether any finding is an error.
func Failing(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

// SortFindings orders findings by path, line, rule and message, so output is stable.
func SortFindings(fs []Finding) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}
