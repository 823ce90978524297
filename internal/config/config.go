// Package config loads mbguard's configuration with koanf, in this order (later wins):
// defaults → ~/.config/mbguard/config.yaml → .mbguard.yaml in the repository → environment
// (MEMORY_BANK_GUARD_MODE, MEMORY_BANK_DOC_FIRST_MODE, MEMORY_BANK_MAX_CHARS, then MBGUARD_*)
// → flags (--set key=value). Unknown keys are errors. It records where every value came from.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
)

// Config is the effective configuration.
type Config struct {
	Gating struct {
		Mode                string   `koanf:"mode" enum:"off,warn,block" doc:"The read gate: block or warn on risky writes before memory-bank/ was read this turn (off: no gate; the bank and config guards stay on)."`
		DocFirst            string   `koanf:"doc_first" enum:"off,warn,block" doc:"The doc-first gate for sensitive paths."`
		SensitivePaths      []string `koanf:"sensitive_paths" doc:"Path globs whose writes are high risk."`
		SafePaths           []string `koanf:"safe_paths" doc:"Path globs whose writes never need the memory read first."`
		SatisfyReads        []string `koanf:"satisfy_reads" doc:"Files whose read counts as reading the memory bank."`
		ReaderAgents        []string `koanf:"reader_agents" doc:"Subagent types whose reads count for the session."`
		ShellMarkdownWrites bool     `koanf:"shell_markdown_writes" doc:"Allow shell commands to write .md files in memory-bank/ (off: only write tools may)."`
	} `koanf:"gating"`
	Recovery struct {
		Mode      string   `koanf:"mode" enum:"off,warn,block" doc:"The recovery gate after a compaction: re-read the anchor files before risky writes."`
		Anchors   []string `koanf:"anchors" doc:"Anchor file prefixes to re-read after a compaction."`
		Fallbacks []string `koanf:"fallbacks" doc:"Anchor files used when no anchor was read before the compaction."`
		LRU       int      `koanf:"lru" min:"1" doc:"How many recently read anchors to remember per session."`
	} `koanf:"recovery"`
	Context struct {
		MaxChars int `koanf:"max_chars" min:"0" doc:"Characters of MEMORY.md injected at session start (0: no limit)."`
	} `koanf:"context"`
	Templates struct {
		Minimum string `koanf:"minimum" pattern:"^v[0-9]+\\.[0-9]+$" doc:"The oldest template version check accepts, such as v7.1."`
	} `koanf:"templates"`
	Check struct {
		// AllowedFiles are non-.md file names allowed under memory-bank/ (commit checks and write guard).
		AllowedFiles []string `koanf:"allowed_files" doc:"Non-.md file names allowed under memory-bank/."`
		// Stale is the severity of stale-reference findings: off, warning or error.
		Stale string `koanf:"stale" enum:"off,warning,error" doc:"Severity of stale-reference findings."`
		// StaleRules override it per rule: "stale-symbol=off", "stale-path=error".
		StaleRules []string `koanf:"stale_rules" doc:"Per-rule severities, such as stale-symbol=off."`
	} `koanf:"check"`
	State struct {
		TTL string `koanf:"ttl" doc:"How long session state is kept, as a duration such as 24h."`
	} `koanf:"state"`
	Kernel struct {
		// Mode "on" (the default) runs agent shell calls under `mbguard jail` on hosts whose
		// hook can rewrite the command (OpenCode, Kilo Code), except a command line of git branch
		// operations only (checkout, switch, merge, pull, rebase, reset, cherry-pick, stash, am,
		// restore, revert), which must update the bank and is judged after the call; "off"
		// leaves every call as it is. Claude Code gets the kernel line from its sandbox instead.
		Mode string `koanf:"mode" enum:"off,on" doc:"Run agent shell calls under mbguard jail where the host lets mbguard rewrite them."`
	} `koanf:"kernel"`
	Watch struct {
		// HTTPPort, when set, makes `mbguard watch` answer Claude Code's type "http" hooks on
		// 127.0.0.1 at this port, and `mbguard install` write such hooks for Claude Code
		// (Linux: the watcher tells the host's own requests from forged ones by the process
		// that holds the client socket). 0 keeps every hook a process.
		HTTPPort int `koanf:"http_port" min:"0" doc:"Port on 127.0.0.1 where mbguard watch answers Claude Code's http hooks (0: off, hooks run as processes; Linux only)."`
	} `koanf:"watch"`

	// Sources maps every key to where its value came from ("default", a file path, "env NAME", "flag").
	Sources map[string]string `koanf:"-"`
	// Problems are values that were read but are not valid (e.g. gating.mode: blok), and
	// files left out because of a mistake (Ignored). Load still returns the configuration so
	// that doctor and every reply can report them.
	Problems []string `koanf:"-"`
	// Ignored are the configuration files left out as a whole (an unknown key, a value of
	// the wrong kind, YAML that does not parse): the layers below them, down to the
	// built-in defaults, apply instead.
	Ignored []string `koanf:"-"`
	// Issues are Problems with where each one is (file, line, key), for annotations.
	Issues []Issue `koanf:"-"`

	texts map[string][]byte // the text of the file each key came from, for lines in messages
}

