package shell

import (
	"path"
	"strings"
	"sync"
)

// This file is the package-manager table: the subcommands that add, remove or upgrade a
// dependency rewrite the project's manifest and lockfile, and are writes of those files.
// A manager or subcommand not in the table is judged like any command mbguard does not
// know (by the paths it names).

// pkgSub is one family of subcommands of a package manager.
type pkgSub struct {
	// words are the subcommand's spellings, split by "|"; "mod tidy" is two words.
	words string
	// withPkg are the files written when a package is named (npm install lodash), pkg
	// the same when none is (npm install); a trailing slash is a directory written at
	// any depth. Paths are relative to the project directory.
	withPkg, bare string
	// readOnly are options that make the subcommand only print (go mod edit -json).
	readOnly string
}

// pkgManager is one package manager.
type pkgManager struct {
	// dir are options whose value is the project directory (-C, --prefix, --cwd).
	dir string
	// manifest are options whose value is the manifest file (--manifest-path): its
	// directory is the project's.
	manifest string
	// values are other options that take a value, so it is not taken for a subcommand.
	values string
	// none is the subcommand a bare run means (yarn alone installs).
	none string
	subs []pkgSub
}

const (
	npmFiles  = "package.json package-lock.json node_modules/"
	pnpmFiles = "package.json pnpm-lock.yaml node_modules/"
	yarnFiles = "package.json yarn.lock node_modules/"
	bunFiles  = "package.json bun.lock bun.lockb node_modules/"
)

