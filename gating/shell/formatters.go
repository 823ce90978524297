package shell

import (
	"strings"
	"sync"
)

// formatterSpec says how a linter or formatter writes the files it is handed.
type formatterSpec struct {
	// fix are the options or subcommand words that make it rewrite files; none means it
	// always rewrites, unless a check option (--check, --diff, --dry-run) says otherwise.
	fix []string
	// md reports a tool that formats Markdown: a tree it is run on includes memory-bank/.
	// A tool that cannot is taken to write no .md file below a directory it walks.
	md bool
	// mdOpts are options whose value names the file types a tool walks (eslint --ext,
	// ruff --extension): naming md there makes it a Markdown formatter for this run.
	mdOpts []string
	// values are options that take a value that is not a file to format.
	values []string
	// exclude are the words that, added to the command, leave memory-bank/ out of a tree
	// the tool walks; "" when it has no such option (name the files instead).
	exclude string
}

// formatters are the linters and formatters that rewrite files. Tools that cannot write
// Markdown run on `.` or `src` are not writes of the bank; those that can are refused with
// the command that leaves the bank out.
var formatters = sync.OnceValue(func() map[string]formatterSpec {
	return map[string]formatterSpec{
		// cannot write Markdown
		"gofmt":        {fix: []string{"-w"}},
		"goimports":    {fix: []string{"-w"}, values: []string{"-local"}},
		"black":        {mdOpts: []string{"--include"}, values: []string{"--line-length", "-l", "--target-version", "-t", "--exclude", "--extend-exclude", "--force-exclude", "--config", "--python-cell-magics", "-W", "--workers"}},
		"ruff":         {fix: []string{"--fix", "format", "--fix-only"}, mdOpts: []string{"--extension"}, values: []string{"--config", "--select", "--ignore", "--extend-select", "--exclude", "--extend-exclude", "--line-length", "--target-version", "--output-format", "--per-file-ignores", "--fixable", "--unfixable", "--cache-dir"}},
		"isort":        {values: []string{"--settings-path", "--sp", "--profile", "-l", "--line-length", "--skip", "-s", "--skip-glob", "--extend-skip"}},
		"autopep8":     {fix: []string{"-i", "--in-place"}, values: []string{"--max-line-length", "--select", "--ignore", "--exclude", "-j", "--jobs", "--global-config"}},
		"rustfmt":      {values: []string{"--edition", "--config", "--config-path", "--emit"}},
		"clang-format": {fix: []string{"-i"}, values: []string{"--style", "-style", "--assume-filename", "--lines", "--offset", "--length"}},
		"shfmt":        {fix: []string{"-w", "--write"}, values: []string{"-i", "--indent", "-ln", "--language-dialect"}},
		"eslint":       {fix: []string{"--fix"}, mdOpts: []string{"--ext"}, values: []string{"-c", "--config", "--ignore-path", "--ignore-pattern", "--rule", "--plugin", "--parser", "--format", "-f", "-o", "--output-file", "--max-warnings", "--cache-location", "--fix-type", "--resolve-plugins-relative-to", "--rulesdir", "--env", "--global", "--parser-options"}},
		"stylua":       {values: []string{"--config-path", "-f", "--glob", "-g", "--num-threads"}},
		"yamlfmt":      {values: []string{"-conf", "-exclude"}},
		"taplo":        {fix: []string{"fmt", "format"}, values: []string{"--config", "-c", "--option", "-o"}},
		// can write Markdown
		"prettier":          {fix: []string{"--write", "-w"}, md: true, values: []string{"--config", "--ignore-path", "--plugin", "--parser", "--stdin-filepath", "--print-width", "--tab-width", "--log-level", "--cache-location", "--end-of-line", "--trailing-comma", "--prose-wrap"}, exclude: "'!memory-bank/**'"},
		"markdownlint":      {fix: []string{"--fix", "-f"}, md: true, values: []string{"-c", "--config", "-i", "--ignore", "-p", "--ignore-path", "-r", "--rules", "-o", "--output"}, exclude: "--ignore memory-bank"},
		"markdownlint-cli2": {fix: []string{"--fix"}, md: true, values: []string{"--config"}, exclude: "'#memory-bank'"},
		"dprint":            {fix: []string{"fmt"}, md: true, values: []string{"--config", "-c", "--excludes", "--plugins", "--log-level"}, exclude: "--excludes memory-bank"},
		"mdformat":          {md: true, values: []string{"--wrap", "--end-of-line", "--extensions", "--codeformatters"}},
		"remark":            {fix: []string{"-o", "--output"}, md: true, values: []string{"--rc-path", "-r", "--ignore-path", "-i", "--setting", "-s", "--use", "-u", "--ignore-pattern"}, exclude: "--ignore-pattern memory-bank"},
		"textlint":          {fix: []string{"--fix"}, md: true, values: []string{"-c", "--config", "--ignore-path", "--rule", "--preset", "--plugin", "-f", "--format", "-o", "--output-file"}},
		"typos":             {fix: []string{"-w", "--write-changes"}, md: true, values: []string{"--config", "-c", "--exclude", "--type-list"}, exclude: "--exclude memory-bank"},
		"codespell":         {fix: []string{"-w", "--write-changes"}, md: true, values: []string{"-S", "--skip", "-L", "--ignore-words-list", "-I", "--ignore-words", "-D", "--dictionary", "-x", "--exclude-file"}, exclude: "--skip memory-bank"},
		// Biome formats no Markdown today; taken as one that may, until it is known not to.
		"biome": {fix: []string{"--write", "--apply", "--fix"}, md: true, values: []string{"--config-path", "--max-diagnostics", "--log-level", "--reporter"}},
	}
})

