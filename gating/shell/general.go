package shell

import (
	"path"
	"strings"
	"sync"
)

// This file holds the general rules behind the command tables: commands that
// run their arguments as a command (wrappers), options that take code, and
// what an unknown command is taken to do with the files it names.

// wrapperSpec describes a command that runs another command given in its
// arguments: flock FILE CMD…, taskset MASK CMD…, strace -o F CMD…
type wrapperSpec struct {
	flags flagSpec // options that take a value
	// code are options whose value is a shell command line (script -c CMD).
	code []string
	// skip is how many operands come before the command (flock's lock file,
	// taskset's mask, chroot's directory).
	skip int
	// out are options whose value is a file the wrapper itself writes.
	out []string
}

// wrappers are commands that run another command. When the command cannot be
// found where the table says, the first operand that names a command mbguard
// knows is taken; failing that, the arguments are judged like an unknown
// command's.
var wrappers = sync.OnceValue(func() map[string]wrapperSpec {
	return map[string]wrapperSpec{
		"flock":            {flags: flagSpec{short: "wEc", long: []string{"--timeout", "--conflict-exit-code", "--command"}}, code: []string{"-c", "--command"}, skip: 1},
		"taskset":          {flags: flagSpec{short: "", long: nil}, skip: 1},
		"strace":           {flags: flagSpec{short: "abeEIoOpPsSuUX", long: []string{"--output", "--trace", "--signal", "--attach", "--user", "--string-limit", "--env"}}, out: []string{"-o", "--output"}},
		"ltrace":           {flags: flagSpec{short: "aAeLnoOpsu", long: []string{"--output", "--library"}}, out: []string{"-o", "--output"}},
		"script":           {flags: flagSpec{short: "cEIOBTtm", long: []string{"--command", "--log-in", "--log-out", "--log-io", "--log-timing", "--echo", "--logging-format"}}, code: []string{"-c", "--command"}, out: []string{"-O", "--log-out", "-B", "--log-io", "-T", "--log-timing"}},
		"su":               {flags: flagSpec{short: "cgGs", long: []string{"--command", "--group", "--supp-group", "--shell", "--session-command", "--whitelist-environment"}}, code: []string{"-c", "--command", "--session-command"}},
		"runuser":          {flags: flagSpec{short: "cgGsu", long: []string{"--command", "--group", "--supp-group", "--shell", "--user", "--session-command"}}, code: []string{"-c", "--command", "--session-command"}},
		"sg":               {flags: flagSpec{short: "c"}, code: []string{"-c"}, skip: 1},
		"chroot":           {flags: flagSpec{long: []string{"--userspec", "--groups"}}, skip: 1},
		"unshare":          {flags: flagSpec{short: "S", long: []string{"--setuid", "--setgid", "--root", "--wd", "--propagation"}}},
		"nsenter":          {flags: flagSpec{short: "tSGrw", long: []string{"--target", "--setuid", "--setgid", "--root", "--wd"}}},
		"setpriv":          {flags: flagSpec{long: []string{"--reuid", "--regid", "--groups", "--inh-caps", "--bounding-set"}}},
		"prlimit":          {flags: flagSpec{short: "p", long: []string{"--pid", "--output"}}},
		"chrt":             {skip: 1},
		"numactl":          {flags: flagSpec{short: "CNmpiP", long: []string{"--cpunodebind", "--membind", "--preferred", "--interleave", "--physcpubind"}}},
		"cpulimit":         {flags: flagSpec{short: "lpe", long: []string{"--limit", "--pid", "--exe"}}},
		"firejail":         {},
		"bwrap":            {flags: flagSpec{long: []string{"--bind", "--ro-bind", "--dev-bind", "--chdir", "--setenv", "--unsetenv", "--tmpfs", "--proc", "--dev", "--symlink", "--dir", "--file", "--uid", "--gid"}}},
		"systemd-run":      {flags: flagSpec{short: "pEM", long: []string{"--unit", "--property", "--setenv", "--working-directory", "--uid", "--gid", "--machine", "--description", "--slice"}}},
		"pkexec":           {flags: flagSpec{long: []string{"--user"}}},
		"faketime":         {skip: 1},
		"proxychains":      {flags: flagSpec{short: "f"}},
		"proxychains4":     {flags: flagSpec{short: "f"}},
		"torsocks":         {},
		"valgrind":         {},
		"catchsegv":        {},
		"dbus-run-session": {},
		"xvfb-run":         {flags: flagSpec{short: "anspwfe", long: []string{"--server-num", "--server-args", "--error-file", "--auth-file"}}},
		"entr":             {},
		"retry":            {flags: flagSpec{short: "td", long: []string{"--times", "--delay"}}},
		"hyperfine":        {flags: flagSpec{short: "wrmMpcnsSuN", long: []string{"--warmup", "--runs", "--min-runs", "--max-runs", "--prepare", "--cleanup", "--command-name", "--setup", "--shell", "--export-json", "--export-markdown", "--export-csv", "--output", "--time-unit"}}, code: []string{"-p", "--prepare", "-c", "--cleanup", "-s", "--setup"}, out: []string{"--export-json", "--export-markdown", "--export-csv"}},
		"parallel":         {flags: flagSpec{short: "jSaIdEX", long: []string{"--jobs", "--sshlogin", "--arg-file", "--delimiter", "--eof", "--joblog", "--results", "--tmpdir"}}, out: []string{"--joblog", "--results"}},
		"nix-shell":        {flags: flagSpec{short: "pAIE", long: []string{"--packages", "--attr", "--run", "--command", "--arg", "--argstr", "--expr"}}, code: []string{"--run", "--command"}},
		"direnv":           {},
		"doppler":          {},
		"dotenv":           {flags: flagSpec{short: "ecv"}},
		"with-contenv":     {},
		"sem":              {flags: flagSpec{short: "j", long: []string{"--id", "--jobs"}}},
		"at":               {flags: flagSpec{short: "qft"}, skip: -1},
		"batch":            {skip: -1},
		"ssh-agent":        {},
		"npx":              {flags: flagSpec{short: "pc", long: []string{"--package", "--call"}}, code: []string{"-c", "--call"}},
		"bunx":             {},
		"pnpx":             {},
		"uvx":              {flags: flagSpec{long: []string{"--from", "--with", "--python"}}},
		"exec-in":          {},
	}
})