var pkgManagers = sync.OnceValue(func() map[string]pkgManager {
	return map[string]pkgManager{
		"npm": {dir: "--prefix -C", values: "-w --workspace --registry --cache --loglevel --tag --save-prefix --omit --include", subs: []pkgSub{
			{words: "install|i|in|isntall|add", withPkg: npmFiles, bare: "package-lock.json node_modules/"},
			{words: "ci|clean-install", bare: "node_modules/"},
			{words: "uninstall|remove|rm|r|un|unlink", withPkg: npmFiles, bare: npmFiles},
			{words: "update|up|upgrade", withPkg: npmFiles, bare: npmFiles},
			{words: "dedupe|ddp|prune", withPkg: "package-lock.json node_modules/", bare: "package-lock.json node_modules/"},
			{words: "audit fix", withPkg: npmFiles, bare: npmFiles},
			{words: "version", withPkg: "package.json package-lock.json", bare: ""},
			{words: "pkg set", withPkg: "package.json", bare: "package.json"},
			{words: "pkg delete", withPkg: "package.json", bare: "package.json"},
			{words: "init|create", withPkg: "package.json", bare: "package.json"},
		}},
		"pnpm": {dir: "-C --dir", values: "--filter -F --reporter --store-dir", subs: []pkgSub{
			{words: "add", withPkg: pnpmFiles, bare: pnpmFiles},
			{words: "install|i", withPkg: pnpmFiles, bare: "pnpm-lock.yaml node_modules/"},
			{words: "remove|rm|uninstall|un", withPkg: pnpmFiles, bare: pnpmFiles},
			{words: "update|up|upgrade", withPkg: pnpmFiles, bare: pnpmFiles},
			{words: "dedupe|prune", withPkg: "pnpm-lock.yaml node_modules/", bare: "pnpm-lock.yaml node_modules/"},
			{words: "init", withPkg: "package.json", bare: "package.json"},
		}},
		"yarn": {dir: "--cwd", values: "--registry --cache-folder", none: "install", subs: []pkgSub{
			{words: "add", withPkg: yarnFiles, bare: yarnFiles},
			{words: "install", withPkg: yarnFiles, bare: "yarn.lock node_modules/"},
			{words: "remove", withPkg: yarnFiles, bare: yarnFiles},
			{words: "up|upgrade|upgrade-interactive", withPkg: yarnFiles, bare: yarnFiles},
			{words: "dedupe", withPkg: "yarn.lock node_modules/", bare: "yarn.lock node_modules/"},
			{words: "init", withPkg: "package.json", bare: "package.json"},
		}},
		"bun": {dir: "--cwd", values: "--registry", subs: []pkgSub{
			{words: "add|a", withPkg: bunFiles, bare: bunFiles},
			{words: "install|i", withPkg: bunFiles, bare: "bun.lock bun.lockb node_modules/"},
			{words: "remove|rm", withPkg: bunFiles, bare: bunFiles},
			{words: "update", withPkg: bunFiles, bare: bunFiles},
			{words: "init", withPkg: "package.json", bare: "package.json"},
		}},
		// pip writes its site-packages, outside the project unless told: -t DIR is a tree
		"pip": {values: "-r --requirement -c --constraint -i --index-url --extra-index-url -f --find-links --python --cache-dir", subs: []pkgSub{
			{words: "install", readOnly: "--dry-run"},
			{words: "uninstall"},
		}},
		"uv": {dir: "--directory --project", values: "--python -p --index --default-index --extra-index-url --cache-dir --package --group --optional --extra", subs: []pkgSub{
			{words: "add", withPkg: "pyproject.toml uv.lock .venv/", bare: "pyproject.toml uv.lock .venv/"},
			{words: "remove", withPkg: "pyproject.toml uv.lock .venv/", bare: "pyproject.toml uv.lock .venv/"},
			{words: "lock", withPkg: "uv.lock", bare: "uv.lock", readOnly: "--check --locked --dry-run"},
			{words: "sync", withPkg: "uv.lock .venv/", bare: "uv.lock .venv/", readOnly: "--dry-run"},
			{words: "pip install", withPkg: ".venv/", bare: ".venv/"},
			{words: "pip uninstall", withPkg: ".venv/", bare: ".venv/"},
			{words: "pip sync", withPkg: ".venv/", bare: ".venv/"},
			{words: "venv", withPkg: ".venv/", bare: ".venv/"},
			{words: "init", withPkg: "pyproject.toml", bare: "pyproject.toml"},
		}},
		"poetry": {dir: "-C --directory -P --project", values: "--group -G --source --extras -E", subs: []pkgSub{
			{words: "add", withPkg: "pyproject.toml poetry.lock", bare: "pyproject.toml poetry.lock"},
			{words: "remove", withPkg: "pyproject.toml poetry.lock", bare: "pyproject.toml poetry.lock"},
			{words: "lock", withPkg: "poetry.lock", bare: "poetry.lock", readOnly: "--check"},
			{words: "update", withPkg: "poetry.lock", bare: "poetry.lock", readOnly: "--dry-run"},
			{words: "install", withPkg: "poetry.lock", bare: "poetry.lock", readOnly: "--dry-run"},
			{words: "version", withPkg: "pyproject.toml", bare: ""},
			{words: "init", withPkg: "pyproject.toml", bare: "pyproject.toml"},
		}},
		"pdm": {dir: "-p --project", values: "-G --group", subs: []pkgSub{
			{words: "add", withPkg: "pyproject.toml pdm.lock .venv/", bare: "pyproject.toml pdm.lock .venv/"},
			{words: "remove", withPkg: "pyproject.toml pdm.lock .venv/", bare: "pyproject.toml pdm.lock .venv/"},
			{words: "lock", withPkg: "pdm.lock", bare: "pdm.lock", readOnly: "--check"},
			{words: "update", withPkg: "pdm.lock .venv/", bare: "pdm.lock .venv/"},
			{words: "install|sync", withPkg: "pdm.lock .venv/", bare: "pdm.lock .venv/"},
			{words: "init", withPkg: "pyproject.toml", bare: "pyproject.toml"},
		}},
		"pipenv": {values: "--python", subs: []pkgSub{
			{words: "install", withPkg: "Pipfile Pipfile.lock", bare: "Pipfile.lock"},
			{words: "uninstall", withPkg: "Pipfile Pipfile.lock", bare: "Pipfile Pipfile.lock"},
			{words: "lock|update|upgrade", withPkg: "Pipfile Pipfile.lock", bare: "Pipfile.lock"},
		}},
		"go": {dir: "-C", values: "-modfile", subs: []pkgSub{
			{words: "get", withPkg: "go.mod go.sum", bare: "go.mod go.sum"},
			{words: "mod tidy", withPkg: "go.mod go.sum", bare: "go.mod go.sum", readOnly: "-diff"},
			{words: "mod edit", withPkg: "go.mod", bare: "go.mod", readOnly: "-json -print"},
			{words: "mod download", withPkg: "go.sum", bare: "go.sum", readOnly: "-json"},
			{words: "mod vendor", withPkg: "vendor/", bare: "vendor/"},
			{words: "mod init", withPkg: "go.mod", bare: "go.mod"},
			{words: "work init", withPkg: "go.work", bare: "go.work"},
			{words: "work use|work edit", withPkg: "go.work", bare: "go.work", readOnly: "-json -print"},
			{words: "work sync", withPkg: "go.work go.work.sum go.mod go.sum", bare: "go.work go.work.sum go.mod go.sum"},
			{words: "work vendor", withPkg: "vendor/", bare: "vendor/"},
		}},
		"cargo": {manifest: "--manifest-path", values: "--package -p --features -F --target --registry --config -Z --color", subs: []pkgSub{
			{words: "add", withPkg: "Cargo.toml Cargo.lock", bare: "Cargo.toml Cargo.lock", readOnly: "--dry-run -n"},
			{words: "remove|rm", withPkg: "Cargo.toml Cargo.lock", bare: "Cargo.toml Cargo.lock", readOnly: "--dry-run -n"},
			{words: "update|upgrade", withPkg: "Cargo.lock", bare: "Cargo.lock", readOnly: "--dry-run -n --locked"},
			{words: "generate-lockfile", withPkg: "Cargo.lock", bare: "Cargo.lock"},
			{words: "init", withPkg: "Cargo.toml", bare: "Cargo.toml"},
		}},
		"bundle": {manifest: "--gemfile", values: "--path --jobs -j --group --source", subs: []pkgSub{
			{words: "add", withPkg: "Gemfile Gemfile.lock", bare: "Gemfile Gemfile.lock"},
			{words: "remove", withPkg: "Gemfile Gemfile.lock", bare: "Gemfile Gemfile.lock"},
			{words: "install|update|lock", withPkg: "Gemfile.lock", bare: "Gemfile.lock"},
			{words: "init", withPkg: "Gemfile", bare: "Gemfile"},
		}},
		"composer": {dir: "-d --working-dir", values: "--prefer-install", subs: []pkgSub{
			{words: "require|remove", withPkg: "composer.json composer.lock vendor/", bare: "composer.json composer.lock vendor/", readOnly: "--dry-run"},
			{words: "update|upgrade|u|install|i", withPkg: "composer.lock vendor/", bare: "composer.lock vendor/", readOnly: "--dry-run"},
			{words: "init", withPkg: "composer.json", bare: "composer.json"},
		}},
		// dotnet add [PROJECT] package NAME: the project file, named or the one in the directory
		"dotnet": {values: "-v --version -s --source --framework -f", subs: []pkgSub{
			{words: "add package", withPkg: "*.csproj *.fsproj *.vbproj packages.lock.json Directory.Packages.props", bare: "*.csproj *.fsproj *.vbproj packages.lock.json Directory.Packages.props"},
			{words: "remove package", withPkg: "*.csproj *.fsproj *.vbproj packages.lock.json Directory.Packages.props", bare: "*.csproj *.fsproj *.vbproj packages.lock.json Directory.Packages.props"},
		}},
		// gradle and maven write their lockfiles or pom.xml only when asked to
		"gradle": {dir: "-p --project-dir", values: "-b --build-file -c --settings-file -g --gradle-user-home -I --init-script -D -P", subs: []pkgSub{
			{words: "--write-locks|--update-locks", withPkg: "gradle.lockfile settings-gradle.lockfile buildscript-gradle.lockfile gradle/", bare: "gradle.lockfile settings-gradle.lockfile buildscript-gradle.lockfile gradle/"},
		}},
		"mvn": {dir: "-f --file", values: "-D -P -pl --projects -s --settings -t --toolchains -T --threads", subs: []pkgSub{
			{words: "versions:use-latest-versions|versions:use-latest-releases|versions:use-next-releases|versions:update-properties|versions:update-parent|versions:set|versions:use-dep-version|versions:update-child-modules", withPkg: "pom.xml", bare: "pom.xml"},
		}},
	}
})

