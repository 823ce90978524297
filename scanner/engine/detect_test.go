package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

func findingKey(f report.Finding) key {
	return key{f.RuleID, f.StartLine, f.EndLine, f.StartColumn, f.Secret, f.Match}
}

// fullDetector is gitleaks' answer: its detector, every rule, decoding, on the whole text.
func fullDetector(s *Detector, content string) []key {
	return keys(s.full().Detect(detect.Fragment{Raw: content, FilePath: "memory-bank/n.md", StartLine: 1}), findingKey)
}

// assertSameAsDetector fails when Secrets' cut-up scan and gitleaks' detector on the whole
// text disagree on any finding (rule, lines, column, secret, match).
func assertSameAsDetector(t *testing.T, s *Detector, content string) {
	t.Helper()
	want := fullDetector(s, content)
	got := keys(s.detect("memory-bank/n.md", []byte(content), 1), findingKey)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings differ from gitleaks' detector on the whole text\n got: %+v\nwant: %+v\ntext (%d bytes): %.400q", got, want, len(content), content)
	}
}

func readySecrets(t testing.TB, root string) *Detector {
	t.Helper()
	s := New(root)
	if err := s.Ready(); err != nil {
		t.Fatal(err)
	}
	return s
}

// multiLineCases are secrets whose match spans lines, several across a blank line: the
// cases cutting at blank lines used to miss in files over ~512 bytes.
func multiLineCases() map[string]string {
	return map[string]string{
		"curl bearer after blank line": "Call it like this:\n\ncurl https://api.example.com/v1/items\n\n  -H \"Authorization: Bearer 7Fq2LmZx9RtY4vWpK8sNd3Jh6\"\n",
		"curl user after blank line":   "curl --silent https://deploy.example.com/hook\n\n -u deployer:pQ9wTxu4FgK2m\n",
		"password value after blank":   "password:\n\n\"Xk29fjQm3LpZ8vR2wq\"\n",
		"api key two blank lines":      "api_key =\n\n\nZ8kQm2Lp9XvR4tYw7NbC\n",
		"private key with blank line": "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,7A1C2E3F4B5D6A7C8E9F0A1B2C3D4E5F\n\n" +
			strings.Repeat("MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8fWqnGbYHBqhDa5vyDcEQ5pzg\n", 8) + "-----END RSA PRIVATE KEY-----\n",
		"kubernetes secret across blank": "apiVersion: v1\nkind: Secret\n\nmetadata:\n  name: db\n\ndata:\n  password: cGFzc3dvcmQxMjM0NTY3OA==\n",
	}
}

// contexts places a sample where cutting could go wrong: alone, deep inside a long note with
// blank lines around it, with CRLF line ends, and with every newline doubled.
func contexts(sample string, rnd *rand.Rand) map[string]string {
	pre, post := filler(1100+rnd.IntN(400), rnd), filler(300, rnd)
	in := pre + "\n" + sample + "\n\n" + post
	out := map[string]string{
		"alone":          sample,
		"in a long note": in,
		"crlf":           strings.ReplaceAll(in, "\n", "\r\n"),
	}
	if strings.Contains(sample, "\n") {
		out["blank lines"] = pre + strings.ReplaceAll(sample, "\n", "\n\n") + "\n" + post
		out["blank crlf lines"] = pre + strings.ReplaceAll(sample, "\n", "\r\n\r\n") + "\r\n" + post
	}
	return out
}

func TestDetectMatchesFullDetector(t *testing.T) {
	s := readySecrets(t, "")
	rnd := rand.New(rand.NewPCG(3, 4))
	for name, c := range multiLineCases() {
		for where, text := range contexts(c, rnd) {
			t.Run(name+"/"+where, func(t *testing.T) {
				if len(fullDetector(s, text)) == 0 && where == "in a long note" {
					t.Fatalf("gitleaks finds nothing in the case: it tests nothing")
				}
				assertSameAsDetector(t, s, text)
			})
		}
	}
}

// TestCutMatchesDetectorOnRuleSamples runs every true and false positive of every
// gitleaks rule through notes of 25 samples each, between short paragraphs, so that cuts fall
// at every kind of place: with LF, with CRLF, and with every newline of a sample doubled.
func TestCutMatchesDetectorOnRuleSamples(t *testing.T) {
	samples := ruleSamples(t)
	if len(samples) < 5000 {
		t.Fatalf("only %d rule samples read from gitleaks' sources; the reader needs updating", len(samples))
	}
	variantNames := []string{"lf", "blank crlf lines", "random ids"}
	if os.Getenv("MBGUARD_ALL_SAMPLES") == "" {
		// Every 15th sample (~620 of ~9,300; every rule keeps some) and two variants keep this
		// under ten seconds; MBGUARD_ALL_SAMPLES=1 runs all of them in all four variants (~4 min).
		stride := 15
		if raceOn {
			stride = 60
		}
		var some []string
		for i := 0; i < len(samples); i += stride {
			some = append(some, samples[i])
		}
		samples = some
	} else {
		variantNames = append(variantNames, "crlf", "blank lines")
	}
	s := readySecrets(t, "")
	// Samples are full of base64 and hex, for which detect hands the whole text to the full
	// detector; the cutting is compared here, against the same rules without decoding.
	plain := detect.NewDetector(s.full().Config)
	rnd := rand.New(rand.NewPCG(5, 6))
	variants := map[string]func(string) string{
		"lf":               func(x string) string { return x },
		"crlf":             func(x string) string { return strings.ReplaceAll(x, "\n", "\r\n") },
		"blank lines":      func(x string) string { return strings.ReplaceAll(x, "\n", "\n\n") },
		"blank crlf lines": func(x string) string { return strings.ReplaceAll(x, "\n", "\r\n\r\n") },
		"random ids":       func(x string) string { return x },
	}
	const group = 25
	found := 0
	for _, name := range variantNames {
		v := variants[name]
		for at := 0; at < len(samples); at += group {
			var b strings.Builder
			for _, sample := range samples[at:min(at+group, len(samples))] {
				if name == "random ids" {
					// Keywords occur by chance in random text: windows around them overlap
					// the samples' own (cutNear).
					b.WriteString(randomIDs(200+rnd.IntN(600), rnd))
				} else {
					b.WriteString(filler(80+rnd.IntN(300), rnd))
				}
				b.WriteString(v(sample))
				b.WriteString([]string{"\n", "\n\n", " "}[rnd.IntN(3)])
			}
			text := b.String()
			want := keys(plain.Detect(detect.Fragment{Raw: text, FilePath: "memory-bank/n.md", StartLine: 1}), findingKey)
			found += len(want)
			got := keys(s.cut("memory-bank/n.md", []byte(text), 1, twinPicker("memory-bank/n.md", []byte(text))), findingKey)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, samples %d-%d: findings differ from gitleaks' detector\n got: %+v\nwant: %+v", name, at, at+group-1, got, want)
			}
		}
	}
	t.Logf("%d samples, %d findings compared", len(samples), found)
	if found < len(samples) {
		t.Errorf("only %d findings in %d samples: the samples do not exercise the rules", found, len(samples))
	}
}