func defaults() map[string]any {
	p := gating.DefaultPolicy()
	return map[string]any{
		"gating.mode":                  string(p.Mode),
		"gating.doc_first":             string(p.DocFirstMode),
		"gating.sensitive_paths":       p.SensitivePaths,
		"gating.safe_paths":            p.SafePaths,
		"gating.satisfy_reads":         p.SatisfyReads,
		"gating.reader_agents":         p.ReaderAgents,
		"gating.shell_markdown_writes": p.ShellMarkdownWrites,
		"recovery.mode":                string(p.RecoveryMode),
		"recovery.anchors":             p.AnchorPrefixes,
		"recovery.fallbacks":           p.FallbackAnchors,
		"recovery.lru":                 p.AnchorLRU,
		"context.max_chars":            12000,
		"templates.minimum":            bank.CurrentTemplate.String(),
		"check.allowed_files":          p.AllowedBankFiles,
		"check.stale":                  "warning",
		"check.stale_rules":            []string{},
		"state.ttl":                    "24h",
		"kernel.mode":                  "on",
		"watch.http_port":              0,
	}
}

// Keys lists every configuration key, sorted: the koanf tags of Config, the one list.
func Keys() []string {
	var ks []string
	for _, f := range fields() {
		ks = append(ks, f.key)
	}
	sort.Strings(ks)
	return ks
}

// legacyEnv are the environment names of the original plugin; MBGUARD_* names win over them.
var legacyEnv = [][2]string{
	{"MEMORY_BANK_GUARD_MODE", "gating.mode"},
	{"MEMORY_BANK_DOC_FIRST_MODE", "gating.doc_first"},
	{"MEMORY_BANK_MAX_CHARS", "context.max_chars"},
}

// EnvName is the MBGUARD_* variable for a key: gating.doc_first → MBGUARD_GATING_DOC_FIRST.
func EnvName(key string) string {
	return "MBGUARD_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// Options says where to look.
type Options struct {
	// RepoRoot is the repository root; empty when not in a repository.
	RepoRoot string
	// Getenv reads the environment (os.Getenv in main, a map in tests).
	Getenv func(string) string
	// Sets are flag overrides as key=value.
	Sets []string
}

// UserFile is the per-user configuration file: $XDG_CONFIG_HOME/mbguard/config.yaml or
// ~/.config/mbguard/config.yaml.
func UserFile(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "mbguard", "config.yaml")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "mbguard", "config.yaml")
	}
	return ""
}

// RepoFile is the repository's configuration file name.
const RepoFile = ".mbguard.yaml"

// Load builds the effective configuration. It fails only on a bad --set flag: a file with a
// mistake (YAML errors, unknown keys, values of the wrong kind) is left out as a whole, an
// environment variable that cannot be read is ignored, and both are collected in Problems
// with invalid values, so that a typo never stops an agent's harmless work.
//
// koanf parses and flattens the YAML files; the layers are then applied key by key onto a
// struct built from the defaults. That skips a reflective unmarshal of every layer, which was
// most of the ~1 ms this cost on each per-call hook.
func Load(o Options) (*Config, error) {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	def := defaults()
	c := &Config{Sources: make(map[string]string, len(def))}
	for key, v := range def {
		if err := c.apply(key, v); err != nil {
			return nil, fmt.Errorf("loading defaults: %w", err)
		}
		c.Sources[key] = "default"
	}
	files := []string{UserFile(o.Getenv)}
	if o.RepoRoot != "" {
		files = append(files, filepath.Join(o.RepoRoot, RepoFile))
	}
	for _, f := range files {
		if f != "" {
			c.loadFile(f, def)
		}
	}
	c.loadEnv(o.Getenv, def)
	if err := c.loadSets(o.Sets, def); err != nil {
		return nil, err
	}
	c.validate()
	return c, nil
}

