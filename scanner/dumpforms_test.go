package scanner

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
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
	secret := testgit.FakeGitHubToken(t)
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

// xxdLike formats b as xxd does with c bytes a line in groups of g bytes: offset, hex groups,
// two spaces, the text column ('.' for bytes that do not print).
func xxdLike(b []byte, c, g int) string {
	var out strings.Builder
	for off := 0; off < len(b); off += c {
		line := b[off:min(off+c, len(b))]
		fmt.Fprintf(&out, "%08x: ", off)
		width := 0
		for i := 0; i < len(line); i += g {
			grp := hex.EncodeToString(line[i:min(i+g, len(line))])
			out.WriteString(grp + " ")
			width += len(grp) + 1
		}
		full := c*2 + (c+g-1)/g
		out.WriteString(strings.Repeat(" ", max(0, full-width)) + " ")
		for _, x := range line {
			if x >= 0x20 && x < 0x7f {
				out.WriteByte(x)
			} else {
				out.WriteByte('.')
			}
		}
		out.WriteByte('\n')
	}
	return out.String()
}

// FuzzRedactTextsDump: a secret among any bytes, dumped with any line width and group size, is
// left in no form once redacted.
func FuzzRedactTextsDump(f *testing.F) {
	f.Add([]byte("token: "), []byte("\nrest\n"), uint8(16), uint8(2))
	f.Add([]byte{}, []byte{0, 1, 2}, uint8(8), uint8(4))
	f.Add([]byte("ghp_ghp_"), []byte("ghp_"), uint8(32), uint8(1))
	secret := "ghp_" + "8x3KfTq2LmZ9vR4wYb7NcJ1pHs6DgE0aUiXo"
	forms := SecretForms(secret)
	f.Fuzz(func(t *testing.T, before, after []byte, c, g uint8) {
		cols := int(c%32) + 4
		grp := []int{1, 2, 4, 8}[g%4]
		if len(before) > 256 || len(after) > 256 {
			return
		}
		// the bytes around hold none of the secret's characters, so what is left of it is its
		clean := func(b []byte) []byte {
			out := slices.Clone(b)
			for i, x := range out {
				if strings.IndexByte(secret, x) >= 0 {
					out[i] = '#'
				}
			}
			return out
		}
		before, after = clean(before), clean(after)
		dump := xxdLike(append(append(append([]byte{}, before...), secret...), after...), cols, grp)
		got := RedactTexts(dump, forms)
		if left := leftOf(got, secret); left != "" {
			t.Fatalf("%q of the secret is left (c=%d g=%d):\n%s", left, cols, grp, got)
		}
	})
}