// subFormatters are formatters run as a subcommand of a toolchain: go fmt, cargo fmt. They
// always rewrite and cannot write Markdown.
var subFormatters = map[string]map[string]bool{
	"go":    {"fmt": true},
	"cargo": {"fmt": true},
	"deno":  {}, // deno fmt formats Markdown: judged like any deno run
}

// formatter judges a linter or formatter: with its fix option (or, for a formatter that
// always rewrites, without --check) the files it names are written, else read.
func (w *walker) formatter(name string, args []arg, e *env) {
	spec := formatters()[name]
	fixes := len(spec.fix) == 0
	md := spec.md
	for i, a := range args {
		if !a.exact {
			continue
		}
		fixes = formatterFixes(name, spec.fix, a.s, fixes)
		md = md || spec.walksMarkdown(args, i)
	}
	values := append(spec.values[:len(spec.values):len(spec.values)], spec.mdOpts...)
	_, ops := parseArgs(args, flagSpec{long: values, short: shortValues(values)})
	var targets []arg
	for _, a := range ops {
		if a.exact && formatterSubs[a.s] {
			continue
		}
		targets = append(targets, a)
	}
	if !fixes {
		w.readAll(targets, name, e)
		return
	}
	w.formatWrites(name, targets, md, spec.exclude, args, e)
}

// formatterSubs are the subcommand words of formatters run through their toolchain (go fmt,
// cargo fmt, ruff format, biome check): no targets.
var formatterSubs = map[string]bool{"fmt": true, "format": true, "check": true}

// formatterChecks are the options with which a formatter that writes by default only checks.
var formatterChecks = map[string]bool{"--check": true, "--diff": true, "-check": true, "--dry-run": true}

// formatterFixes reports whether the formatter writes after the option s: one that writes
// by default (no fix options) stops with a check option; one that does not starts with a fix
// option. fixes is the answer before s.
func formatterFixes(name string, fix []string, s string, fixes bool) bool {
	if len(fix) == 0 && (formatterChecks[s] || s == "-d" && name == "gofmt") {
		return false
	}
	for _, f := range fix {
		if s == f || strings.HasPrefix(s, f+"=") {
			return true
		}
	}
	return fixes
}

// walksMarkdown reports an option at args[i] whose value names the file types the tool
// walks (eslint --ext) and takes in Markdown, or is known only at run time.
func (spec formatterSpec) walksMarkdown(args []arg, i int) bool {
	a := args[i]
	md := false
	for _, o := range spec.mdOpts {
		v, ok := "", false
		switch {
		case a.s == o && i+1 < len(args):
			v, ok = args[i+1].s, true
		case strings.HasPrefix(a.s, o+"="):
			v, ok = a.s[len(o)+1:], true
		}
		if ok && namesMarkdown(v) || ok && i+1 < len(args) && !args[i+1].exact {
			md = true
		}
	}
	return md
}