// loadFile applies the configuration file f onto c, or leaves it out as a whole and records
// its problems when it cannot be read or holds a mistake. A missing file is no problem.
func (c *Config) loadFile(f string, def map[string]any) {
	b, err := os.ReadFile(f)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		c.Ignored = append(c.Ignored, f)
		c.add(Issue{File: f, Text: fmt.Sprintf("cannot be read (%v)", err)})
		return
	}
	fk := koanf.New(".")
	if err := fk.Load(rawbytes.Provider(b), yaml.Parser()); err != nil {
		c.Ignored = append(c.Ignored, f)
		c.add(Issue{File: f, Line: yamlErrorLine(err), Text: fmt.Sprintf("is not valid YAML (%v)", err)})
		return
	}
	flat := fk.All()
	keys := make([]string, 0, len(flat))
	for key := range flat {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	// A file with a mistake is left out as a whole: which of its values were meant cannot
	// be known, and an agent's harmless work must not stop on a typo. Every mistake in it
	// is reported at once, values out of range included, so one fix is enough.
	if bad := fileIssues(f, b, keys, flat, def); len(bad) > 0 {
		c.Ignored = append(c.Ignored, f)
		for _, is := range bad {
			c.add(is)
		}
		return
	}
	for _, key := range keys {
		_ = c.apply(key, flat[key]) // checked by fileIssues
		c.Sources[key] = f
		c.setText(key, b) // its line is looked up only for a message
	}
}

// fileIssues are the mistakes of the file f (text b, its sorted keys and flattened values):
// unknown keys and values of the wrong kind, and, when there are any, the values out of range
// it sets too, in line order. None means the file can be applied.
func fileIssues(f string, b []byte, keys []string, flat map[string]any, def map[string]any) []Issue {
	var bad []Issue
	scratch := &Config{}
	for _, key := range keys {
		if _, ok := def[key]; !ok {
			bad = append(bad, Issue{File: f, Line: keyLine(b, key), Key: key, Text: unknownKey(key)})
			continue
		}
		if err := scratch.apply(key, flat[key]); err != nil {
			bad = append(bad, Issue{File: f, Line: keyLine(b, key), Key: key, Text: fmt.Sprintf("%s: %v", key, err)})
		}
	}
	if len(bad) == 0 {
		return nil
	}
	bad = append(bad, fileValueIssues(f, b, keys, flat, def)...)
	sort.SliceStable(bad, func(i, j int) bool { return bad[i].Line < bad[j].Line })
	return bad
}

// fileValueIssues are the values out of range among the keys the file f sets, checked on the
// defaults with every value of the file that applies.
func fileValueIssues(f string, b []byte, keys []string, flat map[string]any, def map[string]any) []Issue {
	full := &Config{Sources: map[string]string{}}
	for key, v := range def {
		_ = full.apply(key, v)
	}
	mine := map[string]bool{}
	for _, key := range keys {
		if full.apply(key, flat[key]) == nil {
			full.Sources[key] = f
			full.setText(key, b)
			mine[key] = true
		}
	}
	var out []Issue
	for _, is := range full.valueIssues() {
		if mine[is.Key] {
			out = append(out, is)
		}
	}
	return out
}

// set applies the text raw to key (its kind that of the default), recording from as its
// source.
func (c *Config) set(def map[string]any, key, raw, from string) error {
	v, err := convert(def[key], raw)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", from, key, err)
	}
	if err := c.apply(key, v); err != nil {
		return fmt.Errorf("%s: %s: %w", from, key, err)
	}
	c.Sources[key] = from
	return nil
}

// loadEnv applies the legacy and then the MBGUARD_* environment variables; one that cannot be
// read is ignored and recorded as a problem.
func (c *Config) loadEnv(getenv func(string) string, def map[string]any) {
	for _, le := range legacyEnv {
		if v := getenv(le[0]); v != "" {
			if err := c.set(def, le[1], v, "env "+le[0]); err != nil {
				c.add(Issue{Key: le[1], Text: err.Error() + "; the variable is ignored"})
			}
		}
	}
	for _, key := range Keys() {
		if v := getenv(EnvName(key)); v != "" {
			if err := c.set(def, key, v, "env "+EnvName(key)); err != nil {
				c.add(Issue{Key: key, Text: err.Error() + "; the variable is ignored"})
			}
		}
	}
}

