package scanner

import (
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

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
