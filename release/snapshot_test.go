//go:build release

package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testhost"
)

// TestSnapshotForTheHost builds the host's release for real and runs the binary out of its
// archive: the version is injected, the checksums verify, the npm packages are stamped.
func TestSnapshotForTheHost(t *testing.T) {
	if runtime.GOOS == "windows" {
		testhost.Missing(t, "a tar.gz archive on this platform", "run it on Linux or macOS")
	}
	sha := testhost.Tool(t, "sha256sum", "apt-get install coreutils")
	root := testhost.ModuleRoot(t)
	t.Chdir(root)
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dist := filepath.Join(t.TempDir(), "dist")
	var log strings.Builder
	if err := run([]string{"--snapshot", "--targets", "host", "--dist", dist}, &log, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	host := target{runtime.GOOS, runtime.GOARCH}
	// The version the build used (HEAD may move while it runs): the one the log names.
	m := regexp.MustCompile(`release: mbguard (v\d+\.\d+\.\d+-snapshot-\S+) for`).FindStringSubmatch(log.String())
	if m == nil {
		t.Fatalf("no snapshot version in the log:\n%s", log.String())
	}
	ver := m[1]

	sums, err := os.ReadFile(filepath.Join(dist, checksumsName(ver)))
	if err != nil {
		t.Fatalf("no checksums file: %v\n%s", err, log.String())
	}
	if !strings.HasSuffix(strings.TrimSpace(string(sums)), "  "+host.archive(ver)) {
		t.Errorf("checksums:\n%s", sums)
	}
	cmd := exec.Command(sha, "-c", checksumsName(ver))
	cmd.Dir = dist
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}

	// Both programs, side by side as the archive unpacks: mbguard-hook hands `version` to the
	// mbguard beside it.
	unpacked := t.TempDir()
	for _, p := range []string{"mbguard", "mbguard-hook"} {
		bin := filepath.Join(unpacked, p)
		extract(t, filepath.Join(dist, host.archive(ver)), p, bin)
		out, err := exec.Command(bin, "version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "mbguard "+ver) {
			t.Fatalf("%s version: %v: %s (want mbguard %s)", p, err, out, ver)
		}
	}

	var main mainPackage
	readJSON(t, filepath.Join(dist, "npm", "mbguard", "package.json"), &main)
	if main.Version != npmVersion(ver) || main.OptionalDependencies[host.npmPackage()] != npmVersion(ver) {
		t.Errorf("npm/mbguard: version %s, optionalDependencies %v", main.Version, main.OptionalDependencies)
	}
	var plat platformPackage
	readJSON(t, filepath.Join(dist, "npm", host.npmPackage(), "package.json"), &plat)
	if plat.Version != npmVersion(ver) || plat.OS[0] != host.npmOS() || plat.CPU[0] != host.npmCPU() {
		t.Errorf("%s: %+v", host.npmPackage(), plat)
	}
	for _, p := range []string{"mbguard", "mbguard-hook"} {
		if fi, err := os.Stat(filepath.Join(dist, "npm", host.npmPackage(), "bin", p)); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("the platform package's %s: %v %v", p, fi, err)
		}
	}
}

func extract(t *testing.T, archive, name, to string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s not in %s: %v", name, archive, err)
		}
		if h.Name != name {
			continue
		}
		out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