// loadSets applies the --set flags; the first bad one is the error.
func (c *Config) loadSets(sets []string, def map[string]any) error {
	for _, s := range sets {
		key, val, ok := strings.Cut(s, "=")
		key = strings.TrimSpace(key)
		if !ok {
			return fmt.Errorf("--set %q: want key=value", s)
		}
		if _, known := def[key]; !known {
			return fmt.Errorf("--set %q: %s", s, unknownKey(key))
		}
		if err := c.set(def, key, val, "flag --set"); err != nil {
			return err
		}
	}
	return nil
}

// Issue is one configuration problem and where it is.
type Issue struct {
	File string // the configuration file, "" for an environment variable or a flag
	Line int    // the 1-based line in File, 0 when not known
	Key  string // the key, "" when the file as a whole is wrong
	Text string // what is wrong
}

// String is the issue as people read it: "FILE line N: what".
func (is Issue) String() string {
	switch {
	case is.File == "":
		return is.Text
	case is.Line > 0:
		return fmt.Sprintf("%s line %d: %s", is.File, is.Line, is.Text)
	}
	return is.File + ": " + is.Text
}

// add records a problem.
func (c *Config) add(is Issue) {
	c.Issues = append(c.Issues, is)
	c.Problems = append(c.Problems, is.String())
}

// setText remembers the text of the file a key came from, to name its line in a message.
func (c *Config) setText(key string, b []byte) {
	if c.texts == nil {
		c.texts = map[string][]byte{}
	}
	c.texts[key] = b
}

// yamlErrorLine is the line a YAML parser's error names ("yaml: line 3: …"), or 0.
func yamlErrorLine(err error) int {
	s := err.Error()
	i := strings.Index(s, "line ")
	if i < 0 {
		return 0
	}
	n := 0
	for _, r := range s[i+5:] {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// keyLine returns the 1-based line of a flattened key (gating.mod) in YAML text: the first
// line naming its last part after the lines naming the parts before it; 0 when not found.
func keyLine(b []byte, key string) int {
	lines := strings.Split(string(b), "\n")
	at := 0
	found := 0
	for _, part := range strings.Split(key, ".") {
		found = 0
		for i := at; i < len(lines); i++ {
			if namesKey(lines[i], part) {
				at, found = i, i+1
				break
			}
		}
		if found == 0 {
			return 0
		}
	}
	return found
}

// namesKey reports a YAML line that holds part as a mapping key (block or flow style).
func namesKey(line, part string) bool {
	for off := 0; ; {
		i := strings.Index(line[off:], part)
		if i < 0 {
			return false
		}
		i += off
		off = i + 1
		before := strings.TrimRight(line[:i], " \t\"'")
		after := strings.TrimLeft(line[i+len(part):], " \t\"'")
		if (before == "" || strings.HasSuffix(before, "{") || strings.HasSuffix(before, ",") || strings.HasSuffix(before, "-")) && strings.HasPrefix(after, ":") {
			return true
		}
	}
}

// yamlKind names what a configuration value is in YAML's words, never Go's ("a list", not
// "[]interface {}"): the reader wrote YAML.
func yamlKind(v any) string {
	switch v.(type) {
	case nil:
		return "nothing (null)"
	case string:
		return "a string"
	case bool:
		return "true or false"
	case int, int64, float64:
		return "a number"
	case []any, []string:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping (key: value)"
	}
	return "a value of another kind"
}

// apply stores one value, converting what YAML or convert produced into the key's type.
func (c *Config) apply(key string, v any) error {
	f, ok := field(key)
	if !ok {
		return fmt.Errorf("unknown key %q", key)
	}
	dst := reflect.ValueOf(c).Elem().FieldByIndex(f.index).Addr().Interface()
	switch d := dst.(type) {
	case *string:
		return setString(d, v)
	case *[]string:
		return setList(d, v)
	case *int:
		return setInt(d, v)
	case *bool:
		return setBool(d, v)
	}
	return fmt.Errorf("key %q has a type the loader does not know", key)
}

// setString sets a text key from a YAML scalar of any kind.
func setString(dst *string, v any) error {
	switch x := v.(type) {
	case string:
		*dst = x
	case int, int64, float64, bool:
		*dst = fmt.Sprint(x)
	default:
		return fmt.Errorf("want a single value, got %s", yamlKind(v))
	}
	return nil
}

// setList sets a list key from a YAML list of scalars, or clears it from null.
func setList(dst *[]string, v any) error {
	switch x := v.(type) {
	case []string:
		*dst = append([]string(nil), x...)
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			switch e.(type) {
			case string, int, int64, float64, bool:
				out = append(out, fmt.Sprint(e))
			default:
				return fmt.Errorf("want a list of strings, got %s in it", yamlKind(e))
			}
		}
		*dst = out
	case nil:
		*dst = nil
	default:
		return fmt.Errorf("want a list, got %s", yamlKind(v))
	}
	return nil
}

// setInt sets a number key from a whole number, written as one or as text.
func setInt(dst *int, v any) error {
	switch x := v.(type) {
	case int:
		*dst = x
	case int64:
		*dst = int(x)
	case float64:
		if x != float64(int(x)) {
			return fmt.Errorf("%v is not a whole number", x)
		}
		*dst = int(x)
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return fmt.Errorf("%q is not a whole number", x)
		}
		*dst = n
	default:
		return fmt.Errorf("want a whole number, got %s", yamlKind(v))
	}
	return nil
}

