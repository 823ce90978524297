//go:build release

package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

func TestNames(t *testing.T) {
	cases := map[target]struct{ archive, npm string }{
		{"linux", "amd64"}:   {"mbguard_0.1.0_linux_amd64.tar.gz", "mbguard-linux-x64"},
		{"linux", "arm64"}:   {"mbguard_0.1.0_linux_arm64.tar.gz", "mbguard-linux-arm64"},
		{"darwin", "amd64"}:  {"mbguard_0.1.0_darwin_amd64.tar.gz", "mbguard-darwin-x64"},
		{"darwin", "arm64"}:  {"mbguard_0.1.0_darwin_arm64.tar.gz", "mbguard-darwin-arm64"},
		{"windows", "amd64"}: {"mbguard_0.1.0_windows_amd64.zip", "mbguard-win32-x64"},
		{"windows", "arm64"}: {"mbguard_0.1.0_windows_arm64.zip", "mbguard-win32-arm64"},
	}
	if len(cases) != len(targets) {
		t.Fatalf("%d release targets, %d named here: name the new one", len(targets), len(cases))
	}
	for _, tg := range targets {
		want, ok := cases[tg]
		if !ok {
			t.Errorf("target %s has no expected names", tg)
			continue
		}
		if got := tg.archive("v0.1.0"); got != want.archive {
			t.Errorf("%s: archive %s, want %s", tg, got, want.archive)
		}
		if got := tg.npmPackage(); got != want.npm {
			t.Errorf("%s: npm package %s, want %s", tg, got, want.npm)
		}
	}
	if got := checksumsName("v0.1.0"); got != "mbguard_0.1.0_checksums.txt" {
		t.Errorf("checksums file %s", got)
	}
}

func TestParseTargets(t *testing.T) {
	host := target{runtime.GOOS, runtime.GOARCH}
	got, err := parseTargets("host, windows/arm64,host")
	if err != nil {
		t.Fatal(err)
	}
	if want := []target{host, {"windows", "arm64"}}; host.String() != "windows/arm64" && !slices.Equal(got, want) {
		t.Errorf("host,windows/arm64,host = %v, want %v", got, want)
	}
	if all, _ := parseTargets("all"); !slices.Equal(all, targets) {
		t.Errorf("all = %v", all)
	}
	if _, err := parseTargets("plan9/386"); err == nil || !strings.Contains(err.Error(), "linux/amd64") {
		t.Errorf("an unknown target must be refused, naming the valid ones: %v", err)
	}
}

func TestReleaseRefusesSomeTargetsWithoutSnapshot(t *testing.T) {
	err := run([]string{"--targets", "host"}, io.Discard, io.Discard)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--snapshot") {
		t.Fatalf("err = %v, want a usage error naming --snapshot", err)
	}
}