// pkgAliases are other names of a manager in the table.
var pkgAliases = map[string]string{"pip3": "pip", "bundler": "bundle", "gradlew": "gradle", "mvnw": "mvn", "corepack-pnpm": "pnpm"}

// pkgManagerName returns the table's name for a command, "" when it is not one.
func pkgManagerName(name string) string {
	if a, ok := pkgAliases[name]; ok {
		return a
	}
	if strings.HasPrefix(name, "pip") && strings.Trim(name[3:], "0123456789.") == "" {
		return "pip"
	}
	if _, ok := pkgManagers()[name]; ok {
		return name
	}
	return ""
}

// pkgManager judges a package-manager run by the table; ok is false when the line is none
// of the subcommands it knows.
func (w *walker) pkgManager(name string, args []arg, e *env) bool {
	mname := pkgManagerName(name)
	if mname == "" {
		return false
	}
	m := pkgManagers()[mname]
	flags := strings.Fields(m.dir + " " + m.manifest + " " + m.values)
	opts, ops := parseArgs(args, flagSpec{long: flags, short: shortValues(flags)})
	dir := m.projectDir(mname, opts)
	project, ops := dotnetProject(mname, ops)
	sub, spelling, rest, ok := m.match(ops, args)
	if !ok {
		return false
	}
	if readOnlyRun(sub, args) {
		w.namedArgs(name, ops, e)
		return true
	}
	files := sub.bare
	if len(rest) > 0 {
		files = sub.withPkg
	}
	if mname == "pip" {
		// pip installs into the environment, not the project: only a target it is
		// given (-t DIR, --target, --prefix, --root) is a place in it
		files = ""
		for _, a := range pipTargets(args) {
			w.writeDir(a, name, e)
		}
	}
	op := name + " " + spelling
	if project.s != "" {
		// dotnet add PROJECT package NAME: that project file (or the one in that directory)
		dir = project
		if strings.HasSuffix(project.s, "proj") {
			w.writeArg(project, op, e)
			files = "packages.lock.json Directory.Packages.props"
			dir = arg{s: path.Dir(project.s), exact: project.exact, pat: project.pat}
		}
	}
	w.writeProjectFiles(dir, files, op, e)
	w.namedArgs(name, rest, e)
	return true
}

