package scanner

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ScanRead finds a file's secrets with their line, rule and text, and finds nothing in a
// missing file, a directory or a file over MaxReadScan.
func TestScanRead(t *testing.T) {
	root := t.TempDir()
	state := t.TempDir()
	tok := fakeGitHubToken(t)
	p := filepath.Join(root, "memory-bank", "details", "tech.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "# Tech\n\ntoken: " + tok + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSecrets(root)
	got, b := s.ScanRead(state, "memory-bank/details/tech.md", p)
	if len(got) != 1 || got[0].Secret != tok || got[0].Line != 3 || got[0].Rule != "github-pat" || string(b) != body {
		t.Fatalf("ScanRead = %+v, %q", got, b)
	}
	if w := got[0].Where("memory-bank/details/tech.md"); w != "memory-bank/details/tech.md line 3 holds a secret (gitleaks rule github-pat)" {
		t.Fatalf("Where = %q", w)
	}
	if n := ReadNotice([]string{"a", "b"}); !strings.HasPrefix(n, "[mbguard] a; b. ") || strings.Contains(n, tok) {
		t.Fatalf("ReadNotice = %q", n)
	}
	big := filepath.Join(root, "memory-bank", "big.md")
	if err := os.WriteFile(big, []byte(body+strings.Repeat("x", MaxReadScan)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{filepath.Join(root, "memory-bank", "missing.md"), filepath.Dir(p), big} {
		if got, b := s.ScanRead(state, "memory-bank/x.md", q); got != nil || b != nil {
			t.Errorf("%s: ScanRead = %+v, %d bytes; want nothing", q, got, len(b))
		}
	}
}

// Whatever offset a secret sits at in a stream, one of its base64 forms appears verbatim in the
// stream's encoding (standard and URL alphabets), and its hex and reverse are forms too.
func TestSecretFormsFindReencodedSecrets(t *testing.T) {
	secret := "ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo" // split: this file holds no token
	forms := SecretForms(secret)
	if forms[0] != secret {
		t.Fatalf("forms[0] = %q, want the secret itself", forms[0])
	}
	found := func(text string) bool {
		for _, f := range forms {
			if strings.Contains(text, f) {
				return true
			}
		}
		return false
	}
	for pre := 0; pre < 6; pre++ {
		stream := []byte(strings.Repeat("x", pre) + "token: " + secret + "\nnext line\n")
		for name, enc := range map[string]*base64.Encoding{"std": base64.StdEncoding, "url": base64.URLEncoding, "raw": base64.RawStdEncoding} {
			if e := enc.EncodeToString(stream); !found(e) {
				t.Errorf("%s base64 of the secret at offset %d: no form found in %q", name, pre+7, e)
			}
		}
		if h := hex.EncodeToString(stream); !found(h) || !found(strings.ToUpper(h)) {
			t.Errorf("hex of the secret at offset %d: no form found", pre+7)
		}
	}
	r := []rune("a " + secret + " b")
	slices.Reverse(r)
	if !found(string(r)) {
		t.Error("the reversed secret is no form")
	}
	for _, f := range forms[1:] {
		if len(f) < minForm {
			t.Errorf("form %q is shorter than %d", f, minForm)
		}
	}
	if SecretForms("") != nil {
		t.Error("an empty secret has forms")
	}
}

// A re-encoded secret is replaced where the command wrapped its lines too (base64's 76
// columns), and text around it is left as it was.
func TestRedactTextsAcrossLineBreaks(t *testing.T) {
	secret := "ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo" // split: this file holds no token
	for pre := 0; pre < 80; pre += 7 {
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", pre) + "token: " + secret + "\n"))
		var wrapped strings.Builder
		for len(enc) > 76 {
			wrapped.WriteString(enc[:76] + "\n")
			enc = enc[76:]
		}
		wrapped.WriteString(enc + "\n")
		got := RedactTexts("before\n"+wrapped.String()+"after\n", SecretForms(secret))
		if !strings.Contains(got, "REDACTED") || !strings.HasPrefix(got, "before\n") || !strings.HasSuffix(got, "after\n") {
			t.Fatalf("offset %d: %q", pre, got)
		}
		flat := strings.ReplaceAll(got, "\n", "")
		for _, f := range SecretForms(secret)[1:] {
			if strings.Contains(flat, f) {
				t.Errorf("offset %d: form %q survived the redaction", pre, f)
			}
		}
	}
	if got := RedactTexts("no secret here\n", SecretForms(secret)); got != "no secret here\n" {
		t.Errorf("text without a secret changed: %q", got)
	}
}
