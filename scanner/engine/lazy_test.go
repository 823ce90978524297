package engine

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	toml "github.com/pelletier/go-toml/v2"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// The default configuration, split by hand, is what gitleaks' own loader reads from it.
func TestDefaultRulesSplitLikeGitleaks(t *testing.T) {
	head, rules, err := splitRules(config.DefaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	gitleaksMu.Lock()
	viper.Reset()
	viper.SetConfigType("toml")
	if err := viper.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		gitleaksMu.Unlock()
		t.Fatal(err)
	}
	var want config.ViperConfig
	err = viper.Unmarshal(&want)
	gitleaksMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(head)
	for _, r := range rules {
		b.WriteString(r.text)
	}
	var got config.ViperConfig
	if err := toml.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the split configuration reads differently from gitleaks' own loading")
	}
	if len(rules) != len(want.Rules) || len(rules) < 200 {
		t.Fatalf("%d rule tables, gitleaks reads %d", len(rules), len(want.Rules))
	}
	for i, r := range rules {
		w := want.Rules[i]
		var kws []string
		for _, k := range w.Keywords {
			kws = append(kws, strings.ToLower(k))
		}
		if r.id != w.ID || !reflect.DeepEqual(r.keywords, kws) {
			t.Errorf("rule %d: read %q %q, gitleaks reads %q %q", i, r.id, r.keywords, w.ID, kws)
		}
	}
}

func planRules(p *plan) map[string]bool {
	out := map[string]bool{}
	for _, d := range []*detect.Detector{p.line, p.blank, p.whole, p.near, p.generic} {
		if d == nil {
			continue
		}
		for id := range d.Config.Rules {
			out[id] = true
		}
	}
	return out
}

// Only the rules whose keywords occur in the text (and those without keywords) are built.
func TestLazyBuildsOnlyTriggeredRules(t *testing.T) {
	gitleaksMu.Lock()
	l, err := newLazyRules(config.DefaultConfig)
	gitleaksMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	compiled := func(id string) bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		_, ok := l.compiled[id]
		return ok
	}
	if _, err := l.planFor("memory-bank/n.md", []byte("# Notes\n\nWe rotate the signing key weekly.\n")); err != nil {
		t.Fatal(err)
	}
	if l.compiledCount() > 20 {
		t.Errorf("prose built %d rules: the keyword selection is not applied", l.compiledCount())
	}
	if !compiled("pkcs12-file") { // a rule without keywords
		t.Errorf("pkcs12-file not built for prose")
	}
	if !compiled("jwt") { // keyword "ey", in "key"
		t.Errorf("jwt not built though the text holds its keyword")
	}
	if compiled("github-pat") {
		t.Errorf("github-pat built though the text holds none of its keywords")
	}
	if compiled(genericRule) {
		t.Errorf("%s built though the text holds its keyword but nothing it could match", genericRule)
	}
	p, err := l.planFor("memory-bank/n.md", []byte("# Notes\n\napi_key = 'Z8kQm2Lp9XvR4tYw7NbC'\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !planRules(p)[genericRule] {
		t.Errorf("%s not built for an assignment", genericRule)
	}
	if _, err := l.planFor("memory-bank/n.md", []byte("token GHP_ here\n")); err != nil {
		t.Fatal(err)
	}
	if !compiled("github-pat") {
		t.Errorf("github-pat not built though the text holds its keyword (in upper case)")
	}
}

func FuzzSplitRules(f *testing.F) {
	f.Add(config.DefaultConfig[:4000])
	f.Add("title = \"x\"\n[[rules]]\nid = \"a\"\nkeywords = [\"k\", \"L\"]\n[[rules.allowlists]]\nregexes = ['''x''']\n[[rules]]\nid = \"b\"\n")
	f.Add("[[rules]]\nid = a\n")
	f.Fuzz(func(t *testing.T, text string) {
		head, rules, err := splitRules(text)
		if err != nil {
			return
		}
		var b strings.Builder
		b.WriteString(head)
		for _, r := range rules {
			if r.id == "" {
				t.Fatalf("a rule without id was accepted")
			}
			b.WriteString(r.text)
		}
		if b.String() != text {
			t.Fatalf("the split loses text")
		}
	})
}

// One Secrets shared by a serve or watch process: concurrent scans of texts that trigger
// different rules build them once and agree with gitleaks' detector.
func TestLazyConcurrentScans(t *testing.T) {
	s := readySecrets(t, "")
	tok := testgit.FakeGitHubToken(t)
	texts := []string{
		"# Notes\n\nGITHUB_TOKEN=" + tok + "\n",
		"password = \"Xk29fjQm3LpZ8vR2wq\"\n",
		"plain prose about the key decision\n",
		"slack xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1\n",
		"curl -u admin:Tr0ub4dor3x https://example.com\n",
	}
	want := make([][]key, len(texts))
	for i, x := range texts {
		want[i] = fullDetector(s, x)
	}
	done := make(chan string, 4*len(texts))
	for range 4 {
		for i, x := range texts {
			go func() {
				got := keys(s.detect("memory-bank/n.md", []byte(x), 1), findingKey)
				if !reflect.DeepEqual(got, want[i]) {
					done <- x
					return
				}
				done <- ""
			}()
		}
	}
	for range 4 * len(texts) {
		if x := <-done; x != "" {
			t.Errorf("concurrent scan differs from gitleaks' detector on %.60q", x)
		}
	}
}

func TestGenericApartIsFound(t *testing.T) {
	gitleaksMu.Lock()
	l, err := newLazyRules(config.DefaultConfig)
	gitleaksMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if g := l.generic(); g < 0 || l.rules[g].id != genericRule {
		t.Fatalf("generic-api-key not recognised in the default rules (index %d)", g)
	}
}
