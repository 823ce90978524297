package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testhost"
)

// Config's koanf tags are the one list of keys: every key has a default, every default a key,
// and apply/Value reach every field.
func TestEveryKeyHasADefaultAndRoundTrips(t *testing.T) {
	var def []string
	for k := range defaults() {
		def = append(def, k)
	}
	sort.Strings(def)
	if !reflect.DeepEqual(def, Keys()) {
		t.Fatalf("defaults %v\nkeys     %v", def, Keys())
	}
	c := &Config{}
	for k, v := range defaults() {
		if err := c.apply(k, v); err != nil {
			t.Fatalf("apply %s: %v", k, err)
		}
		got := c.Value(k)
		if l, ok := v.([]string); ok && len(l) == 0 && len(got.([]string)) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("Value(%s) = %#v after applying %#v", k, got, v)
		}
	}
}

func TestUnknownKeyNamesTheClosest(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, RepoFile), []byte("gating:\n  mod: block\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Options{RepoRoot: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Problems, "\n"); !strings.Contains(got, `unknown key "gating.mod" (did you mean gating.mode?`) || !strings.Contains(got, "line 2") {
		t.Errorf("problems: %s", got)
	}
	if _, err := Load(Options{Sets: []string{"recovery.lr=3"}}); err == nil || !strings.Contains(err.Error(), "did you mean recovery.lru?") {
		t.Errorf("--set typo: %v", err)
	}
	if c := closest("something.else.entirely"); c != "" {
		t.Errorf("a far key suggested %q", c)
	}
}

// docs/mbguard.schema.json is what `mbguard config --schema` prints; editors fetch it.
func TestSchemaIsCurrentAndDescribesEveryKey(t *testing.T) {
	b, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(testhost.ModuleRoot(t), "docs", "mbguard.schema.json")
	if old, _ := os.ReadFile(p); string(old) != string(b) {
		t.Errorf("%s is out of date: run go run ./cmd/mbguard config --schema > docs/mbguard.schema.json", p)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys() {
		obj := s
		parts := strings.Split(k, ".")
		for _, part := range parts {
			props, _ := obj["properties"].(map[string]any)
			next, ok := props[part].(map[string]any)
			if !ok {
				t.Fatalf("schema lacks %s", k)
			}
			obj = next
		}
		if obj["description"] == "" || obj["type"] == nil {
			t.Errorf("%s: no description or type in the schema", k)
		}
		if e, ok := obj["enum"].([]any); ok {
			var want []any
			for _, v := range e {
				want = append(want, v)
			}
			if !contains(want, defaults()[k]) {
				t.Errorf("%s: default %v is not in its enum %v", k, defaults()[k], e)
			}
		}
	}
}

func contains(xs []any, v any) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// What the hooks do meanwhile depends on the problem: an unreadable mode blocks, an ignored
// file leaves the defaults.
func TestMeanwhileNamesWhatHooksDo(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) *Config {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, RepoFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(Options{RepoRoot: dir})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if got := write("gating:\n  mod: block\n").Meanwhile(); !strings.Contains(got, "built-in defaults") {
		t.Errorf("ignored file: %q", got)
	}
	if got := write("gating:\n  mode: blok\n").Meanwhile(); !strings.Contains(got, "invalid mode blocks") {
		t.Errorf("invalid mode: %q", got)
	}
}
