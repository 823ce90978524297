//go:build release

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testhost"
)

// publish.sh refuses, before uploading anything, what must not go out as a release.
func TestPublishRefusesAnIncompleteRelease(t *testing.T) {
	testhost.Tool(t, "sha256sum", "apt-get install coreutils")
	script := filepath.Join(testhost.ModuleRoot(t), "release", "publish.sh")
	fakeDist := func(t *testing.T, version string, n int, corrupt bool) string {
		dist := t.TempDir()
		var names []string
		for _, tg := range targets[:n] {
			name := tg.archive(version)
			if err := os.WriteFile(filepath.Join(dist, name), []byte(name), 0o644); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
		sums, err := checksums(dist, names)
		if err != nil {
			t.Fatal(err)
		}
		if corrupt {
			os.WriteFile(filepath.Join(dist, names[0]), []byte("other bytes"), 0o644)
		}
		if err := os.WriteFile(filepath.Join(dist, checksumsName(version)), []byte(sums), 0o644); err != nil {
			t.Fatal(err)
		}
		return dist
	}
	for name, c := range map[string]struct {
		dist func(t *testing.T) string
		want string
	}{
		"nothing built":   {func(t *testing.T) string { return t.TempDir() }, "no checksums file"},
		"snapshot":        {func(t *testing.T) string { return fakeDist(t, "v0.0.0-snapshot-abc1234", 6, false) }, "is a snapshot"},
		"some platforms":  {func(t *testing.T) string { return fakeDist(t, "v9.9.9", 2, false) }, "lists 2 archives, a release has 6"},
		"damaged archive": {func(t *testing.T) string { return fakeDist(t, "v9.9.9", 6, true) }, "no longer matches"},
		"no changelog":    {func(t *testing.T) string { return fakeDist(t, "v9.9.9", 6, false) }, `no "## [9.9.9]" section`},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command("bash", script, "--dry-run", c.dist(t)).CombinedOutput()
			if err == nil || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "would run") {
				t.Fatalf("%v: want a refusal naming %q before any upload:\n%s", err, c.want, out)
			}
		})
	}
}
