//go:build release

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// docs are the files every archive carries beside the binary.
var docs = []string{"LICENSE", "README.md"}

// builder writes one release into dist.
type builder struct {
	dist    string
	version string
	mtime   time.Time
	log     io.Writer
}

// prepareDist makes dist an empty folder. It never empties a folder it was not asked to
// (--clean), so a mistyped --dist cannot delete someone's files.
func prepareDist(dist string, clean bool) error {
	if clean {
		if err := os.RemoveAll(dist); err != nil {
			return fmt.Errorf("cleaning %s: %w", dist, err)
		}
	}
	entries, err := os.ReadDir(dist)
	if err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty: remove it or pass --clean", dist)
	}
	return os.MkdirAll(dist, 0o755)
}

// goBuild is the build of one platform's programs into the folder out: static
// (CGO_ENABLED=0), no local paths (-trimpath), no symbol tables (-s -w), the version injected
// into main.version.
func goBuild(t target, version, out string) *exec.Cmd {
	cmd := exec.Command("go", "build", "-trimpath",
		"-ldflags", "-s -w -X main.version="+version,
		"-o", out+string(filepath.Separator), "./cmd/mbguard", "./cmd/mbguard-hook")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.GOOS, "GOARCH="+t.GOARCH)
	return cmd
}

func (b builder) all(ts []target) error {
	fmt.Fprintf(b.log, "release: mbguard %s for %d platform(s) into %s\n", b.version, len(ts), b.dist)
	var archives []string
	for _, t := range ts {
		start := time.Now()
		bin := filepath.Join(b.dist, "build", t.GOOS+"_"+t.GOARCH)
		if err := os.MkdirAll(bin, 0o755); err != nil {
			return err
		}
		cmd := goBuild(t, b.version, bin)
		cmd.Stdout, cmd.Stderr = b.log, b.log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %w (the go build output is above)", t, err)
		}
		name := t.archive(b.version)
		if err := b.archive(t, bin, filepath.Join(b.dist, name)); err != nil {
			return err
		}
		if err := b.npmPlatform(t, bin); err != nil {
			return err
		}
		archives = append(archives, name)
		fmt.Fprintf(b.log, "release: %s built in %.1fs\n", name, time.Since(start).Seconds())
	}
	if err := b.npmMain(); err != nil {
		return err
	}
	sums, err := checksums(b.dist, archives)
	if err != nil {
		return err
	}
	name := checksumsName(b.version)
	if err := fsutil.WriteFileAtomic(filepath.Join(b.dist, name), []byte(sums), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(b.log, "release: %s\n", name)
	return nil
}

// checksums is the checksums file (sha256sum's format, so `sha256sum -c` verifies it) for
// the named files in dir, sorted by name.
func checksums(dir string, names []string) (string, error) {
	names = append([]string(nil), names...)
	sort.Strings(names)
	var sb strings.Builder
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("hashing %s: %w", n, err)
		}
		fmt.Fprintf(&sb, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), n)
	}
	return sb.String(), nil
}
