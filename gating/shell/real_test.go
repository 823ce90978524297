package shell

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestTablesReallyWrite runs rows of the formatter and package-manager tables with the real
// tools in scratch repositories (offline: local packages, a replace directive) and checks
// that every file each one really wrote is one Classify predicted, that a formatter said to
// write no .md file wrote none, and that the prediction is exact (nothing unknown).
func TestTablesReallyWrite(t *testing.T) {
	// The rows run real npm, go and cargo: seconds each. Under -short they are skipped on a
	// person's machine; with CI set they run in full, -short or not.
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("runs real npm, go and cargo; not in -short (CI runs it)")
	}
	dir := "testdata/projects"
	goMod, crate := projectFiles(t, dir, "gomod"), projectFiles(t, dir, "crate")
	pkgJSON, unformatted := projectFiles(t, dir, "pkgjson"), projectFiles(t, dir, "unformatted")
	cases := []struct {
		name, tool, how string
		files           map[string]string
		cmd             string
	}{
		{"gofmt -w .", "gofmt", "install Go", unformatted, "gofmt -w ."},
		{"gofmt -w src", "gofmt", "install Go", unformatted, "gofmt -w src"},
		{"go fmt ./...", "go", "install Go", unformatted, "go fmt ./..."},
		{"rustfmt file", "rustfmt", "install Rust (rustup)", crate, "rustfmt --edition 2021 src/main.rs"},
		{"cargo fmt", "cargo", "install Rust (rustup)", crate, "cargo fmt"},
		{"npm install dir", "npm", "apt-get install npm", pkgJSON, "npm install --no-audit --no-fund --offline ./dep"},
		{"npm version", "npm", "apt-get install npm", pkgJSON, "npm version --no-git-tag-version 1.2.0"},
		{"npm pkg set", "npm", "apt-get install npm", pkgJSON, "npm pkg set description=x"},
		{"npm init", "npm", "apt-get install npm", map[string]string{"src/x.js": ""}, "npm init -y"},
		{"go get", "go", "install Go", goMod, "go get example.com/dep@v0.0.0-00010101000000-000000000000"},
		{"go mod tidy", "go", "install Go", goMod, "go mod tidy"},
		{"go mod edit", "go", "install Go", goMod, "go mod edit -go=1.22"},
		{"go mod init", "go", "install Go", map[string]string{"src/x.go": "package x\n"}, "go mod init example.com/x"},
		{"go work init", "go", "install Go", goMod, "go work init . ./dep"},
		{"go mod vendor", "go", "install Go", goMod, "go get example.com/dep@v0.0.0-00010101000000-000000000000 && go mod vendor"},
		{"cargo add path", "cargo", "install Rust (rustup)", crate, "cargo add --offline --path dep"},
		{"cargo generate-lockfile", "cargo", "install Rust (rustup)", crate, "cargo generate-lockfile --offline"},
		{"pip install -t", "pip", "install Python 3 with pip", map[string]string{"dist/mydep-0.1-py3-none-any.whl": wheel(t)},
			"pip install -q --no-index --disable-pip-version-check -t vendor dist/mydep-0.1-py3-none-any.whl"},
	}
	rustup := os.Getenv("RUSTUP_HOME")
	if home, err := os.UserHomeDir(); rustup == "" && err == nil {
		rustup = home + "/.rustup"
	}
	goEnv := []string{}
	if d, err := os.UserConfigDir(); err == nil {
		goEnv = append(goEnv, "XDG_CONFIG_HOME="+d)
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		if out, err := exec.Command("go", "env", k).Output(); err == nil && len(strings.TrimSpace(string(out))) > 0 {
			goEnv = append(goEnv, k+"="+strings.TrimSpace(string(out)))
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testhost.Tool(t, c.tool, c.how)
			dir := testgit.New(t)
			testgit.Write(t, dir, "memory-bank/MEMORY.md", "#  Memory\n*  x\n")
			for p, s := range c.files {
				testgit.Write(t, dir, p, s)
			}
			testgit.Commit(t, dir, "init")
			r := Classify(c.cmd, dir)
			if r.Unknown {
				t.Fatalf("%q: an unknown write, want an exact prediction: %+v", c.cmd, r.Writes)
			}
			run := exec.Command("bash", "-c", c.cmd)
			run.Dir = dir
			run.Env = append(append(os.Environ(), goEnv...), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local",
				"npm_config_update_notifier=false", "RUSTUP_HOME="+rustup, "CARGO_HOME="+t.TempDir())
			if out, err := run.CombinedOutput(); err != nil {
				t.Fatalf("%s failed: %v\n%s", c.cmd, err, out)
			}
			wrote := 0
			// modified, deleted and new files, ignored ones included
			for _, rel := range strings.Fields(testgit.Git(t, dir, "ls-files", "-m", "-d", "-o")) {
				f := path.Join(dir, rel)
				wrote++
				a, ok := predicted(f, r.Writes)
				switch {
				case !ok:
					t.Errorf("%q wrote %s, which was not predicted (%+v)", c.cmd, f, r.Writes)
				case a.NoMarkdown && strings.HasSuffix(f, ".md"):
					t.Errorf("%q wrote %s below %s, predicted to hold no .md write", c.cmd, f, a.Path)
				}
			}
			if wrote == 0 {
				t.Fatalf("%q wrote nothing; the case proves nothing", c.cmd)
			}
		})
	}
}

// predicted returns the write that covers f: f itself, or a tree above it.
func predicted(f string, writes []Access) (Access, bool) {
	for _, a := range writes {
		p := strings.TrimSuffix(a.Path, "/")
		if f == p || a.Tree && strings.HasPrefix(f, p+"/") {
			return a, true
		}
	}
	return Access{}, false
}

// wheel returns a minimal pure-Python wheel, so pip installs offline with no build backend.
func wheel(t *testing.T) string {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for name, body := range map[string]string{
		"mydep/__init__.py":            "",
		"mydep-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: mydep\nVersion: 0.1\n",
		"mydep-0.1.dist-info/WHEEL":    "Wheel-Version: 1.0\nGenerator: mbguard-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
		"mydep-0.1.dist-info/RECORD":   "",
	} {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// projectFiles is one of the scratch projects both real-tool table tests start from
// (gating/shell/testdata/projects/<name>.txtar): file path → content.
func projectFiles(t *testing.T, dir, name string) map[string]string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join(dir, name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range a.Files {
		files[f.Name] = string(f.Data)
	}
	return files
}
