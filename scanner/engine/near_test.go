package engine

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

// randomIDs is high-entropy Markdown of about n bytes: table rows of random ids, base64
// blobs (wrapped and on one data-URI line), words between them. Random text holds gitleaks'
// short keywords ("sk", "key", "okta"…) by chance.
func randomIDs(n int, rnd *rand.Rand) string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	id := func(k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = alnum[rnd.IntN(len(alnum))]
		}
		return string(b)
	}
	blob := func(k int) string {
		raw := make([]byte, k)
		for i := range raw {
			raw[i] = byte(rnd.Uint32())
		}
		return base64.StdEncoding.EncodeToString(raw)
	}
	var b strings.Builder
	for b.Len() < n {
		switch rnd.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "| %s | %s | %s |\n", id(16), id(32), id(40))
		case 1:
			fmt.Fprintf(&b, "![x](data:image/png;base64,%s)\n\n", blob(100+rnd.IntN(400)))
		case 2:
			s := blob(60 + rnd.IntN(200))
			for len(s) > 76 {
				b.WriteString(s[:76] + "\n")
				s = s[76:]
			}
			b.WriteString(s + "\n\n")
		default:
			fmt.Fprintf(&b, "the build key %s was rotated; session %s\n", id(24), id(12+rnd.IntN(20)))
		}
	}
	return b.String()
}

func TestMaxLines(t *testing.T) {
	for expr, want := range map[string]int{
		`abc`:                          0,
		`a\nb`:                         1,
		`[\s'"]{0,3}x[\x60'"\s=]{0,5}`: 8,
		`(?i)key[ \t]{0,5}[\s]{0,3}[a-z0-9]{11,}`: 3,
		`(?s)a.*b`:     -1,
		`a[^"]{3,}"`:   -1,
		`a[^"\n]{3,}"`: 0,
	} {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := maxLines(re)
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("maxLines(%q) = %d, want %d", expr, n, want)
		}
	}
}

func TestMaxLen(t *testing.T) {
	cases := []struct {
		expr string
		want int // -1: unbounded
	}{
		{`abc`, 3},
		{`a{2,5}`, 5},
		{`(?i)k`, 3}, // KELVIN SIGN
		{`(?i)s`, 2}, // LATIN SMALL LETTER LONG S
		{`[a-z]{0,3}é`, 5},
		{`x.y`, 6},
		{`a|bcd`, 3},
		{`a*`, -1},
		{`a+b`, -1},
		{`a{2,}`, -1},
		{`\bkey\s{0,3}=\s{0,5}[a-z0-9]{10,20}\b`, 32},
	}
	for _, c := range cases {
		re, err := syntax.Parse(c.expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := maxLen(re)
		if !ok {
			n = -1
		}
		if n != c.want {
			t.Errorf("maxLen(%q) = %d, want %d", c.expr, n, c.want)
		}
	}
}

// Every match of a cutNear rule of gitleaks' default configuration, in random text with the
// rule's own samples, is within its bound: the windows' proof rests on it.
func TestNearRulesBoundTheirMatches(t *testing.T) {
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(11, 12))
	var some []string
	for i, x := range ruleSamples(t) {
		if i%30 == 0 { // every rule keeps some; all of them take minutes
			some = append(some, x)
		}
	}
	text := randomIDs(10_000, rnd) + strings.Join(some, "\n\n")
	near := 0
	for id, r := range cfg.Rules {
		if classify(r, false) != cutNear {
			continue
		}
		near++
		n, lines, _ := nearReach(r)
		for _, m := range r.Regex.FindAllStringIndex(text, -1) {
			if n >= 0 && m[1]-m[0] > n {
				t.Errorf("%s: a match of %d bytes, bound %d", id, m[1]-m[0], n)
			}
			if nl := strings.Count(text[m[0]:m[1]], "\n"); n < 0 && nl > lines {
				t.Errorf("%s: a match across %d newlines, bound %d", id, nl, lines)
			}
		}
	}
	if near < 50 {
		t.Errorf("only %d of gitleaks' rules are cutNear: the classification lost its reach", near)
	}
}

