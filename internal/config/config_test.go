package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPrecedence(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".config/mbguard/config.yaml"), "gating:\n  mode: block\n  doc_first: off\ncontext:\n  max_chars: 100\n")
	write(t, filepath.Join(root, RepoFile), "gating:\n  doc_first: block\nrecovery:\n  lru: 2\n")
	tests := []struct {
		name    string
		env     map[string]string
		sets    []string
		key     string
		want    any
		wantSrc string
	}{
		{"default", nil, nil, "recovery.mode", "block", "default"},
		{"user file", nil, nil, "gating.mode", "block", filepath.Join(home, ".config/mbguard/config.yaml")},
		{"repo file beats user file", nil, nil, "gating.doc_first", "block", filepath.Join(root, RepoFile)},
		{"legacy env beats files", map[string]string{"MEMORY_BANK_GUARD_MODE": "off"}, nil, "gating.mode", "off", "env MEMORY_BANK_GUARD_MODE"},
		{"MBGUARD env beats legacy env", map[string]string{"MEMORY_BANK_GUARD_MODE": "off", "MBGUARD_GATING_MODE": "warn"}, nil, "gating.mode", "warn", "env MBGUARD_GATING_MODE"},
		{"legacy max chars", map[string]string{"MEMORY_BANK_MAX_CHARS": "77"}, nil, "context.max_chars", 77, "env MEMORY_BANK_MAX_CHARS"},
		{"legacy doc first", map[string]string{"MEMORY_BANK_DOC_FIRST_MODE": "warn"}, nil, "gating.doc_first", "warn", "env MEMORY_BANK_DOC_FIRST_MODE"},
		{"flag beats env", map[string]string{"MBGUARD_RECOVERY_LRU": "4"}, []string{"recovery.lru=9"}, "recovery.lru", 9, "flag --set"},
		{"env list is comma separated", map[string]string{"MBGUARD_GATING_READER_AGENTS": "memory-reader, scout"}, nil, "gating.reader_agents", []string{"memory-reader", "scout"}, "env MBGUARD_GATING_READER_AGENTS"},
		{"env bool", map[string]string{"MBGUARD_GATING_SHELL_MARKDOWN_WRITES": "true"}, nil, "gating.shell_markdown_writes", true, "env MBGUARD_GATING_SHELL_MARKDOWN_WRITES"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"HOME": home}
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := Load(Options{RepoRoot: root, Getenv: envOf(env), Sets: tc.sets})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Value(tc.key); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s = %#v, want %#v", tc.key, got, tc.want)
			}
			if c.Sources[tc.key] != tc.wantSrc {
				t.Errorf("source of %s = %q, want %q", tc.key, c.Sources[tc.key], tc.wantSrc)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, user, repo string
		env              map[string]string
		sets             []string
		want             string
		fatal            bool
	}{
		{"unknown key in repo file", "", "gating:\n  moed: block\n", nil, nil, `.mbguard.yaml line 2: unknown key "gating.moed"`, false},
		{"typo in flow style", "", "gating: {mod: block}\n", nil, nil, `.mbguard.yaml line 1: unknown key "gating.mod"`, false},
		{"unknown key in user file", "surprise: 1\n", "", nil, nil, `config.yaml line 1: unknown key "surprise"`, false},
		{"bad yaml", "", "gating: [\n", nil, nil, "is not valid YAML", false},
		{"bad int in env", "", "", map[string]string{"MEMORY_BANK_MAX_CHARS": "lots"}, nil, `"lots" is not a whole number`, false},
		{"bad bool in env", "", "", map[string]string{"MBGUARD_GATING_SHELL_MARKDOWN_WRITES": "maybe"}, nil, "not true or false", false},
		{"set without value", "", "", nil, []string{"gating.mode"}, "want key=value", true},
		{"set unknown key", "", "", nil, []string{"nope=1"}, `unknown key "nope"`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, root := t.TempDir(), t.TempDir()
			if tc.user != "" {
				write(t, filepath.Join(home, ".config/mbguard/config.yaml"), tc.user)
			}
			if tc.repo != "" {
				write(t, filepath.Join(root, RepoFile), tc.repo)
			}
			env := map[string]string{"HOME": home}
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := Load(Options{RepoRoot: root, Getenv: envOf(env), Sets: tc.sets})
			if tc.fatal {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("a configuration mistake stopped Load: %v", err)
			}
			if c.Err() == nil || !strings.Contains(c.Err().Error(), tc.want) {
				t.Fatalf("Err() = %v, want it to contain %q", c.Err(), tc.want)
			}
			// the built-in defaults apply: the guards stay on, nothing is blocked for the typo
			if p := c.Policy(); p.Mode != gating.DefaultPolicy().Mode || p.RecoveryMode != gating.DefaultPolicy().RecoveryMode {
				t.Errorf("policy after a mistake: mode %s recovery %s, want the defaults", p.Mode, p.RecoveryMode)
			}
		})
	}
}

