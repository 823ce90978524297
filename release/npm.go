//go:build release

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// npmSource is the main npm package as committed: the launcher, its README and its
// package.json, whose version and optionalDependencies' versions are "0.0.0" until a
// release stamps them.
const npmSource = "npm/mbguard"

// mainPackage is npm/mbguard/package.json. Decoding rejects a field it does not know, so a
// field added there cannot be dropped silently on the way into dist/.
type mainPackage struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license"`
	Homepage             string            `json:"homepage"`
	Repository           repository        `json:"repository"`
	Bin                  map[string]string `json:"bin"`
	Files                []string          `json:"files"`
	Engines              map[string]string `json:"engines"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

type repository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// platformPackage is the package.json of mbguard-<os>-<cpu>: npm installs it only where os
// and cpu match, and it has no bin of its own (the main package's launcher runs it).
type platformPackage struct {
	Name            string     `json:"name"`
	Version         string     `json:"version"`
	Description     string     `json:"description"`
	License         string     `json:"license"`
	Homepage        string     `json:"homepage"`
	Repository      repository `json:"repository"`
	OS              []string   `json:"os"`
	CPU             []string   `json:"cpu"`
	PreferUnplugged bool       `json:"preferUnplugged"` // Yarn PnP: unpack it, a binary cannot run from a zip
}

func readMainPackage(dir string) (mainPackage, error) {
	var p mainPackage
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return p, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("%s/package.json: %w; add the field to mainPackage in release/npm.go", dir, err)
	}
	return p, p.check()
}

// check holds the committed package.json to the release's platforms: one optional
// dependency per target, no other.
func (p mainPackage) check() error {
	want := make([]string, len(targets))
	for i, t := range targets {
		want[i] = t.npmPackage()
	}
	slices.Sort(want)
	got := slices.Sorted(maps.Keys(p.OptionalDependencies))
	if !slices.Equal(got, want) {
		return fmt.Errorf("%s/package.json: optionalDependencies are %s, the release's platforms make %s: list exactly those",
			npmSource, strings.Join(got, ", "), strings.Join(want, ", "))
	}
	return nil
}

// npmVersion is the npm version of a release version: the tag without its v.
func npmVersion(version string) string { return strings.TrimPrefix(version, "v") }

func writeJSON(name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(name, append(data, '\n'), 0o644)
}

func copyFile(from, to string, perm os.FileMode) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(to, data, perm)
}

// npmPlatform writes dist/npm/mbguard-<os>-<cpu>/ around t's programs (built into bin).
func (b builder) npmPlatform(t target, bin string) error {
	main, err := readMainPackage(npmSource)
	if err != nil {
		return err
	}
	dir := filepath.Join(b.dist, "npm", t.npmPackage())
	for _, p := range t.programs() {
		if err := copyFile(filepath.Join(bin, p), filepath.Join(dir, "bin", p), 0o755); err != nil {
			return err
		}
	}
	if err := copyFile("LICENSE", filepath.Join(dir, "LICENSE"), 0o644); err != nil {
		return err
	}
	readme := fmt.Sprintf("# %s\n\nThe mbguard binary for %s %s. Install the `mbguard` package instead: it depends on\nthis one and runs the binary (`npx mbguard`).\n", t.npmPackage(), t.npmOS(), t.npmCPU())
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "package.json"), platformPackage{
		Name:            t.npmPackage(),
		Version:         npmVersion(b.version),
		Description:     fmt.Sprintf("The mbguard binary for %s %s (installed by the mbguard package).", t.npmOS(), t.npmCPU()),
		License:         main.License,
		Homepage:        main.Homepage,
		Repository:      main.Repository,
		OS:              []string{t.npmOS()},
		CPU:             []string{t.npmCPU()},
		PreferUnplugged: true,
	})
}

// npmMain writes dist/npm/mbguard/: the committed package with this release's version,
// depending on exactly this version of every platform package.
func (b builder) npmMain() error {
	p, err := readMainPackage(npmSource)
	if err != nil {
		return err
	}
	v := npmVersion(b.version)
	p.Version = v
	for name := range p.OptionalDependencies {
		p.OptionalDependencies[name] = v
	}
	dir := filepath.Join(b.dist, "npm", "mbguard")
	for _, f := range []string{"bin/mbguard.js", "README.md"} {
		perm := os.FileMode(0o644)
		if strings.HasPrefix(f, "bin/") {
			perm = 0o755
		}
		if err := copyFile(filepath.Join(npmSource, f), filepath.Join(dir, f), perm); err != nil {
			return err
		}
	}
	if err := copyFile("LICENSE", filepath.Join(dir, "LICENSE"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(b.log, "release: npm packages in %s\n", filepath.Join(b.dist, "npm"))
	return writeJSON(filepath.Join(dir, "package.json"), p)
}