// High-entropy content gives the same findings as gitleaks' detector on the whole text,
// with secrets of rules that span lines placed among random ids.
func TestRandomIDsMatchFullDetector(t *testing.T) {
	s := readySecrets(t, "")
	rnd := rand.New(rand.NewPCG(13, 14))
	var b strings.Builder
	for name, c := range multiLineCases() {
		b.WriteString(randomIDs(3000, rnd))
		b.WriteString("\n<!-- " + name + " -->\n" + c + "\n")
	}
	b.WriteString("sumologic_id =\n\n  'su" + strings.Repeat("Ab3", 4) + "'\n")
	text := b.String()
	if len(fullDetector(s, text)) < 3 {
		t.Fatal("gitleaks finds almost nothing: the case tests nothing")
	}
	assertSameAsDetector(t, s, text)
}

// A bare "U+" (about once in 4 KB of base64) no longer sends text to the decoding passes;
// a real U+XXXX escape still does. Either way the answer agrees with gitleaks' decoder.
func TestMayHoldEncodedUnicode(t *testing.T) {
	cases := map[string]bool{
		"iVBORw0KGgoAAAANSUhEUgAAAU+aBCDeFG)": false,
		"U+0041 U+0042\n":                     true,
		"smile U+1F60x":                       false,
		"end U+0041":                          true,
	}
	for text, want := range cases {
		if got := mayHoldEncoded([]byte(text)); got != want {
			t.Errorf("mayHoldEncoded(%q) = %v, want %v", text, got, want)
		}
		if _, segs := codec.NewDecoder().Decode(text, nil); len(segs) > 0 && !mayHoldEncoded([]byte(text)) {
			t.Errorf("%q: gitleaks' decoder finds a segment, mayHoldEncoded says no", text)
		}
	}
}

// BenchmarkScanLinear scans n, 2n and 4n lines of high-entropy Markdown and reports the time
// per line of each against that of n: ratios near 1 mean linear growth (gitleaks' detector on
// the whole text grows with the keywords random text holds by chance). Run it with
//
//	go test ./scanner/engine -run '^$' -bench ScanLinear -benchtime 3x
func BenchmarkScanLinear(b *testing.B) {
	s := readySecrets(b, "")
	rnd := rand.New(rand.NewPCG(15, 16))
	base := randomIDs(4<<20, rnd)
	nl := regexp.MustCompile("\n").FindAllStringIndex(base, -1)
	const n = 8000
	if len(nl) < 4*n {
		b.Fatalf("only %d lines generated", len(nl))
	}
	per := map[int]float64{}
	for _, k := range []int{1, 2, 4} {
		text := []byte(base[:nl[k*n-1][1]])
		s.Scan("memory-bank/x.md", text) // compile the rules it needs once
		start := time.Now()
		runs := 0
		for range b.N {
			if _, err := s.Scan("memory-bank/x.md", text); err != nil {
				b.Fatal(err)
			}
			runs++
		}
		per[k] = float64(time.Since(start)) / float64(runs*k*n)
		b.ReportMetric(per[k], fmt.Sprintf("ns/line@%dn", k))
	}
	b.ReportMetric(per[2]/per[1], "ratio-2n")
	b.ReportMetric(per[4]/per[1], "ratio-4n")
}

