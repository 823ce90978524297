package lifecycle

import (
	"strings"
	"testing"
)

// TestDecisionHeadings: Decision Highlights name decisions, not the parts every record repeats
// (Roo Code's "### Decision / ### Rationale / ### Implementation Details", seen on
// auto-quote-system) nor an empty template's labels over a lone "*" (miniimagecompressor).
func TestDecisionHeadings(t *testing.T) {
	for name, tc := range map[string]struct{ md, want string }{
		"roo records": {"# Decision Log\n## 2025-12-25: LLM first\n### Decision\nUse it.\n### Rationale\nCheap.\n## 2025-12-15: Stack\n### Decision\nGo.\n### Rationale\nFast.\n",
			"2025-12-25: LLM first|2025-12-15: Stack"},
		"empty template": {"# Decision Log\n\n*\n\n## Decision\n\n*\n\n## Rationale \n\n*\n", ""},
		"plain":          {"# Decisions\n\n## Local transcription\n\n[2025-03-02] - offline.\n\n## SQLite\n\nFTS5 is enough.\n", "Local transcription|SQLite"},
		"chinese":        {"## 代码规范\n\n- 使用 gofmt\n\n```go\n## not a heading\n```\n", "代码规范"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := strings.Join(decisionHeadings([]byte(tc.md)), "|"); got != tc.want {
				t.Errorf("decisionHeadings = %q; want %q", got, tc.want)
			}
		})
	}
}
