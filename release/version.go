//go:build release

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/gitexec"
)

// semver is a release tag: v1.2.3 or v1.2.3-rc.1 (npm needs a valid semantic version, and
// the npm version is the tag without its v).
var semver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// git runs git in the current directory and returns its trimmed stdout.
func git(args ...string) (string, error) {
	out, err := gitexec.Run(context.Background(), "", args...)
	return strings.TrimSpace(string(out)), err
}

// resolveVersion is the version to inject. A release takes it from the v* tag at HEAD and
// refuses a work tree with uncommitted changes (the archives would not match the tag); a
// snapshot is v<last tag, or v0.0.0>-snapshot-<short commit>, a valid semantic version
// that sorts before the next release.
func resolveVersion(snapshot bool) (string, error) {
	if snapshot {
		base, err := git("describe", "--tags", "--abbrev=0", "--match", "v*")
		if err != nil || !semver.MatchString(base) {
			base = "v0.0.0"
		}
		base, _, _ = strings.Cut(base, "-") // v0.1.0-rc.1 → v0.1.0
		commit, err := git("rev-parse", "--short=7", "HEAD")
		if err != nil {
			commit = "unknown"
		}
		return base + "-snapshot-" + commit, nil
	}
	tag, err := git("describe", "--exact-match", "--tags", "--match", "v*", "HEAD")
	if err != nil {
		return "", errors.New("HEAD has no v* tag: tag the release (git tag v0.1.0) or build a snapshot with --snapshot")
	}
	if !semver.MatchString(tag) {
		return "", fmt.Errorf("tag %s is not a semantic version (v1.2.3 or v1.2.3-rc.1): tag HEAD with one", tag)
	}
	dirty, err := git("status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return "", err
	}
	if dirty != "" {
		return "", fmt.Errorf("the work tree has uncommitted changes, so the archives would not match %s: commit or discard them", tag)
	}
	return tag, nil
}

// sourceTime is the time stamped on every file in the archives, so that two builds of one
// commit produce the same bytes and checksums: $SOURCE_DATE_EPOCH, else the commit time.
func sourceTime() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		var err error
		if s, err = git("log", "-1", "--format=%ct"); err != nil {
			return time.Time{}, fmt.Errorf("reading the commit time (set SOURCE_DATE_EPOCH outside a git checkout): %w", err)
		}
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a Unix time in seconds: set it to one", s)
	}
	return time.Unix(sec, 0).UTC(), nil
}
