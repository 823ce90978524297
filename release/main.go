//go:build release

// Command release builds mbguard's release into dist/: one archive per platform (tar.gz, zip
// for Windows) holding the binary, LICENSE and README.md; a SHA-256 checksums file; and the npm
// packages (npm/mbguard plus one package per platform holding its binary).
//
//	go run -tags release ./release                     at a v* tag: all six platforms, version from the tag
//	go run -tags release ./release --snapshot          anywhere: version v<last tag>-snapshot-<commit>
//	go run -tags release ./release --snapshot --targets host,windows/arm64
//
// It is the single source of the release: the targets, the archive names and the build flags
// live here and nowhere else (no .goreleaser.yaml to drift from it), and CI runs it on every
// push, so what a tag publishes is what CI built. Publishing (GitHub release, npm publish) is
// release/publish.sh, run by the release workflow on the files this writes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a bad flag or argument: exit 2, like mbguard's own usage errors.
type usageError struct{ error }

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	snapshot := fs.Bool("snapshot", false, "build without a v* tag (version v<last tag>-snapshot-<commit>)")
	targetList := fs.String("targets", "all", "platforms to build, comma-separated GOOS/GOARCH or host; all six unless --snapshot")
	dist := fs.String("dist", "dist", "output folder; must be empty or absent unless --clean")
	clean := fs.Bool("clean", false, "remove the output folder first")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q; see go run -tags release ./release -h", fs.Arg(0))}
	}
	ts, err := parseTargets(*targetList)
	if err != nil {
		return usageError{err}
	}
	if !*snapshot && len(ts) != len(targets) {
		return usageError{errors.New("a release builds all six platforms; drop --targets or add --snapshot")}
	}
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("no go.mod here; run it from the module root: go run -tags release ./release --snapshot")
	}
	ver, err := resolveVersion(*snapshot)
	if err != nil {
		return err
	}
	mtime, err := sourceTime()
	if err != nil {
		return err
	}
	if err := prepareDist(*dist, *clean); err != nil {
		return err
	}
	b := builder{dist: *dist, version: ver, mtime: mtime, log: stdout}
	return b.all(ts)
}
