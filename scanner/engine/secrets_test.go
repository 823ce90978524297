package engine

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	. "github.com/mbguard/mbguard/scanner"
)

func TestSecretsScan(t *testing.T) {
	tok := testgit.FakeGitHubToken(t)
	cases := []struct {
		name    string
		files   map[string]string // repository files: .gitleaks.toml, .gitleaksignore
		content string
		want    []string // rule@line
	}{
		{name: "token", content: "# notes\n\nGITHUB_TOKEN=" + tok + "\n", want: []string{"github-pat@3"}},
		{name: "clean", content: "# notes\n\nnothing secret, only the word token.\n"},
		{name: "gitleaks:allow", content: "x\nGITHUB_TOKEN=" + tok + " # gitleaks:allow\n"},
		{name: "gitleaksignore fingerprint", files: map[string]string{".gitleaksignore": "memory-bank/n.md:github-pat:2\n"}, content: "x\nGITHUB_TOKEN=" + tok + "\n"},
		{name: "gitleaksignore for another line", files: map[string]string{".gitleaksignore": "memory-bank/n.md:github-pat:9\n"}, content: "x\nGITHUB_TOKEN=" + tok + "\n", want: []string{"github-pat@2"}},
		{name: "custom rule with default rules", files: map[string]string{".gitleaks.toml": "[extend]\nuseDefault = true\n\n[[rules]]\nid = \"mbguard-test\"\nregex = '''MBTEST-[0-9]{6}'''\n"},
			content: "a MBTEST-123456\nGITHUB_TOKEN=" + tok + "\n", want: []string{"mbguard-test@1", "github-pat@2"}},
		{name: "custom rules only", files: map[string]string{".gitleaks.toml": "[[rules]]\nid = \"mbguard-test\"\nregex = '''MBTEST-[0-9]{6}'''\n"},
			content: "a MBTEST-123456\nGITHUB_TOKEN=" + tok + "\n", want: []string{"mbguard-test@1"}},
		{name: "crlf keeps line numbers", content: "a\r\nb\r\nGITHUB_TOKEN=" + tok + "\r\n", want: []string{"github-pat@3"}},
		{name: "far into a long file", content: strings.Repeat("Some prose about the key decision.\n\n", 200) + "GITHUB_TOKEN=" + tok + "\n", want: []string{"github-pat@401"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for n, body := range c.files {
				if err := os.WriteFile(filepath.Join(root, n), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := New(root).Scan("memory-bank/n.md", []byte(c.content))
			if err != nil {
				t.Fatal(err)
			}
			var rs []string
			for _, f := range got {
				rs = append(rs, f.Rule+"@"+itoaLine(f.Line))
				if c.content[f.Start:f.End] != tok && strings.HasPrefix(f.Rule, "github") {
					t.Errorf("offsets cover %q, not the token", c.content[f.Start:f.End])
				}
			}
			if strings.Join(rs, " ") != strings.Join(c.want, " ") {
				t.Errorf("findings = %v, want %v", rs, c.want)
			}
			red := string(Redact([]byte(c.content), got))
			if len(got) > 0 && strings.Contains(red, tok) && strings.Contains(strings.Join(c.want, ""), "github") {
				t.Errorf("Redact left the token in: %q", red)
			}
		})
	}
}

func itoaLine(n int) string { return big.NewInt(int64(n)).String() }

func TestSecretsBrokenConfig(t *testing.T) {
	cases := []struct {
		name string
		prep func(t *testing.T, root string)
		want string
	}{
		{"unreadable config", func(t *testing.T, root string) {
			if err := os.Mkdir(filepath.Join(root, ".gitleaks.toml"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "reading .gitleaks.toml"},
		{"invalid toml", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, ".gitleaks.toml"), []byte("[[rules]\nid="), 0o644)
		}, ".gitleaks.toml"},
		{"ignore file is a directory", func(t *testing.T, root string) {
			os.Mkdir(filepath.Join(root, ".gitleaksignore"), 0o755)
		}, ".gitleaksignore"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			c.prep(t, root)
			_, err := New(root).Scan("memory-bank/a.md", []byte("x"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to name %s", err, c.want)
			}
			if strings.Contains(err.Error(), root) {
				t.Errorf("err repeats the absolute path: %v", err)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	in := []byte("abc SECRET def OTHER")
	got := string(Redact(in, []SecretFinding{{Start: 15, End: 20}, {Start: 4, End: 10}, {Start: 5, End: 8}, {Start: -1, End: 99}}))
	if got != "abc REDACTED def REDACTED" {
		t.Errorf("Redact = %q", got)
	}
	if string(in) != "abc SECRET def OTHER" {
		t.Error("Redact changed its input")
	}
}

// TestScanAcrossBlankLine is the write guard's scan (watcher Facts call Scan) of matches that
// span a blank line, with every amount of prose before them, so that any cut at blank lines
// would fall on the match for some amount.
func TestScanAcrossBlankLine(t *testing.T) {
	s := readySecrets(t, "")
	for name, c := range map[string]struct{ text, rule string }{
		"curl bearer": {"curl https://api.example.com/v1/items\n\n  -H \"Authorization: Bearer 7Fq2LmZx9RtY4vWpK8sNd3Jh6\"\n", "curl-auth-header"},
		"curl user":   {"curl https://deploy.example.com/hook\n\n -u deployer:pQ9wTxu4FgK2m\n", "curl-auth-user"},
		"value below": {"password:\n\n\"Xk29fjQm3LpZ8vR2wq\"\n", "generic-api-key"},
	} {
		for n := range 60 {
			content := strings.Repeat("Some prose about the key decision.\n\n", n) + c.text
			got, err := s.Scan("memory-bank/n.md", []byte(content))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Rule != c.rule || got[0].Line != 2*n+1 {
				t.Errorf("%s after %d paragraphs: found %+v, want %s on line %d", name, n, got, c.rule, 2*n+1)
			}
		}
	}
}
