package scanner

import (
	"strings"
	"testing"
)

func TestWriteGitHubAnnotations(t *testing.T) {
	fs := []Finding{
		{Path: "memory-bank/MEMORY.md", Line: 2, Rule: RuleTemplateOutdated, Severity: SeverityError, Message: "template v7.0 is older than v7.1", Fix: "run mbguard upgrade"},
		{Path: "memory-bank/a,b:c.md", Rule: RuleStalePath, Severity: SeverityWarning, Message: "100% gone\nsecond line"},
	}
	var b strings.Builder
	if err := WriteGitHub(&b, fs); err != nil {
		t.Fatal(err)
	}
	want := "::error file=memory-bank/MEMORY.md,line=2,title=mbguard template-outdated::template v7.0 is older than v7.1%0Afix: run mbguard upgrade\n" +
		"::warning file=memory-bank/a%2Cb%3Ac.md,title=mbguard stale-path::100%25 gone%0Asecond line\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if strings.Count(b.String(), "\n") != len(fs) {
		t.Error("an annotation spans more than one line")
	}
}

func TestWriteSummary(t *testing.T) {
	var b strings.Builder
	if err := WriteSummary(&b, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "passed") {
		t.Errorf("clean summary = %q", b.String())
	}
	b.Reset()
	WriteSummary(&b, []Finding{{Path: "memory-bank/x|y.md", Line: 3, Rule: "secret:aws-access-token", Severity: SeverityError, Message: "a | b"}})
	for _, want := range []string{"1 error(s), 0 warning(s)", "| `memory-bank/x\\|y.md` | 3 | `secret:aws-access-token` | error | a \\| b |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
