//go:build release

package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
)

// target is one platform of the release.
type target struct{ GOOS, GOARCH string }

// targets are the platforms every release ships, in the order they are built and listed.
var targets = []target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

func (t target) String() string { return t.GOOS + "/" + t.GOARCH }

// binary is the executable's name inside the archive and the npm package.
func (t target) binary() string { return t.exe("mbguard") }

// programs are the release's programs for t, built from ./cmd/<name>: mbguard, and
// mbguard-hook, the hook program that answers hosts' hook calls and needs mbguard beside it.
func (t target) programs() []string { return []string{t.exe("mbguard"), t.exe("mbguard-hook")} }

func (t target) exe(name string) string {
	if t.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// archive is the archive's name: mbguard_0.1.0_linux_amd64.tar.gz (goreleaser's default
// naming, which the action's installer and users' scripts rely on).
func (t target) archive(version string) string {
	ext := "tar.gz"
	if t.GOOS == "windows" {
		ext = "zip"
	}
	return fmt.Sprintf("mbguard_%s_%s_%s.%s", strings.TrimPrefix(version, "v"), t.GOOS, t.GOARCH, ext)
}

// checksumsName is the checksums file's name: mbguard_0.1.0_checksums.txt.
func checksumsName(version string) string {
	return fmt.Sprintf("mbguard_%s_checksums.txt", strings.TrimPrefix(version, "v"))
}

// npmOS and npmCPU are Node's names (process.platform, process.arch), which npm matches
// against a package's os and cpu fields.
func (t target) npmOS() string {
	if t.GOOS == "windows" {
		return "win32"
	}
	return t.GOOS
}

func (t target) npmCPU() string {
	if t.GOARCH == "amd64" {
		return "x64"
	}
	return t.GOARCH
}

// npmPackage is the platform package's name: mbguard-linux-x64, mbguard-win32-arm64.
func (t target) npmPackage() string { return "mbguard-" + t.npmOS() + "-" + t.npmCPU() }

// parseTargets reads --targets: "all", or a comma-separated list of GOOS/GOARCH and "host".
func parseTargets(s string) ([]target, error) {
	if s == "all" || s == "" {
		return slices.Clone(targets), nil
	}
	var out []target
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "host" {
			f = runtime.GOOS + "/" + runtime.GOARCH
		}
		i := slices.IndexFunc(targets, func(t target) bool { return t.String() == f })
		if i < 0 {
			return nil, fmt.Errorf("--targets: %q is not a release platform; use host or one of %s", f, targetNames())
		}
		if !slices.Contains(out, targets[i]) {
			out = append(out, targets[i])
		}
	}
	return out, nil
}

func targetNames() string {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}