// projectDir is the project directory a package manager's options name (-C, --prefix,
// --manifest-path's directory); the working directory when none does.
func (m pkgManager) projectDir(mname string, opts []opt) arg {
	dir := arg{s: ".", exact: true}
	for _, o := range opts {
		switch {
		case !o.has:
		case inList(m.dir, o.name):
			dir = o.value
			if mname == "mvn" && o.value.exact && strings.HasSuffix(o.value.s, ".xml") {
				dir = arg{s: path.Dir(o.value.s), exact: true}
			}
		case inList(m.manifest, o.name) && o.value.exact:
			dir = arg{s: path.Dir(o.value.s), exact: true}
		case inList(m.manifest, o.name):
			dir = o.value
		}
	}
	return dir
}

// dotnetProject takes the project out of dotnet add PROJECT package NAME (and remove),
// leaving dotnet add package NAME to match.
func dotnetProject(mname string, ops []arg) (project arg, rest []arg) {
	if mname != "dotnet" || len(ops) <= 2 || !ops[0].exact || !ops[2].exact || ops[2].s != "package" {
		return arg{}, ops
	}
	if ops[0].s != "add" && ops[0].s != "remove" {
		return arg{}, ops
	}
	return ops[1], append([]arg{ops[0]}, ops[2:]...)
}

// readOnlyRun reports a subcommand run with one of its read-only options (--dry-run …).
func readOnlyRun(sub pkgSub, args []arg) bool {
	for _, a := range args {
		if a.exact && inList(sub.readOnly, strings.SplitN(a.s, "=", 2)[0]) {
			return true
		}
	}
	return false
}

// writeProjectFiles records the files (and, ending in /, trees) a package manager writes
// in dir.
func (w *walker) writeProjectFiles(dir arg, files, op string, e *env) {
	for _, f := range strings.Fields(files) {
		if tree, ok := strings.CutSuffix(f, "/"); ok {
			w.writeDir(joinArg(dir, tree), op, e)
			continue
		}
		w.writeArg(joinArg(dir, f), op, e)
	}
}