// wrapperRunners are "run" subcommands of tool managers that execute the rest
// of the line: uv run CMD, poetry run CMD, pnpm exec CMD …
var wrapperRunners = map[string]string{
	"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run", "rye": "run",
	"pnpm": "exec", "yarn": "exec", "bun": "x", "conda": "run", "mamba": "run", "micromamba": "run",
	"mise": "exec", "asdf": "exec", "rbenv": "exec", "pyenv": "exec", "bundle": "exec", "direnv": "exec",
	"dotnet": "exec", "cargo": "run", "go": "run", "docker": "exec", "podman": "exec", "kubectl": "exec",
}

// wrapper runs a wrapper; ok is false when name is none.
func (w *walker) wrapper(name string, args []arg, e *env, depth int, in *stdin) bool {
	spec, ok := wrappers()[name]
	if !ok {
		return false
	}
	opts, ops := parseArgs(args, flagSpec{short: spec.flags.short, long: spec.flags.long, stopAtOperand: true})
	for _, o := range opts {
		for _, c := range spec.code {
			if o.name == c && o.has {
				w.codeArg(o.value, e, depth)
			}
		}
		for _, c := range spec.out {
			if o.name == c && o.has {
				w.writeArg(o.value, name+" "+o.name, e)
			}
		}
	}
	if spec.skip < 0 {
		// at/batch read the commands from stdin.
		w.stdinCode(in, func(code string) { w.reparse(code, e, depth) })
		w.namedArgs(name, ops, e)
		return true
	}
	if len(spec.code) > 0 && hasOpt(opts, spec.code...) {
		// the command came in an option; any operands are its arguments
		// (script's log file, su's user)
		w.namedArgs(name, ops, e)
		return true
	}
	if spec.skip > 0 && len(ops) > spec.skip && ops[spec.skip].exact && knownCommand(path.Base(ops[spec.skip].s)) {
		w.call(ops[spec.skip:], e, depth, in)
		return true
	}
	for i, a := range ops {
		if a.exact && knownCommand(path.Base(a.s)) {
			w.namedArgs(name, ops[:i], e)
			w.call(ops[i:], e, depth, in)
			return true
		}
	}
	// the command it runs is not one mbguard knows
	w.unknownCommand(name, ops, e, depth)
	return true
}