// setBool sets a switch from true or false, written as such or as text.
func setBool(dst *bool, v any) error {
	switch x := v.(type) {
	case bool:
		*dst = x
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil {
			return fmt.Errorf("%q is not true or false", x)
		}
		*dst = b
	default:
		return fmt.Errorf("want true or false, got %s", yamlKind(v))
	}
	return nil
}

func (c *Config) validate() {
	for _, is := range c.valueIssues() {
		c.add(is)
	}
}

// valueIssues are the values that were read but are not valid, each with where it came from.
func (c *Config) valueIssues() []Issue {
	var out []Issue
	bad := func(key, val, want string) {
		is := Issue{Key: key}
		from := c.Sources[key]
		if text, ok := c.texts[key]; ok {
			is.File, is.Line = from, keyLine(text, key)
			is.Text = fmt.Sprintf("%s %s: %s", key, val, want)
		} else {
			is.Text = fmt.Sprintf("%s %s (from %s): %s", key, val, from, want)
		}
		out = append(out, is)
	}
	for _, m := range []struct{ key, val string }{
		{"gating.mode", c.Gating.Mode}, {"gating.doc_first", c.Gating.DocFirst}, {"recovery.mode", c.Recovery.Mode},
	} {
		if _, err := gating.ParseMode(m.val); err != nil {
			bad(m.key, fmt.Sprintf("= %q", m.val), "want off, warn or block")
		}
	}
	c.numberIssues(bad)
	if _, err := bank.ParseVersion(c.Templates.Minimum); err != nil {
		bad("templates.minimum", fmt.Sprintf("= %q", c.Templates.Minimum), "want vMAJOR.MINOR such as v7.1")
	}
	if _, err := StaleSeverity(c.Check.Stale); err != nil {
		bad("check.stale", fmt.Sprintf("= %q", c.Check.Stale), "want off, warning or error")
	}
	for _, r := range c.Check.StaleRules {
		rule, sev, ok := strings.Cut(r, "=")
		if _, err := StaleSeverity(sev); !ok || err != nil || !strings.HasPrefix(rule, "stale-") {
			bad("check.stale_rules", fmt.Sprintf("entry %q", r), "want RULE=SEVERITY such as stale-symbol=off")
		}
	}
	if c.Kernel.Mode != "off" && c.Kernel.Mode != "on" {
		bad("kernel.mode", fmt.Sprintf("= %q", c.Kernel.Mode), "want off or on")
	}
	if _, err := time.ParseDuration(c.State.TTL); err != nil {
		bad("state.ttl", fmt.Sprintf("= %q", c.State.TTL), "want a duration such as 24h")
	}
	return out
}

// numberIssues reports the integer keys out of their range through bad (valueIssues').
func (c *Config) numberIssues(bad func(key, val, want string)) {
	if c.Context.MaxChars < 0 {
		bad("context.max_chars", fmt.Sprintf("= %d", c.Context.MaxChars), "want 0 or more")
	}
	if c.Watch.HTTPPort < 0 || c.Watch.HTTPPort > 65535 {
		bad("watch.http_port", fmt.Sprintf("= %d", c.Watch.HTTPPort), "want 0 (off) or a port from 1 to 65535")
	}
	if c.Recovery.LRU < 1 {
		bad("recovery.lru", fmt.Sprintf("= %d", c.Recovery.LRU), "want 1 or more")
	}
}

// Err returns the configuration problems as one error, or nil.
func (c *Config) Err() error {
	if len(c.Problems) == 0 {
		return nil
	}
	return fmt.Errorf("invalid configuration: %s; fix it, then run mbguard doctor", strings.Join(c.Problems, "; "))
}

