package shell

import (
	"reflect"
	"testing"
)

// firstLineCases are issue 20's rules at the classifier: package managers write their
// manifests, formatters write only their languages, reads stay reads. They seed the fuzzer.
var firstLineCases = []tc{
	{"npm install pkg", "npm install lodash", w("/repo/package.json", "/repo/package-lock.json", "/repo/node_modules/?"), nil, "W"},
	{"npm install bare", "npm install", w("/repo/package-lock.json", "/repo/node_modules/?"), nil, "W"},
	{"npm prefix", "npm --prefix web i react", w("/repo/web/package.json", "/repo/web/package-lock.json", "/repo/web/node_modules/?"), nil, "W"},
	{"go get", "go get x@v2", w("/repo/go.mod", "/repo/go.sum"), nil, "W"},
	{"go -C mod tidy", "go -C sub mod tidy", w("/repo/sub/go.mod", "/repo/sub/go.sum"), nil, "W"},
	{"go mod edit json", "go mod edit -json", nil, nil, ""},
	{"cargo manifest path", "cargo add --manifest-path a/Cargo.toml serde", w("/repo/a/Cargo.toml", "/repo/a/Cargo.lock"), nil, "W"},
	{"pip install env", "pip install requests", nil, nil, ""},
	{"pip install target", "pip install -t vendor x", w("/repo/vendor/?"), nil, "W"},
	{"dotnet project", "dotnet add src/A.csproj package X", w("/repo/src/A.csproj", "/repo/src/packages.lock.json", "/repo/src/Directory.Packages.props"), nil, "W"},
	{"gofmt tree", "gofmt -w .", w("/repo/?"), nil, "W"},
	{"gofmt list", "gofmt -l .", nil, w("/repo"), ""},
	{"go fmt", "go fmt ./...", w("/repo/?"), nil, "W"},
	{"black md include", "black --include '\\.md$' .", w("/repo"), nil, "W"},
	{"prettier write", "prettier --write .", w("/repo"), nil, "W"},
	{"pathlib read", `python3 -c 'import pathlib; print(pathlib.Path("memory-bank/MEMORY.md").read_text())'`, nil, w("/repo/memory-bank/MEMORY.md"), "I"},
	{"pathlib write", `python3 -c 'import pathlib; pathlib.Path("memory-bank/a.md").write_text("x")'`, w("/repo/memory-bank/a.md"), nil, "WUI"},
	{"subprocess argv read", `python3 -c "import subprocess; subprocess.run(['git','log','--','memory-bank'])"`, nil, w("/repo/memory-bank"), "I"},
	{"subprocess argv write", `python3 -c "import subprocess; subprocess.run(['rm','-rf','memory-bank'])"`, w("/repo/memory-bank"), nil, "WI"},
	{"node execFileSync read", `node -e "console.log(require('child_process').execFileSync('git', ['log', '--', 'memory-bank']).toString())"`, nil, w("/repo/memory-bank"), "I"},
	{"node execFileSync write", `node -e "require('child_process').execFileSync('rm', ['-rf', 'memory-bank'])"`, w("/repo/memory-bank"), nil, "WI"},
	{"node exec string", `node -e "require('child_process').execSync('git log -- memory-bank')"`, w("/repo/memory-bank/?"), nil, "WIU"},
	{"subprocess aliased", `python3 -c "import subprocess as s; s.run(['ls', 'memory-bank'])"`, w("/repo/memory-bank"), nil, "WI"},
}

func TestFirstLineClassify(t *testing.T) {
	for _, c := range firstLineCases {
		t.Run(c.name, func(t *testing.T) {
			r := Classify(c.cmd, "/repo")
			if got := format(r.Writes); !reflect.DeepEqual(got, c.writes) {
				t.Errorf("writes = %q, want %q", got, c.writes)
			}
			if got := format(r.Reads); !reflect.DeepEqual(got, c.reads) {
				t.Errorf("reads = %q, want %q", got, c.reads)
			}
			if got, want := flags(r), sortFlags(c.flags); got != want {
				t.Errorf("flags = %q, want %q (%+v)", got, want, r)
			}
		})
	}
}

// Variables the caller knows resolve, unless the line may give them a value of its own.
func TestClassifyEnv(t *testing.T) {
	vars := map[string]string{"TMPDIR": "/tmp/x", "HOME": "/home/dev"}
	for _, c := range []struct{ cmd, want string }{
		{`cp a "$TMPDIR/m.md"`, "/tmp/x/m.md"},
		{`cp a ${TMPDIR}/m.md`, "/tmp/x/m.md"},
		{`cp a "$HOME/m.md"`, "/home/dev/m.md"},
		{`TMPDIR=memory-bank; cp a "$TMPDIR/m.md"`, "/repo/memory-bank/m.md"},
		{`read TMPDIR; cp a "$TMPDIR/m.md"`, ""},
		{`eval "TMP""DIR=memory-bank"; cp a "$TMPDIR/m.md"`, ""},
		{`cp a "${TMPDIR:-/tmp}/m.md"`, "/tmp/x/m.md"},
		{`cp a "${NOTSET:-/tmp}/m.md"`, ""},
	} {
		r := ClassifyEnv(c.cmd, "/repo", vars)
		got := format(r.Writes)
		if c.want == "" && (len(got) > 0 || !r.Unknown) {
			t.Errorf("%q: writes %q (unknown %v), want an unknown write", c.cmd, got, r.Unknown)
		}
		if c.want != "" && (len(got) != 1 || got[0] != c.want) {
			t.Errorf("%q: writes %q, want [%q]", c.cmd, got, c.want)
		}
	}
}

// An unset variable expands to nothing; ${NAME:-WORD} then gives WORD.
func TestClassifyEnvUnset(t *testing.T) {
	for cmd, want := range map[string]string{`cp a "$TMPDIR/m.md"`: "/m.md", `cp a "${TMPDIR:-/tmp}/m.md"`: "/tmp/m.md"} {
		r := ClassifyEnv(cmd, "/repo", map[string]string{"TMPDIR": ""})
		if got := format(r.Writes); len(got) != 1 || got[0] != want || r.Unknown {
			t.Errorf("%q: writes %q (unknown %v), want [%q]", cmd, got, r.Unknown, want)
		}
	}
}

func FuzzFirstLine(f *testing.F) {
	for _, c := range firstLineCases {
		f.Add(c.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		r := ClassifyEnv(cmd, "/repo", map[string]string{"TMPDIR": "/tmp/x"})
		if len(r.Writes) > 0 && !r.Write {
			t.Errorf("writes without Write: %+v", r)
		}
		if r.ParseError == "internal error in shell classifier" {
			t.Errorf("classifier panicked on %q", cmd)
		}
	})
}