// formatWrites records what a formatter that rewrites writes: for one that cannot write
// Markdown, every directory it is run on is a tree without .md files; for one that can, the
// paths as named, with the command that leaves the bank out.
func (w *walker) formatWrites(name string, targets []arg, md bool, exclude string, args []arg, e *env) {
	if len(targets) == 0 {
		targets = []arg{{s: ".", exact: true}}
	}
	n := len(w.res.Writes)
	for _, a := range targets {
		if md || !a.exact || namesMarkdown(a.s) {
			w.writeArg(a, name, e)
			continue
		}
		d := strings.TrimSuffix(strings.TrimSuffix(a.s, "..."), "/")
		if d == "" {
			d = "."
		}
		w.writeDir(arg{s: d, exact: true}, name, e)
		w.res.Writes[len(w.res.Writes)-1].NoMarkdown = true
	}
	if md && leavesBankOut(args) {
		// told to leave the bank out (prettier … '!memory-bank/**', --ignore memory-bank)
		for i := n; i < len(w.res.Writes); i++ {
			w.res.Writes[i].NoBank = w.res.Writes[i].Path != "" && !mayNameBank(w.res.Writes[i].Path)
		}
		return
	}
	if exclude == "" || !md {
		return
	}
	if hint, ok := excludeHint(name, args, exclude); ok {
		for i := n; i < len(w.res.Writes); i++ {
			w.res.Writes[i].Exclude = hint
		}
	}
}

// excludeHint is the command line again with the options that leave the bank out; false
// for a command built at run time, which gets no exact advice.
func excludeHint(name string, args []arg, exclude string) (string, bool) {
	words := []string{name}
	for _, a := range args {
		if !a.exact {
			return "", false
		}
		words = append(words, shellWord(a.s))
	}
	return strings.Join(words, " ") + " " + exclude, true
}

// subFormatter handles go fmt and cargo fmt; ok is false when the line is not one.
func (w *walker) subFormatter(name string, args []arg, e *env) bool {
	subs := subFormatters[name]
	if len(subs) == 0 || len(args) == 0 || !args[0].exact || !subs[args[0].s] {
		return false
	}
	_, ops := parseArgs(args[1:], flagSpec{short: "np", long: []string{"--manifest-path", "--package", "--message-format"}})
	for _, a := range args[1:] {
		if a.exact && (a.s == "--check" || a.s == "-n") {
			w.readAll(ops, name+" fmt", e)
			return true
		}
	}
	if name == "cargo" {
		ops = nil // cargo fmt -- FILES passes options to rustfmt; it formats the crate
	}
	w.formatWrites(name+" "+args[0].s, ops, false, "", nil, e)
	return true
}

// leavesBankOut reports a formatter command that excludes memory-bank/ itself: a negated
// pattern ('!memory-bank/**', '#memory-bank') or an exclusion option's value naming it.
func leavesBankOut(args []arg) bool {
	for i, a := range args {
		if !a.exact {
			continue
		}
		v, negated := a.s, false
		switch {
		case strings.HasPrefix(v, "!") || strings.HasPrefix(v, "#"):
			v, negated = v[1:], true
		case strings.HasPrefix(v, "-") && strings.Contains(v, "="):
			_, v, _ = strings.Cut(v, "=")
			negated = true
		case i > 0 && args[i-1].exact && strings.HasPrefix(args[i-1].s, "-"):
			negated = true
		}
		if !negated {
			continue
		}
		for _, part := range strings.Split(v, ",") {
			if ExcludesBank(part) {
				return true
			}
		}
	}
	return false
}

// ExcludesBank reports whether an exclusion pattern (a negated glob without its "!",
// --exclude-dir's value, a git pathspec's) names memory-bank/ as a whole: memory-bank,
// ./memory-bank/, memory-bank/**, **/memory-bank …
func ExcludesBank(pattern string) bool {
	p := strings.TrimPrefix(strings.TrimPrefix(pattern, "./"), "**/")
	for _, suf := range []string{"/**/*", "/**", "/"} {
		p = strings.TrimSuffix(p, suf)
	}
	return p == bankName
}

// namesMarkdown reports a path or a file-type list that takes in Markdown files.
func namesMarkdown(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "md") || strings.Contains(l, "markdown")
}

// shortValues returns the single-letter options of list ("-l" gives "l").
func shortValues(list []string) string {
	var b strings.Builder
	for _, o := range list {
		if len(o) == 2 && o[0] == '-' && o[1] != '-' {
			b.WriteByte(o[1])
		}
	}
	return b.String()
}

// shellWord quotes s for a command line when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// formatterCommands registers the formatter table and the toolchains' fmt subcommands.
func formatterCommands() []command {
	return []command{
		{names: mapKeys(formatters()), family: "formatters", does: "with its fix option writes what it formats; a tree without .md files unless it formats Markdown",
			handle: always(func(w *walker, c *invocation) { w.formatter(c.name, c.args, c.e) })},
		{names: mapKeys(subFormatters), family: "formatters", does: "its fmt subcommand rewrites the project's sources, no .md file",
			handle: func(w *walker, c *invocation) bool { return w.subFormatter(c.name, c.args, c.e) }},
	}
}
