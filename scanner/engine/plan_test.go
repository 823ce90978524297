package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		name     string
		regex    string
		keywords []string
		want     cutKind
	}{
		{"token on one line", `ghp_[0-9a-zA-Z]{36}`, []string{"ghp_"}, cutLine},
		{"ends with its newline", `\bAKIA[A-Z0-9]{16}(?:\s|$)`, []string{"akia"}, cutLine},
		{"one newline inside", `BEGIN-X\n[a-z]{8}`, nil, cutBlank},
		{"two newlines: spans a blank line, bounded", `key:[\s]{0,3}[a-z]{8}`, []string{"key"}, cutNear},
		{"spans blank lines, unbounded", `key:\s*[a-z]{8}`, []string{"key"}, cutNone},
		{"spans blank lines, no keyword", `[\s]{0,3}[a-z]{8}X`, nil, cutNone},
		{"bounded, keyword outside the match", `[\s]{0,3}[0-9a-f]{32}`, []string{"heroku"}, cutNone},
		{"bounded, at the text start", `\Akey:[\s]{0,3}[a-z]{8}`, []string{"key"}, cutNone},
		{"bounded, case-folded s", `(?i)secret:[\s]{0,3}[a-z]{8}`, []string{"secret"}, cutNear},
		{"dot matches newline", `(?s)BEGIN-X.*?END-X`, nil, cutNone},
		{"starts with a newline", `\n[a-z]{8}X`, nil, cutNone},
		{"starts at the text start", `^secret=[a-z]{8}`, nil, cutNone},
		{"multi-line anchor is fine", `(?m)^secret=[a-z]{8}`, nil, cutLine},
		{"assertion after a newline", `abc\n\b[a-z]{4}`, nil, cutNone},
		{"matches the empty string", `[a-z]*`, nil, cutNone},
		{"keyword outside the match", `[0-9a-f]{32}`, []string{"heroku"}, cutNone},
		{"keyword in every alternative", `(?:AKIA|ASIA)[A-Z0-9]{16}`, []string{"akia", "asia"}, cutLine},
		{"keyword in one alternative only", `(?:AKIA|XXXX)[A-Z0-9]{16}`, []string{"akia"}, cutNone},
		{"keyword split by a class", `ghp[_][0-9a-z]{36}`, []string{"ghp_"}, cutLine},
		// (?i)s also matches U+017F, which gitleaks' lower-casing leaves as it is: not cut at
		// lines, but near its keyword in text without such a letter (cut checks).
		{"case-folded s", `(?i)secret_[0-9a-z]{16}`, []string{"secret"}, cutNear},
		{"case-folded k", `(?i)key_[0-9a-z]{16}`, []string{"key"}, cutLine},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := config.Rule{RuleID: "x", Regex: regexp.MustCompile(c.regex), Keywords: c.keywords}
			if got := classify(r, false); got != c.want {
				t.Errorf("classify(%q) = %d, want %d", c.regex, got, c.want)
			}
		})
	}
	if classify(config.Rule{Regex: regexp.MustCompile(`ghp_[0-9a-zA-Z]{36}`)}, true) != cutNone {
		t.Error("a rule tied to a composite rule is cut")
	}
}

// The decision for cutLine and cutBlank, checked by brute force: no match of such a rule in a
// text holds what the cut would split.
func FuzzClassifySound(f *testing.F) {
	f.Add(`key:[\s]{0,3}[a-z]{8}`, "key:\n\nabcdefgh")
	f.Add(`ghp_[0-9a-z]{4}\s?`, "ghp_abcd\n\nx")
	f.Add(`a\n?b`, "a\nb")
	f.Fuzz(func(t *testing.T, expr, text string) {
		if len(expr) > 64 || len(text) > 256 {
			return
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		p, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			return
		}
		prog, err := syntax.Compile(p.Simplify())
		if err != nil {
			return
		}
		k := progCut(prog)
		if k == cutNone {
			return
		}
		for _, m := range re.FindAllStringIndex(text, -1) {
			s := text[m[0]:m[1]]
			if m[0] == m[1] {
				t.Fatalf("%q (kind %d) matched the empty string", expr, k)
			}
			if k == cutLine && strings.Contains(strings.TrimSuffix(s, "\n"), "\n") {
				t.Fatalf("%q (cutLine) matched %q, past a newline", expr, s)
			}
			if k == cutBlank && (strings.Count(s, "\n") > 1 || s[0] == '\n' || s[0] == '\r') {
				t.Fatalf("%q (cutBlank) matched %q", expr, s)
			}
		}
	})
}

// A repository's own rule that spans blank lines is scanned whole, one that stays on a line
// is cut: the decision comes from the loaded configuration.
func TestCustomRulesClassifiedFromConfig(t *testing.T) {
	root := t.TempDir()
	toml := "[extend]\nuseDefault = true\n\n" +
		"[[rules]]\nid = \"mb-block\"\nregex = '''(?s)MBSECRET-BEGIN.*?MBSECRET-END'''\nkeywords = [\"mbsecret\"]\n\n" +
		"[[rules]]\nid = \"mb-line\"\nregex = '''MBLINE-[0-9]{6}'''\nkeywords = [\"mbline\"]\n"
	if err := os.WriteFile(filepath.Join(root, ".gitleaks.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	s := readySecrets(t, root)
	if _, ok := s.plan.whole.Config.Rules["mb-block"]; !ok {
		t.Error("mb-block, which spans blank lines, is not scanned whole")
	}
	if _, ok := s.plan.near.Config.Rules["mb-line"]; !ok {
		t.Error("mb-line, which stays on a line and is short, is not run near its keyword")
	}
	content := strings.Repeat("Some prose about the key decision.\n\n", 30) + "MBSECRET-BEGIN\n\nhunter2\n\nMBSECRET-END\n\nMBLINE-123456\n"
	got, err := s.Scan("memory-bank/n.md", []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	if rs := ruleLines(got); strings.Join(rs, " ") != "mb-block@61 mb-line@67" {
		t.Errorf("findings = %v, want mb-block@61 mb-line@67", rs)
	}
	assertSameAsDetector(t, s, content)
}

// The parser factors AKIA|ASIA|A3T[A-Z0-9] into A(?:KIA|SIA|3T[A-Z0-9]); the keywords are
// still found in every match, so the rule is cut rather than scanned whole.
func TestClassifyFactoredAlternation(t *testing.T) {
	r := config.Rule{RuleID: "aws", Regex: regexp.MustCompile(`\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`),
		Keywords: []string{"a3t", "akia", "asia", "abia", "acca"}}
	if k := classify(r, false); k == cutNone {
		t.Error("aws-access-token's expression is scanned whole")
	}
	r.Keywords = []string{"akia", "asia", "abia", "acca"} // a3t missing: A3T… matches hold none
	if k := classify(r, false); k != cutNone {
		t.Errorf("classify = %d without the keyword of one alternative, want cutNone", k)
	}
}
