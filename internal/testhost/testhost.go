// Package testhost finds what end-to-end tests drive for real — the module root, the agent
// hosts installed by .ci/run, external tools — and holds the one rule for a missing piece:
// the test fails when CI is true and skips (saying how to install it) otherwise.
package testhost

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ModuleRoot walks up from the test's working directory to go.mod.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			t.Fatal("no go.mod above the test directory")
		}
		d = p
	}
}

// Missing ends a test whose real component is absent: a failure under CI (where .ci/run
// installs everything, so absence is a defect), a skip elsewhere. how says how to install it.
func Missing(t testing.TB, what, how string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing; .ci/run installs it (%s)", what, how)
	}
	t.Skipf("%s is missing; to run this test: %s", what, how)
}

// HostsDir is where npm installed the real agent hosts: $MBGUARD_HOSTS_DIR, else
// test/hosts/node_modules in the module.
func HostsDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("MBGUARD_HOSTS_DIR"); d != "" {
		return d
	}
	return filepath.Join(ModuleRoot(t), "test", "hosts", "node_modules")
}

// HostBinary returns the first executable among rels under HostsDir, or ends the test with
// Missing naming what.
func HostBinary(t testing.TB, what string, rels ...string) string {
	t.Helper()
	dir := HostsDir(t)
	for _, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	Missing(t, what+" under "+dir, "npm install --prefix test/hosts --no-audit --no-fund")
	return ""
}

// Tool returns the path of an executable on PATH, or ends the test with Missing.
func Tool(t testing.TB, name, how string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, how)
	}
	return p
}

// Short ends a slow test (a real host session) under go test -short: a skip on a person's
// machine, a failure under CI, which must run every test (it never passes -short).
func Short(t testing.TB, what string) {
	t.Helper()
	if !testing.Short() {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s under -short: CI runs every test, without -short", what)
	}
	t.Skipf("%s take seconds; not in -short", what)
}
