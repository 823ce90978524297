package scanner

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/templates"
)

// RulePlaceholder is a {{name}} placeholder of mbguard's own templates left in a bank file:
// agents would read it as the project's memory.
const RulePlaceholder = "template-placeholder"

func init() {
	Rules[RulePlaceholder] = "A {{placeholder}} of mbguard's templates was left unfilled in a bank file."
}

// placeholderRe matches exactly the placeholders the templates carry, so a user's own
// Handlebars or Jinja text ({{user.name}}, {{ x }}) is never flagged.
var placeholderRe = sync.OnceValue(func() *regexp.Regexp {
	names := templates.Placeholders()
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	return regexp.MustCompile(`\{\{(` + strings.Join(names, "|") + `)\}\}`)
})

// CheckPlaceholders reports each line of a bank Markdown file holding a template placeholder
// outside fenced code. The fix is to write the real text (or delete the line).
func CheckPlaceholders(path string, content []byte) []Finding {
	if !inBank(path) || !bytes.Contains(content, []byte("{{")) {
		return nil
	}
	var out []Finding
	var fence bank.Fence
	for i, line := range bytes.Split(content, []byte("\n")) {
		if fence.Line(line) {
			continue
		}
		if m := placeholderRe().FindSubmatch(line); m != nil {
			out = append(out, Finding{
				Path: path, Line: i + 1, Rule: RulePlaceholder, Severity: SeverityError,
				Message: fmt.Sprintf("the template placeholder %s was never filled in; agents would read it as memory", m[0]),
				Fix:     "replace the line with the real text (or delete it), then run mbguard check again",
			})
		}
	}
	return out
}