// match finds the subcommand family ops start with; rest are the operands after it (the
// packages named). gradle and maven name theirs as options or goals anywhere on the line.
func (m pkgManager) match(ops []arg, args []arg) (pkgSub, string, []arg, bool) {
	if len(ops) == 0 && m.none != "" {
		ops = []arg{{s: m.none, exact: true}}
	}
	for _, s := range m.subs {
		for _, spelling := range spellings(s.words) {
			ws := strings.Fields(spelling)
			if strings.HasPrefix(ws[0], "-") || strings.Contains(ws[0], ":") {
				if hasOptionWord(args, ws[0]) {
					return s, ws[0], nil, true
				}
				continue
			}
			if startsWith(ops, ws) {
				return s, spelling, ops[len(ws):], true
			}
		}
	}
	return pkgSub{}, "", nil, false
}

// hasOptionWord reports an option spelled as a subcommand (--version, run:dev) among args,
// alone or with =VALUE.
func hasOptionWord(args []arg, word string) bool {
	for _, a := range args {
		if a.exact && (a.s == word || strings.HasPrefix(a.s, word+"=")) {
			return true
		}
	}
	return false
}

// startsWith reports operands that begin with the words ws, exactly.
func startsWith(ops []arg, ws []string) bool {
	if len(ops) < len(ws) {
		return false
	}
	for i, x := range ws {
		if !ops[i].exact || ops[i].s != x {
			return false
		}
	}
	return true
}

// spellings splits a words list into its spellings: "install|i" gives two, "mod tidy" one
// of two words.
func spellings(words string) []string { return strings.Split(words, "|") }

func inList(list, name string) bool {
	for _, x := range strings.Fields(list) {
		if x == name {
			return true
		}
	}
	return false
}

// joinArg is dir/f as an argument, as exact as dir is.
func joinArg(dir arg, f string) arg {
	if dir.s == "" || dir.s == "." {
		return arg{s: f, exact: true}
	}
	return arg{s: strings.TrimSuffix(dir.s, "/") + "/" + f, exact: dir.exact, pat: dir.pat}
}

// pipTargets are the directories pip is told to install into.
func pipTargets(args []arg) []arg {
	var out []arg
	for i, a := range args {
		if !a.exact {
			continue
		}
		for _, o := range []string{"-t", "--target", "--prefix", "--root"} {
			switch {
			case a.s == o && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(a.s, o+"="):
				out = append(out, arg{s: a.s[len(o)+1:], exact: true})
			}
		}
	}
	return out
}

// pkgManagerCommands registers the table's managers and their other names, and the
// scripts the JavaScript managers run from package.json.
func pkgManagerCommands() []command {
	return []command{
		{names: mapKeys(pkgManagers()) + " " + mapKeys(pkgAliases), family: "package managers", does: "writes the manifest and lockfile its subcommand rewrites",
			handle: func(w *walker, c *invocation) bool { return w.pkgManager(c.name, c.args, c.e) }},
		{names: "npm pnpm yarn bun", family: "package managers", does: "runs package.json scripts (read before the line is judged)", runs: npmRuns},
	}
}

// npmRuns records the package.json script a run, test, start or install runs.
func npmRuns(w *walker, c *invocation) {
	_, ops := parseArgs(c.args, flagSpec{long: []string{"--prefix", "--workspace", "-w", "--filter", "--cwd"}})
	if len(ops) == 0 {
		return
	}
	script := ""
	switch sub := ops[0].s; sub {
	case "run", "run-script", "rum", "urn":
		if len(ops) > 1 {
			script = ops[1].s
		}
	case "test", "t", "tst", "start", "stop", "restart":
		script = map[string]string{"t": "test", "tst": "test"}[sub]
		if script == "" {
			script = sub
		}
	case "install", "i", "ci", "add", "exec", "x", "dlx", "create", "init":
		script = "install"
	default:
		if c.name == "yarn" || c.name == "pnpm" || c.name == "bun" {
			script = sub // yarn build runs the build script
		}
	}
	if script != "" {
		w.addRun(arg{s: "package.json", exact: true}, "npm", script, c.e)
	}
}