// decodesToNothing never says "nothing" where gitleaks' decoder finds a segment: checked on
// runs of base64 of random bytes, of text, hex digits and U+ escapes, in both alphabets.
func TestDecodesToNothingAgreesWithDecoder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(17, 18))
	skipped := 0
	for i := range 20000 {
		raw := make([]byte, 12+rnd.IntN(40))
		for j := range raw {
			if i%3 == 0 {
				raw[j] = byte(' ' + rnd.IntN(95)) // printable: decodes
			} else {
				raw[j] = byte(rnd.Uint32())
			}
		}
		var run string
		switch i % 5 {
		case 0, 1:
			run = base64.StdEncoding.EncodeToString(raw)
		case 2:
			run = base64.RawURLEncoding.EncodeToString(raw)
		case 3:
			run = fmt.Sprintf("%x", raw)
		default:
			run = base64.RawStdEncoding.EncodeToString(raw) + "U+0041"
		}
		if !decodesToNothing([]byte(run)) {
			continue
		}
		skipped++
		if _, segs := codec.NewDecoder().Decode(run, nil); len(segs) > 0 {
			t.Fatalf("%q: gitleaks' decoder finds a segment, decodesToNothing says none", run)
		}
	}
	if skipped < 5000 {
		t.Errorf("only %d of 20000 runs skipped: the shortcut does not help", skipped)
	}
}

// Encoded secrets (base64, hex, percent escapes, nested base64) among random ids and notes go
// through the decoding windows (decode.go); the findings are gitleaks' detector's on the whole
// text, decoding as its CLI does.
func TestEncodedAmongRandomIDsMatchFullDetector(t *testing.T) {
	s := readySecrets(t, "")
	rnd := rand.New(rand.NewPCG(19, 20))
	tok := testgit.FakeGitHubToken(t)
	b64 := base64.StdEncoding.EncodeToString
	secrets := []string{
		"config: " + b64([]byte("GITHUB_TOKEN="+tok)) + "\n",
		"nested " + b64([]byte(b64([]byte("password = \"Xk29fjQm3LpZ8vR2wq\"")))) + " end\n",
		"hex " + fmt.Sprintf("%x", "aws_secret_access_key = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"") + "\n",
		"url https://x.example/?q=api_key%3D%22Z8kQm2Lp9XvR4tYw7NbC%22&x=1\n",
		"sumo key " + b64([]byte("sumologic_id = 'suAb3Ab3Ab3Ab3Ab3'")) + "\n",
	}
	for name, filler := range map[string]func(int, *rand.Rand) string{"random ids": randomIDs, "notes": filler} {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			for i := range 12 {
				b.WriteString(filler(1500+rnd.IntN(3000), rnd))
				b.WriteString(secrets[i%len(secrets)])
			}
			text := b.String()
			if !mayHoldEncoded([]byte(text)) {
				t.Fatal("the text holds nothing the decoder decodes: the case tests nothing")
			}
			all := s.full().Detect(detect.Fragment{Raw: text, FilePath: "memory-bank/n.md", StartLine: 1})
			if n := len(decodedOnly(all)); n < 4 {
				t.Fatalf("gitleaks finds %d secrets, %d of them decoded: the case tests little", len(all), n)
			}
			assertSameAsDetector(t, s, text)
		})
	}
}

// kwSet.each reports every occurrence of every keyword, as a search for each one would.
func FuzzKwSet(f *testing.F) {
	f.Add("they keep the key; api_token=x s. hvs. ey ghp_ ey")
	f.Add("a")
	f.Add("eyey.s.s.")
	l := defaultLazy()
	if l == nil {
		f.Fatal("gitleaks' default rules cannot be split")
	}
	words := append([]string{"x", "ab"}, l.keywords...) // with a keyword of one byte and one of two
	set := newKwSet(words)
	f.Fuzz(func(t *testing.T, text string) {
		lower := []byte(strings.ToLower(text))
		got := map[[2]int]bool{}
		set.each(lower, func(k, at int) { got[[2]int{k, at}] = true })
		n := 0
		for k, w := range words {
			for at := 0; at+len(w) <= len(lower); at++ {
				if string(lower[at:at+len(w)]) == w {
					n++
					if !got[[2]int{k, at}] {
						t.Fatalf("keyword %q at %d not reported in %q", w, at, lower)
					}
				}
			}
		}
		if n != len(got) {
			t.Fatalf("%d occurrences reported, %d there", len(got), n)
		}
	})
}