// A line over 1 MB (generated notes, minified JSON) with secrets at both ends.
func TestDetectMatchesFullDetectorOnHugeLine(t *testing.T) {
	s := readySecrets(t, "")
	tok := testgit.FakeGitHubToken(t)
	repeat := 40000 // a 1.1 MB line
	if raceOn {
		repeat = 10000 // 280 KB, still far past every window and fragment; the full detector is slow under -race
	}
	line := "GITHUB_TOKEN=" + tok + " " + strings.Repeat("note about the key decision ", repeat) + "password = \"Xk29fjQm3LpZ8vR2wq\" curl -u admin:Tr0ub4dor3x https://x\n"
	rnd := rand.New(rand.NewPCG(7, 8))
	assertSameAsDetector(t, s, filler(3000, rnd)+line+"\n"+filler(3000, rnd))
}

func FuzzDetectMatchesFullDetector(f *testing.F) {
	for _, c := range multiLineCases() {
		f.Add(c)
	}
	for _, c := range prefilterCases {
		f.Add(c)
	}
	f.Add("curl -s https://x\n\n\n-H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123'\r\n")
	// Every rule's own samples seed the corpus (one in 15 of them, so that the seeds, which
	// plain go test runs, stay quick).
	stride := 15
	if raceOn {
		stride = 60
	}
	for i, sample := range ruleSamples(f) {
		if i%stride == 0 {
			f.Add(sample)
		}
	}
	s := readySecrets(f, "")
	// Fragments of a line or two make the cuts fall all over the fuzzed text.
	old, oldLong := fragmentTarget, longLine
	fragmentTarget = 8
	if !raceOn {
		longLine = 16 // and lean twins on most texts (a twin of the full detector is slow to build under -race)
	}
	f.Cleanup(func() { fragmentTarget, longLine = old, oldLong })
	f.Fuzz(func(t *testing.T, text string) { assertSameAsDetector(t, s, text) })
}

// A scan of content with a long line swaps detectors for lean twins (lean.go): the
// findings stay gitleaks' on the whole text, whether an allowlist is dead (its expressions
// match nowhere, or its paths miss the file) or alive (an import line, a BitBake recipe).
func TestLeanTwinMatchesFullDetector(t *testing.T) {
	s := readySecrets(t, "")
	var ids strings.Builder
	n := 300 // 15 KB lines
	if raceOn {
		n = 100 // 5 KB, still past longLine; the full detector is slow under -race
	}
	for i := range n {
		fmt.Fprintf(&ids, `{"id":"n%d","token_hash":"%s"},`, i, strings.Repeat(string(rune('a'+i%26)), 3)+"Q8vR2wqXk29fjQm3Lp"+strconv.Itoa(i))
	}
	line := ids.String()
	cases := []struct{ name, path, text string }{
		{"dead allowlists", "memory-bank/n.md", line + "\n"},
		{"import line allows it", "memory-bank/n.md", "import { a } from 'b' " + line + "\n" + line + "\n"},
		{"mount line allows it", "memory-bank/n.md", line + " --mount=type=secret,id=x\n" + line + "\n"},
		{"bitbake recipe", "memory-bank/recipe.bb", `SRC_URI = "git ` + line + "\"\n" + line + "\n"},
		{"bitbake allowlist, other file", "memory-bank/recipe.md", `SRC_URI = "git ` + line + "\"\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			content := []byte(c.text)
			if !hasLongLine(content) {
				t.Fatal("no long line: the test would not use a twin")
			}
			want := keys(s.full().Detect(detect.Fragment{Raw: c.text, FilePath: c.path, StartLine: 1}), findingKey)
			got := keys(s.detect(c.path, content, 1), findingKey)
			if len(want) == 0 {
				t.Fatal("gitleaks finds nothing: the case tests nothing")
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%d findings, gitleaks on the whole text %d", len(got), len(want))
			}
		})
	}
	// and the twin is a different detector for the first, the same for the recipe
	p := s.planFor("memory-bank/n.md", []byte(line))
	if p.generic == nil || twinPicker("memory-bank/n.md", []byte(line))(p.generic) == p.generic {
		t.Error("a long line with dead allowlists did not get a lean twin")
	}
}
