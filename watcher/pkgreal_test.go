package watcher

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

const realMemory = "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n## Current Focus\n- x\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n"

// TestPackageManagersReallyWrite runs real package-manager commands in scratch repositories
// (offline: local packages, a replace directive) and checks that every file each one really
// wrote is one mbguard predicted through serve --stdio, for both hosts' spelling of the call,
// and that block mode refused it before the bank was read.
func TestPackageManagersReallyWrite(t *testing.T) {
	type tc struct {
		name, tool, how string
		files           map[string]string
		cmd             string
	}
	cases := []tc{
		{"npm install local dir", "npm", "apt-get install npm", map[string]string{
			"package.json":     `{"name":"app","version":"1.0.0"}`,
			"dep/package.json": `{"name":"dep","version":"1.0.0"}`,
		}, "npm install --no-audit --no-fund --offline ./dep"},
		{"npm --prefix", "npm", "apt-get install npm", map[string]string{
			"web/package.json": `{"name":"web","version":"1.0.0"}`,
			"dep/package.json": `{"name":"dep","version":"1.0.0"}`,
		}, "npm --prefix web install --no-audit --no-fund --offline ./dep"},
		{"npm version", "npm", "apt-get install npm", map[string]string{
			"package.json": `{"name":"app","version":"1.0.0"}`,
		}, "npm version --no-git-tag-version 1.1.0"},
		{"go get replaced", "go", "install Go", map[string]string{
			"go.mod":     "module example.com/app\n\ngo 1.21\n\nreplace example.com/dep => ./dep\n",
			"main.go":    "package main\n\nimport _ \"example.com/dep\"\n\nfunc main() {}\n",
			"dep/go.mod": "module example.com/dep\n\ngo 1.21\n",
			"dep/d.go":   "package dep\n",
		}, "go get example.com/dep@v0.0.0-00010101000000-000000000000"},
		{"go mod tidy", "go", "install Go", map[string]string{
			"go.mod":     "module example.com/app\n\ngo 1.21\n\nreplace example.com/dep => ./dep\n",
			"main.go":    "package main\n\nimport _ \"example.com/dep\"\n\nfunc main() {}\n",
			"dep/go.mod": "module example.com/dep\n\ngo 1.21\n",
			"dep/d.go":   "package dep\n",
		}, "go mod tidy"},
		{"cargo add path", "cargo", "install Rust (rustup)", map[string]string{
			"Cargo.toml":     "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"src/main.rs":    "fn main() {}\n",
			"dep/Cargo.toml": "[package]\nname = \"dep\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"dep/src/lib.rs": "",
		}, "cargo add --offline --path dep"},
		{"go -C mod edit", "go", "install Go", map[string]string{
			"tools/go.mod": "module example.com/tools\n\ngo 1.21\n",
		}, "go -C tools mod edit -go=1.22"},
	}
	// rustup finds its toolchains below the real home, which testgit replaces
	rustup := os.Getenv("RUSTUP_HOME")
	if home, err := os.UserHomeDir(); rustup == "" && err == nil {
		rustup = home + "/.rustup"
	}
	// go's caches stay the developer's: a cache below the test's temporary home is still
	// being trimmed when the test removes it
	goEnv := []string{}
	if d, err := os.UserConfigDir(); err == nil {
		goEnv = append(goEnv, "XDG_CONFIG_HOME="+d) // go's telemetry counters, written after it exits
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		if out, err := exec.Command("go", "env", k).Output(); err == nil && len(strings.TrimSpace(string(out))) > 0 {
			goEnv = append(goEnv, k+"="+strings.TrimSpace(string(out)))
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := testhost.Tool(t, c.tool, c.how)
			dir := testgit.New(t)
			testgit.Write(t, dir, "memory-bank/MEMORY.md", realMemory)
			testgit.Write(t, dir, "memory-bank/details/patterns.md", "# Patterns\n")
			for p, s := range c.files {
				testgit.Write(t, dir, p, s)
			}
			testgit.Commit(t, dir, "init")
			r, err := repo.Find(dir)
			if err != nil {
				t.Fatal(err)
			}
			var predicted []string
			for _, host := range []struct{ name, tool string }{{"opencode", "bash"}, {"claude", "Bash"}} {
				d := serveOne(t, r, "block", `"kind":"tool.before","host":"`+host.name+`","session":"s","message":"m1","tool":"`+host.tool+`","args":{"command":`+jsonString(c.cmd)+`}`)
				if d.Verdict != "block" || d.Gate != "read" {
					t.Fatalf("%s, block mode, nothing read: %+v, want a read-gate block", host.name, d)
				}
				predicted = append(predicted, d.Paths...)
			}
			cmd := exec.Command("bash", "-c", c.cmd)
			cmd.Dir = dir
			cmd.Env = append(append(os.Environ(), goEnv...), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", "npm_config_update_notifier=false", "RUSTUP_HOME="+rustup, "CARGO_HOME="+t.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s (%s) failed: %v\n%s", c.cmd, bin, err, out)
			}
			changed := strings.Fields(testgit.Git(t, dir, "status", "--porcelain", "-uall", "--ignored"))
			wrote := 0
			for _, f := range changed {
				if len(f) <= 2 && strings.Trim(f, "MADRCU?!") == "" {
					continue // a status column
				}
				wrote++
				if !covered(f, predicted) {
					t.Errorf("%q wrote %s, which mbguard did not predict (%q)", c.cmd, f, predicted)
				}
			}
			if wrote == 0 {
				t.Fatalf("%q wrote nothing; the test proves nothing", c.cmd)
			}
		})
	}
}

// covered reports a path among the predicted files, or below a predicted directory.
func covered(f string, predicted []string) bool {
	for _, p := range predicted {
		if f == p || strings.HasPrefix(f, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// serveOne sends one event through serve --stdio in the given mode and returns its decision.
func serveOne(t *testing.T, r repo.Repo, mode, event string) struct {
	Verdict, Gate, Message string
	Paths                  []string
} {
	t.Helper()
	cfg, err := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(k string) string {
		if k == "MEMORY_BANK_GUARD_MODE" {
			return mode
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	svc := NewService(r, cfg, ServiceOptions{Resident: true})
	if err := Serve(context.Background(), svc, strings.NewReader(`{"id":1,"op":"event","event":{`+event+`}}`+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Decision *struct {
			Verdict, Gate, Message string
			Paths                  []string
		}
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out.String())), &resp); err != nil || resp.Decision == nil {
		t.Fatalf("bad response %q", out.String())
	}
	return *resp.Decision
}
