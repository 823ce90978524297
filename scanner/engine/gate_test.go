package engine

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

func TestSupersets(t *testing.T) {
	cases := []struct {
		regex string
		want  []string // the literal prefixes; nil: no superset test
	}{
		{`\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9]{17,})(?:\s|$)`, []string{"ey"}},
		{`\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))(?:\s|$)`, []string{"hvs.", "s."}},
		{`(?i)[\w.-]{0,50}?(?:key|token)[ \t]*=[a-z0-9]{16}`, nil}, // no literal start
		{`(?i)secret_[a-z0-9]{16}`, nil},                           // folded letters
		{`(?:ghp_|x)[0-9a-z]{36}`, nil},                            // a branch without one
		{`\bcurl\b.*[^"]{3,}`, []string{"curl"}},                   // a wide class is left out, not fatal
	}
	for _, c := range cases {
		var got []string
		for _, re := range supersets(c.regex) {
			p, _ := re.LiteralPrefix()
			got = append(got, p)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("supersets(%q) start with %q, want %q", c.regex, got, c.want)
		}
	}
}

func TestGate(t *testing.T) {
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	tok := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	cases := []struct {
		rule, path, text string
		want             bool
	}{
		{"jwt", "memory-bank/n.md", "they keep the key they had\n", false},
		{"jwt", "memory-bank/n.md", "token: " + tok + "\n", true},
		{"vault-service-token", "memory-bank/n.md", "It runs.\nThe tests.\n", false},
		{"vault-service-token", "memory-bank/n.md", "VAULT_TOKEN=s.Abcdefghijklmnopqrstuvwx\n", true},
		{"hashicorp-tf-password", "memory-bank/n.md", `administrator_login_password = "thisIsDog11"` + "\n", false},
		{"hashicorp-tf-password", "infra/main.tf", `administrator_login_password = "thisIsDog11"` + "\n", true},
		{"pkcs12-file", "memory-bank/n.md", "", false},
		{"pkcs12-file", "certs/client.p12", "", true},
		{genericRule, "memory-bank/n.md", "anything at all\n", true}, // no test applies
	}
	for _, c := range cases {
		r, ok := cfg.Rules[c.rule]
		if !ok {
			t.Fatalf("no rule %s in gitleaks' defaults", c.rule)
		}
		if got := newGate(r).may(c.path, []byte(c.text)); got != c.want {
			t.Errorf("%s may report in %s %q: %v, want %v", c.rule, c.path, c.text, got, c.want)
		}
	}
}

// Every sample a rule's expression matches, its supersets match: the gate never drops a rule
// that has a match.
func TestGateSupersetsMatchRuleSamples(t *testing.T) {
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	samples := ruleSamples(t)
	gated, checked := 0, 0
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		g := newGate(r)
		if g.pre == nil {
			continue
		}
		gated++
		for _, s := range samples {
			if !preMatches(g, s) && r.Regex.MatchString(s) {
				t.Errorf("%s matches %q, its supersets do not", id, s)
			}
			checked++
		}
	}
	if gated < 50 {
		t.Errorf("only %d of gitleaks' rules have a superset test: supersets no longer reads them", gated)
	}
	t.Logf("%d gated rules, %d rule-sample pairs", gated, checked)
}

func preMatches(g ruleGate, text string) bool {
	for _, re := range g.pre {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// The gate reads paths as gitleaks does: notes never run the .tf, .yaml and .p12 rules, and
// files those rules are for get exactly gitleaks' findings.
func TestDetectMatchesFullDetectorOnRulePaths(t *testing.T) {
	s := readySecrets(t, "")
	rnd := rand.New(rand.NewPCG(9, 10))
	texts := map[string]string{
		"tf":   `resource "azurerm_sql_server" "x" {` + "\n" + `  administrator_login_password = "thisIsDog11"` + "\n}\n",
		"yaml": "apiVersion: v1\nkind: Secret\ndata:\n  password: cGFzc3dvcmQxMjM0NTY3OA==\n",
		"p12":  "binary, as far as anyone knows\n",
	}
	rules := map[string]bool{}
	for _, path := range []string{"memory-bank/n.md", "infra/main.tf", "deploy/secret.yaml", "certs/client.p12", "main.hcl"} {
		for name, text := range texts {
			for where, in := range contexts(text, rnd) {
				want := keys(s.full().Detect(detect.Fragment{Raw: in, FilePath: path, StartLine: 1}), findingKey)
				for _, k := range want {
					rules[k.Rule] = true
				}
				got := keys(s.detect(path, []byte(in), 1), findingKey)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %s %s: findings differ from gitleaks' detector\n got: %+v\nwant: %+v", path, name, where, got, want)
				}
			}
		}
	}
	for _, id := range []string{"hashicorp-tf-password", "kubernetes-secret-yaml", "pkcs12-file"} {
		if !rules[id] {
			t.Errorf("gitleaks reports no %s finding: the case tests nothing", id)
		}
	}
}

func FuzzGateSupersets(f *testing.F) {
	stride := 15
	if raceOn {
		stride = 60
	}
	for i, s := range ruleSamples(f) {
		if i%stride == 0 {
			f.Add(s)
		}
	}
	f.Add("they keep the key they had\nIt runs.\n")
	cfg, err := defaultConfig()
	if err != nil {
		f.Fatal(err)
	}
	type gated struct {
		id string
		re *regexp.Regexp
		g  ruleGate
	}
	var rules []gated
	for _, id := range cfg.OrderedRules {
		if g := newGate(cfg.Rules[id]); g.pre != nil {
			rules = append(rules, gated{id, cfg.Rules[id].Regex, g})
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, r := range rules {
			if !preMatches(r.g, text) && r.re.MatchString(text) {
				t.Errorf("%s matches %q, its supersets do not", r.id, text)
			}
		}
	})
}

// A rule gated out of a note is one the note could not trigger; the lazy plan leaves it out.
func TestLazyPlanLeavesGatedRulesOut(t *testing.T) {
	gitleaksMu.Lock()
	l, err := newLazyRules(config.DefaultConfig)
	gitleaksMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	prose := []byte("# Notes\n\nThey rotate the key. It runs.\n")
	p, err := l.planFor("memory-bank/n.md", prose)
	if err != nil {
		t.Fatal(err)
	}
	if got := planRules(p); len(got) != 0 {
		t.Errorf("prose runs %v: rules that cannot match it are not left out", got)
	}
	p, err = l.planFor("certs/"+strings.Repeat("x", 3)+".p12", prose)
	if err != nil {
		t.Fatal(err)
	}
	if !planRules(p)["pkcs12-file"] {
		t.Errorf("pkcs12-file left out for a .p12 file")
	}
}