// codeArg classifies an option value that is a shell command line.
func (w *walker) codeArg(a arg, e *env, depth int) {
	if !a.exact {
		w.unknownWrite()
		return
	}
	w.reparse(a.s, e, depth)
}

// runner handles `uv run CMD`, `poetry run CMD` and the like; ok is false when
// the line is not such a run.
func (w *walker) runner(name string, args []arg, e *env, depth int, in *stdin) bool {
	sub, ok := wrapperRunners[name]
	if !ok {
		return false
	}
	for i, a := range args {
		if !a.exact {
			return false
		}
		if strings.HasPrefix(a.s, "-") {
			continue
		}
		if a.s != sub {
			return false
		}
		rest := args[i+1:]
		for j, b := range rest {
			if b.exact && knownCommand(path.Base(b.s)) {
				w.call(rest[j:], e, depth, in)
				return true
			}
		}
		w.unknownCommand(name+" "+sub, rest, e, depth)
		return true
	}
	return false
}

// unknownCommand judges a command no table knows by the files it names: any
// argument (or option value) that names memory-bank/, or a glob that can
// match it, is taken as written; an argument holding a command line that
// names it (hyperfine 'rm …', an alias's body) is an unknown write. A tool
// mbguard never heard of cannot be trusted to only read what it is handed.
func (w *walker) unknownCommand(name string, args []arg, e *env, depth int) {
	for _, a := range args {
		w.namedArg(name, a, e)
	}
}

func (w *walker) namedArgs(name string, args []arg, e *env) {
	for _, a := range args {
		w.namedArg(name, a, e)
	}
}

func (w *walker) namedArg(name string, a arg, e *env) {
	s := a.s
	if a.exact && strings.HasPrefix(s, "-") {
		// --output=memory-bank/x, -omemory-bank/x
		if _, v, ok := strings.Cut(s, "="); ok {
			s = v
		} else if len(s) > 2 && s[1] != '-' {
			s = s[2:]
		} else {
			return
		}
	}
	if !a.exact {
		if mayNameBank(a.pat) || mayNameBank(s) {
			w.writeArg(arg{s: s}, name, e)
			w.unknownWrite()
		}
		return
	}
	if strings.ContainsAny(s, " \t\n;|&<>()$`") {
		// a command line or a script passed as text
		if mayNameBank(s) || strings.Contains(s, bankName) {
			w.unknownWrite()
		}
		return
	}
	// -v memory-bank:/x, --mount src=memory-bank,dst=/x: each part may be a path
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ',' || r == '=' }) {
		p, ok := resolve(part, e)
		if mayNameBank(p) || !ok && mayNameBank(part) {
			w.writeArg(arg{s: part, exact: true}, name, e)
		}
	}
}

// bankName is the folder the classifier's callers guard; naming it is what
// makes an unknown command's argument a write target.
const bankName = "memory-bank"

// mayNameBank reports a path one of whose segments is, or is a glob that can
// match, memory-bank (a '*' standing for a run-time expansion matches too).
func mayNameBank(p string) bool {
	if p == "" {
		return false
	}
	for rest := p; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "/")
		if seg == bankName {
			return true
		}
		if seg == "" || seg == "*" || seg == "." || seg == ".." {
			continue // a lone * or an expansion alone says nothing
		}
		if strings.ContainsAny(seg, "*?[") && literalChars(seg) >= 3 {
			// memory-ban?, *-bank, mem*: enough of the name is spelt to mean it;
			// "*-*" or "m*" says nothing
			if ok, err := path.Match(seg, bankName); ok || err != nil {
				return true
			}
		}
	}
	return false
}

// literalChars counts the characters of a glob segment outside '*' and '?'.
func literalChars(seg string) int {
	n := 0
	for i := 0; i < len(seg); i++ {
		if seg[i] != '*' && seg[i] != '?' {
			n++
		}
	}
	return n
}

func setOf(list string) map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(list) {
		m[n] = true
	}
	return m
}