func TestPrepareDistKeepsFilesWithoutClean(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepareDist(dir, false); err == nil || !strings.Contains(err.Error(), "--clean") {
		t.Fatalf("a non-empty dist must be refused, naming --clean: %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatal("the file was removed without --clean")
	}
	if err := prepareDist(dir, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(keep); !os.IsNotExist(err) {
		t.Fatal("--clean left the file")
	}
}

func TestResolveVersion(t *testing.T) {
	repo := testgit.New(t)
	t.Chdir(repo)
	testgit.Write(t, repo, "a", "1\n")
	testgit.Commit(t, repo, "one")
	short := testgit.Git(t, repo, "rev-parse", "--short=7", "HEAD")

	if v, err := resolveVersion(true); err != nil || v != "v0.0.0-snapshot-"+short {
		t.Errorf("snapshot without a tag = %q, %v", v, err)
	}
	if _, err := resolveVersion(false); err == nil || !strings.Contains(err.Error(), "--snapshot") {
		t.Errorf("a release without a tag must be refused, naming --snapshot: %v", err)
	}
	testgit.Git(t, repo, "tag", "v0.1.0")
	if v, err := resolveVersion(false); err != nil || v != "v0.1.0" {
		t.Errorf("release at v0.1.0 = %q, %v", v, err)
	}
	if !semver.MatchString("v0.1.0-snapshot-" + short) {
		t.Errorf("the snapshot version is no semantic version, npm would refuse it")
	}
	testgit.Write(t, repo, "a", "2\n")
	if _, err := resolveVersion(false); err == nil || !strings.Contains(err.Error(), "uncommitted") {
		t.Errorf("a dirty work tree must be refused: %v", err)
	}
	testgit.Commit(t, repo, "two")
	short = testgit.Git(t, repo, "rev-parse", "--short=7", "HEAD")
	if v, err := resolveVersion(true); err != nil || v != "v0.1.0-snapshot-"+short {
		t.Errorf("snapshot after v0.1.0 = %q, %v", v, err)
	}
	testgit.Git(t, repo, "tag", "v0.2")
	if _, err := resolveVersion(false); err == nil || !strings.Contains(err.Error(), "semantic") {
		t.Errorf("a tag that is no semantic version must be refused: %v", err)
	}
}

func testEntries() []entry {
	return []entry{{"mbguard", 0o755, []byte("#!/bin/sh\necho hi\n")}, {"LICENSE", 0o644, []byte("license\n")}}
}

func TestTarGzIsReproducibleAndFlat(t *testing.T) {
	mtime := time.Unix(1767225600, 0)
	a, err := tarGzBytes(testEntries(), mtime)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tarGzBytes(testEntries(), mtime)
	if !bytes.Equal(a, b) {
		t.Fatal("two packs of the same files differ: checksums would change between builds")
	}
	zr, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Name == "mbguard" && h.Mode != 0o755 {
			t.Errorf("the binary's mode is %o, want 755", h.Mode)
		}
		if !h.ModTime.Equal(mtime) {
			t.Errorf("%s: time %v, want %v", h.Name, h.ModTime, mtime)
		}
	}
	if !slices.Equal(names, []string{"mbguard", "LICENSE"}) {
		t.Errorf("entries %v", names)
	}
}

func TestZipKeepsTheBinaryExecutable(t *testing.T) {
	data, err := zipBytes(testEntries(), time.Unix(1767225600, 0))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 2 || zr.File[0].Name != "mbguard" || zr.File[0].Mode().Perm() != 0o755 {
		t.Fatalf("zip entries: %+v", zr.File)
	}
}

func TestChecksumsVerifyWithSha256sum(t *testing.T) {
	sha := testhost.Tool(t, "sha256sum", "apt-get install coreutils")
	dir := t.TempDir()
	for _, n := range []string{"b.zip", "a.tar.gz"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sums, err := checksums(dir, []string{"b.zip", "a.tar.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(strings.SplitN(sums, "\n", 2)[0], "  a.tar.gz") {
		t.Errorf("not sorted by name:\n%s", sums)
	}
	if err := os.WriteFile(filepath.Join(dir, "sums.txt"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sha, "-c", "sums.txt")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
}

// The committed npm package lists one optional dependency per release target, and the
// launcher knows the same platforms: a target added in one place only fails here.
func TestNpmPackageMatchesTargets(t *testing.T) {
	t.Chdir(testhost.ModuleRoot(t))
	p, err := readMainPackage(npmSource)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "mbguard" || p.Bin["mbguard"] != "bin/mbguard.js" {
		t.Errorf("name %q, bin %v", p.Name, p.Bin)
	}
	js, err := os.ReadFile(filepath.Join(npmSource, "bin", "mbguard.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const supported = (\[[^\]]*\]);`).FindSubmatch(js)
	if m == nil {
		t.Fatal("no `const supported = [...]` in bin/mbguard.js")
	}
	var supported []string
	if err := json.Unmarshal(m[1], &supported); err != nil {
		t.Fatalf("supported: %v", err)
	}
	var want []string
	for _, tg := range targets {
		want = append(want, tg.npmOS()+"-"+tg.npmCPU())
	}
	slices.Sort(supported)
	slices.Sort(want)
	if !slices.Equal(supported, want) {
		t.Errorf("bin/mbguard.js supports %v, the release builds %v", supported, want)
	}

	p.OptionalDependencies["mbguard-plan9-386"] = "0.0.0"
	if err := p.check(); err == nil {
		t.Error("an optional dependency without a release target must be refused")
	}
}
