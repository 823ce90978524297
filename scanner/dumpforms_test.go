package scanner

import (
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testhost"
)

// leftOf reports the longest piece of secret a redacted text still shows: as text (any
// window of 6 characters of it, spaces left out), or as hex of any 4 of its bytes in either
// byte order of a 2-byte word, spaces and line breaks left out. "" when none.
func leftOf(text, secret string) string {
	flat := strings.ToLower(strings.NewReplacer(" ", "", "\t", "", "\n", "", "\r", "").Replace(text))
	perLine := strings.ReplaceAll(text, " ", "")
	for i := 0; i+6 <= len(secret); i++ {
		if w := secret[i : i+6]; strings.Contains(perLine, w) {
			return w
		}
	}
	h := hex.EncodeToString([]byte(secret))
	for i := 0; i+8 <= len(h); i += 2 {
		w := h[i : i+8]
		swapped := w[2:4] + w[0:2] + w[6:8] + w[4:6]
		if strings.Contains(flat, w) {
			return w
		}
		if i%4 == 0 && strings.Contains(flat, swapped) {
			return swapped
		}
	}
	return ""
}

// The hex dumps of real xxd, od and hexdump (byte groups of 1, 2 and 4 bytes, line offsets,
// little-endian words, the character column) of a file holding a secret, at every alignment
// of the secret in a line, show none of it once redacted, and keep the lines that hold none.
func TestRedactTextsHexDumps(t *testing.T) {
	secret := fakeGitHubToken(t)
	dumps := [][]string{
		{"xxd"}, {"xxd", "-g1"}, {"xxd", "-g4"}, {"xxd", "-c8"}, {"xxd", "-u"}, {"xxd", "-c32", "-g8"},
		{"od", "-An", "-tx1"}, {"od", "-tx1"}, {"od", "-An", "-tx1", "-w8"}, {"od", "-tx2"}, {"od", "-An", "-tx4"}, {"od", "-x"},
		{"hexdump", "-C"}, {"hexdump"}, {"hd"},
	}
	dir := t.TempDir()
	for _, d := range dumps {
		testhost.Tool(t, d[0], "apt-get install xxd bsdextrautils")
		for pad := range 5 {
			p := filepath.Join(dir, "f")
			body := strings.Repeat("a", pad) + "token: " + secret + "\nrest of the notes, no secret here at all\n"
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(d[0], append(d[1:], p)...).Output()
			if err != nil {
				t.Fatalf("%v: %v", d, err)
			}
			got := RedactTexts(string(out), SecretForms(secret))
			if left := leftOf(got, secret); left != "" {
				t.Errorf("%v, pad %d: %q of the secret is left:\n%s", d, pad, left, got)
			}
			if !strings.Contains(got, "REDACTED") {
				t.Errorf("%v, pad %d: nothing redacted:\n%s", d, pad, got)
			}
			// the last line holds no secret byte: it stays as the tool printed it
			lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(got, last) {
				t.Errorf("%v, pad %d: the last line %q, which holds no secret, was changed:\n%s", d, pad, last, got)
			}
		}
	}
	// text that only looks like a dump is left alone
	for _, s := range []string{"dead beef cafe\nno secret\n", "00000000: 6869  hi\n"} {
		if got := RedactTexts(s, SecretForms(secret)); got != s {
			t.Errorf("RedactTexts(%q) = %q", s, got)
		}
	}
}

// RedactTexts stays linear: a long dump-like text is read once, whatever the secrets. The
// baseline is the line-break-aware replacement alone (before hex dumps were read).
func BenchmarkRedactTextsDump(b *testing.B) {
	secret := "ghp_" + strings.Repeat("x3Kf", 9)
	line := "00000000: 746f 6b65 6e3a 2067 6870 5f38 7833 4b66  token: ghp_8x3Kf\n"
	text := strings.Repeat(line, 1<<12)
	forms := SecretForms(secret)
	b.Run("baseline=flat", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			redactFlat(text, forms)
		}
	})
	b.Run("with-dumps", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			RedactTexts(text, forms)
		}
	})
}
