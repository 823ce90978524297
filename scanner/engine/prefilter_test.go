package engine

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

// prefilterCases are texts around the edges of what generic-api-key and the decoder match.
var prefilterCases = []string{
	"",
	"plain prose about the key decision and the token budget.",
	"api_key = 'Xk29fjQm3LpZ8vR2wq'",
	"API_KEY: Xk29fjQm3LpZ8vR2wq\n",
	"password:\n\n   \"Xk29fjQm3LpZ8vR2wq\"",
	"secret_value_for_the_service_a :::= Xk29fjQm3LpZ8vR2wq;",
	"the token, abcdefghijkl is long",
	"access_token => ab+cd/ef+gh/ij==",
	"toKEN ?= 0123456789",
	"to\u212aen = Xk29fjQm3LpZ8vR2wq", // KELVIN SIGN folds onto k
	"acce\u017f\u017f = Xk29fjQm3LpZ8vR2wq",
	"auth || Xk29fjQm3LpZ8vR2wq ",
	"key\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t= Xk29fjQm3LpZ8vR2wq",
	"creds = `\n\n\nXk29fjQm3LpZ8vR2wq`",
	"<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->",
	"GITHUB_TOKEN=ghp_v55q8WIT9MeYoK7xCo7PNAOJoTGEA7Qr3xqk",
	"dG9rZW4gPSBYazI5ZmpRbTNMcFo4dlIyd3E=", // base64 of token = Xk29fjQm3LpZ8vR2wq
	"dG9rZW4gPSBYazI5ZmpRbTNMcFo4dlIyd3E",
	"746f6b656e203d20586b3239666a516d334c705a38765232777120",
	"token%20%3D%20Xk29fjQm3LpZ8vR2wq",
	"U+0074U+006F ",
	`\u0074\u006f\u006b`,
	`\\U0074`,
	"abcdefghijklmnop_", // 17 base64 letters that decode to no ASCII
	"0123456789abcdef0123456789abcdef",
	"3f786850e387550fdab836ed7e6dc881de23001b",
	"746f6b656e203d20586b3239666a516d334c705a38765232777120_and_more_base64_like_text",
	"abc/def+ghi-jkl_mnopqrstuvwxyz0123==",
}

// genericRule's expression must be the one mayHoldGeneric encodes, or the filter never applies.
func TestGenericRuleIsTheKnownOne(t *testing.T) {
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := withoutGeneric(cfg); !ok {
		t.Fatalf("gitleaks' %s is no longer %s: update genericRegex and mayHoldGeneric", genericRule, genericRegex)
	}
}

// checkPrefilters fails when a filter says "no" for text the real expression or decoder
// finds something in.
func checkPrefilters(t *testing.T, generic *regexp.Regexp, s string) {
	t.Helper()
	if generic.MatchString(s) && !mayHoldGeneric([]byte(s)) {
		t.Errorf("generic-api-key matches %q, but mayHoldGeneric says no", s)
	}
	if _, segs := codec.NewDecoder().Decode(s, nil); len(segs) > 0 && !mayHoldEncoded([]byte(s)) {
		t.Errorf("the decoder finds %d segment(s) in %q, but mayHoldEncoded says no", len(segs), s)
	}
}

func TestPrefiltersAreSound(t *testing.T) {
	generic := regexp.MustCompile(genericRegex)
	for _, s := range prefilterCases {
		t.Run(strings.ReplaceAll(s, "/", "∕"), func(t *testing.T) { checkPrefilters(t, generic, s) })
	}
}

// The filters must also say "no" where it pays: prose and block markers.
func TestPrefiltersPassProse(t *testing.T) {
	for _, s := range []string{
		"We keep the token budget low because the key decision was to cache, not retry.",
		"<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- USER_BLOCK_END -->",
		"| decision | 2026-01-10 | the auth service moved |",
		"Fixed in 3f786850e387550fdab836ed7e6dc881de23001b (see the review), after c1a2b3d.",
	} {
		t.Run(s[:12], func(t *testing.T) {
			if mayHoldGeneric([]byte(s)) || mayHoldEncoded([]byte(s)) {
				t.Errorf("filters keep %q for the full detector", s)
			}
		})
	}
}

// Scan's findings are the full detector's on the prefilters' edge cases, whatever path detect takes.
func TestScanMatchesFullDetector(t *testing.T) {
	s := readySecrets(t, "")
	tok := testgit.FakeGitHubToken(t)
	for _, c := range append(prefilterCases, "notes\n\nGITHUB_TOKEN="+tok+"\n", "x\n\napi_key = '"+tok[4:]+"'\n") {
		t.Run(strings.ReplaceAll(c, "/", "∕"), func(t *testing.T) { assertSameAsDetector(t, s, c) })
	}
}

func FuzzPrefilters(f *testing.F) {
	for _, s := range prefilterCases {
		f.Add(s)
	}
	generic := regexp.MustCompile(genericRegex)
	f.Fuzz(func(t *testing.T, s string) { checkPrefilters(t, generic, s) })
}