// A file with a mistake is left out as a whole; the other files still apply.
func TestIgnoredFileLeavesOthers(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".config/mbguard/config.yaml"), "gating:\n  mode: block\n")
	write(t, filepath.Join(root, RepoFile), "gating:\n  mode: off\n  mod: off\n")
	c, err := Load(Options{RepoRoot: root, Getenv: envOf(map[string]string{"HOME": home})})
	if err != nil {
		t.Fatal(err)
	}
	if c.Gating.Mode != "block" {
		t.Errorf("gating.mode = %q, want the user file's block (the repo file is ignored, mode: off with it)", c.Gating.Mode)
	}
	if len(c.Ignored) != 1 || !strings.HasSuffix(c.Ignored[0], RepoFile) {
		t.Errorf("ignored = %q, want the repository file", c.Ignored)
	}
	if !strings.Contains(strings.Join(c.Problems, "\n"), "line 3") {
		t.Errorf("problems %q do not name line 3", c.Problems)
	}
}

func TestProblemsAreReportedNotDefaulted(t *testing.T) {
	c, err := Load(Options{Getenv: envOf(map[string]string{
		"MEMORY_BANK_GUARD_MODE":     "blok",
		"MBGUARD_RECOVERY_MODE":      "sometimes",
		"MBGUARD_TEMPLATES_MINIMUM":  "seven",
		"MBGUARD_STATE_TTL":          "forever",
		"MBGUARD_RECOVERY_LRU":       "0",
		"MEMORY_BANK_DOC_FIRST_MODE": "WARN",
		"MBGUARD_KERNEL_MODE":        "sometimes",
	})})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(c.Problems, "\n")
	for _, want := range []string{`gating.mode = "blok" (from env MEMORY_BANK_GUARD_MODE)`, `recovery.mode = "sometimes"`, `templates.minimum = "seven"`, `state.ttl = "forever"`, `recovery.lru = 0`, `kernel.mode = "sometimes"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems %q lack %q", joined, want)
		}
	}
	if strings.Contains(joined, "doc_first") {
		t.Errorf("WARN is a valid mode (case-insensitive), but was reported: %s", joined)
	}
	if c.Err() == nil || !strings.Contains(c.Err().Error(), "mbguard doctor") {
		t.Errorf("Err() = %v, want a message naming mbguard doctor", c.Err())
	}
	p := c.Policy()
	if p.Mode != gating.ModeBlock || p.RecoveryMode != gating.ModeBlock {
		t.Errorf("invalid modes must act as block, got read=%s recovery=%s", p.Mode, p.RecoveryMode)
	}
	if p.DocFirstMode != gating.ModeWarn {
		t.Errorf("doc-first = %s, want warn", p.DocFirstMode)
	}
}

func TestPolicyCarriesLists(t *testing.T) {
	c, err := Load(Options{Getenv: envOf(map[string]string{
		"MBGUARD_GATING_SENSITIVE_PATHS": "vault/,*.secret",
		"MBGUARD_RECOVERY_ANCHORS":       "memory-bank/details/plan.md",
		"MBGUARD_CHECK_ALLOWED_FILES":    ".gitkeep,.keep",
	})})
	if err != nil {
		t.Fatal(err)
	}
	p := c.Policy()
	if !reflect.DeepEqual(p.SensitivePaths, []string{"vault/", "*.secret"}) ||
		!reflect.DeepEqual(p.AnchorPrefixes, []string{"memory-bank/details/plan.md"}) ||
		!reflect.DeepEqual(p.AllowedBankFiles, []string{".gitkeep", ".keep"}) {
		t.Errorf("policy lists not carried over: %+v", p)
	}
}

func TestDefaultsMatchGating(t *testing.T) {
	c, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("defaults are invalid: %v", err)
	}
	if got, want := c.Policy(), gating.DefaultPolicy(); !reflect.DeepEqual(got, want) {
		t.Errorf("Policy() from defaults = %+v\nwant gating.DefaultPolicy() = %+v", got, want)
	}
}

// BenchmarkLoad is the configuration cost every per-call hook pays: defaults, no files, a
// legacy environment variable. Baseline: BenchmarkDefaultPolicy, the bare defaults.
func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	env := envOf(map[string]string{"HOME": b.TempDir(), "MEMORY_BANK_GUARD_MODE": "block"})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Load(Options{RepoRoot: root, Getenv: env}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDefaultPolicy(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = gating.DefaultPolicy()
	}
}

func TestYAMLTypes(t *testing.T) {
	tests := []struct {
		name, yaml string
		key        string
		want       any
		err        string
	}{
		{"list", "gating:\n  reader_agents: [memory-reader, scout]\n", "gating.reader_agents", []string{"memory-reader", "scout"}, ""},
		{"off stays a word", "gating:\n  mode: off\n", "gating.mode", "off", ""},
		{"int", "context:\n  max_chars: 3000\n", "context.max_chars", 3000, ""},
		{"bool", "gating:\n  shell_markdown_writes: true\n", "gating.shell_markdown_writes", true, ""},
		{"scalar where a list belongs", "gating:\n  safe_paths: progress.md\n", "", nil, "want a list"},
		{"fraction where a whole number belongs", "context:\n  max_chars: 1.5\n", "", nil, "not a whole number"},
		{"map where a value belongs", "templates:\n  minimum:\n    v: 7\n", "", nil, "unknown key"},
		// the messages speak YAML, never Go type names such as []interface {}
		{"list where a value belongs", "gating:\n  mode: [a, b]\n", "", nil, "gating.mode: want a single value, got a list"},
		{"list where a number belongs", "context:\n  max_chars: [1]\n", "", nil, "want a whole number, got a list"},
		{"number where a list belongs", "gating:\n  sensitive_paths: 5\n", "", nil, "want a list, got a number"},
		{"list inside a list", "gating:\n  safe_paths: [[a]]\n", "", nil, "want a list of strings, got a list in it"},
		{"list where true or false belongs", "gating:\n  shell_markdown_writes: [true]\n", "", nil, "want true or false, got a list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, filepath.Join(root, RepoFile), tc.yaml)
			c, err := Load(Options{RepoRoot: root, Getenv: envOf(map[string]string{"HOME": t.TempDir()})})
			if tc.err != "" {
				if err != nil || c.Err() == nil || !strings.Contains(c.Err().Error(), tc.err) {
					t.Fatalf("err = %v, problems %v, want %q", err, c.Err(), tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Value(tc.key); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s = %#v, want %#v", tc.key, got, tc.want)
			}
		})
	}
}

// TestEveryMistakeOfAFileAtOnce: a file with an unknown key and a value out of range reports
// both, each with its line and key, so one fix is enough (not one run per mistake).
func TestEveryMistakeOfAFileAtOnce(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, RepoFile)
	write(t, f, "gating:\n  mod: block\nrecovery:\n  mode: blok\ncheck:\n  stale: eror\n")
	c, err := Load(Options{RepoRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	want := []Issue{
		{File: f, Line: 2, Key: "gating.mod"},
		{File: f, Line: 4, Key: "recovery.mode"},
		{File: f, Line: 6, Key: "check.stale"},
	}
	if len(c.Issues) != len(want) {
		t.Fatalf("issues %+v, want %d", c.Issues, len(want))
	}
	for i, w := range want {
		got := c.Issues[i]
		if got.File != w.File || got.Line != w.Line || got.Key != w.Key || !strings.HasPrefix(c.Problems[i], fmt.Sprintf("%s line %d: ", f, w.Line)) {
			t.Errorf("issue %d = %+v (%q), want %+v", i, got, c.Problems[i], w)
		}
	}
	if c.Gating.Mode != "warn" || len(c.Ignored) != 1 {
		t.Errorf("the file must be left out as a whole: mode %q, ignored %v", c.Gating.Mode, c.Ignored)
	}
	if strings.Count(c.Err().Error()+c.Meanwhile(), "defaults apply") != 1 {
		t.Errorf("the built-in defaults are said more or less than once: %s; %s", c.Err(), c.Meanwhile())
	}
}

// BenchmarkLoadRepoFile is Load with a valid .mbguard.yaml, what a configured repository's
// hooks pay on every call. Baseline: BenchmarkLoad (no file) in the same run.
func BenchmarkLoadRepoFile(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, RepoFile), []byte("gating:\n  mode: block\n  doc_first: warn\ncheck:\n  stale: error\n  allowed_files: [notes.txt]\nrecovery:\n  lru: 4\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	env := envOf(map[string]string{"HOME": b.TempDir()})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Load(Options{RepoRoot: root, Getenv: env}); err != nil {
			b.Fatal(err)
		}
	}
}