// Meanwhile says what the hooks do until the problems are fixed: a gate whose mode cannot be
// read blocks; a file left out leaves the layers below it, down to the built-in defaults.
func (c *Config) Meanwhile() string {
	for _, m := range []string{c.Gating.Mode, c.Gating.DocFirst, c.Recovery.Mode} {
		if _, err := gating.ParseMode(m); err != nil {
			return "until then a gate with an invalid mode blocks"
		}
	}
	if len(c.Ignored) > 0 {
		return "until then the built-in defaults apply instead of that file (the bank and config guards stay on)"
	}
	return "until then the value is left out"
}

// Policy converts the configuration into the gating engine's policy. Invalid modes become
// block: a hook that cannot read its mode must not silently allow what the user meant to stop.
func (c *Config) Policy() gating.Policy {
	p := gating.DefaultPolicy()
	mode := func(s string) gating.Mode {
		m, err := gating.ParseMode(s)
		if err != nil {
			return gating.ModeBlock
		}
		return m
	}
	p.Mode = mode(c.Gating.Mode)
	p.DocFirstMode = mode(c.Gating.DocFirst)
	p.RecoveryMode = mode(c.Recovery.Mode)
	p.SensitivePaths = c.Gating.SensitivePaths
	p.SafePaths = c.Gating.SafePaths
	p.SatisfyReads = c.Gating.SatisfyReads
	p.ReaderAgents = c.Gating.ReaderAgents
	p.ShellMarkdownWrites = c.Gating.ShellMarkdownWrites
	p.AnchorPrefixes = c.Recovery.Anchors
	p.FallbackAnchors = c.Recovery.Fallbacks
	if c.Recovery.LRU > 0 {
		p.AnchorLRU = c.Recovery.LRU
	}
	p.AllowedBankFiles = c.Check.AllowedFiles
	return p
}

// TTL is the session expiry, defaulting to 24h when invalid.
func (c *Config) TTL() time.Duration {
	d, err := time.ParseDuration(c.State.TTL)
	if err != nil || d <= 0 {
		return 24 * time.Hour
	}
	return d
}

// MinimumTemplate is templates.minimum parsed, defaulting to the current template.
func (c *Config) MinimumTemplate() bank.Version {
	v, err := bank.ParseVersion(c.Templates.Minimum)
	if err != nil {
		return bank.CurrentTemplate
	}
	return v
}

// Value returns the effective value of a key, for printing.
func (c *Config) Value(key string) any {
	f, ok := field(key)
	if !ok {
		return nil
	}
	return reflect.ValueOf(c).Elem().FieldByIndex(f.index).Interface()
}

// convert turns an environment or flag string into the type of the key's default.
func convert(like any, raw string) (any, error) {
	switch like.(type) {
	case []string:
		var out []string
		for _, p := range strings.Split(raw, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case int:
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", raw)
		}
		return n, nil
	case bool:
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", raw)
		}
		return b, nil
	}
	return raw, nil
}

// StaleSeverity checks a stale-reference severity: off, warning or error.
func StaleSeverity(s string) (string, error) {
	switch s {
	case "off", "warning", "error":
		return s, nil
	}
	return "", fmt.Errorf("%q: want off, warning or error", s)
}

// StaleSeverityOf is the configured severity of one stale-reference rule: its check.stale_rules
// entry, else check.stale.
func (c *Config) StaleSeverityOf(rule string) string {
	for _, r := range c.Check.StaleRules {
		if k, v, ok := strings.Cut(r, "="); ok && k == rule {
			return v
		}
	}
	return c.Check.Stale
}

// WithUserHome returns getenv with HOME answered from %USERPROFILE% (else %HOMEDRIVE%%HOMEPATH%)
// when HOME is unset or empty: PowerShell and cmd on Windows set no HOME, and every user-level
// path mbguard builds (the hosts' settings, ~/.config, the git hook's global settings) starts
// there. Go's os.UserHomeDir reads the same variables on Windows; this is the one place
// mbguard's and mbguard-hook's own reads of HOME do.
func WithUserHome(getenv func(string) string) func(string) string {
	return func(k string) string {
		v := getenv(k)
		if k != "HOME" || v != "" {
			return v
		}
		if p := getenv("USERPROFILE"); p != "" {
			return p
		}
		if d, p := getenv("HOMEDRIVE"), getenv("HOMEPATH"); d != "" && p != "" {
			return d + p
		}
		return ""
	}
}
