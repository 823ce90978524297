package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise read from the module.
var version = ""

// buildInfo is what `mbguard version` prints: the module version and the VCS revision it was
// built from, as far as the build recorded them.
type buildInfo struct {
	Version  string // v1.2.3, a pseudo-version, or "devel"
	Revision string // the commit, full or as the pseudo-version abbreviates it
	Time     string // the commit time (vcs.time)
	Modified bool   // the work tree had uncommitted changes
	Go       string // the toolchain
}

// pseudoRev returns the commit at the end of a pseudo-version
// (v0.0.0-20260101120000-abcdef123456, maybe +dirty), and whether it is dirty.
func pseudoRev(v string) (rev string, dirty bool) {
	v, dirty = strings.CutSuffix(v, "+dirty")
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return "", false
	}
	rev, ts := parts[len(parts)-1], parts[len(parts)-2]
	if i := strings.LastIndexByte(ts, '.'); i >= 0 {
		ts = ts[i+1:] // v0.1.1-0.20261126031720-…
	}
	if len(rev) != 12 || len(ts) != 14 || strings.Trim(rev, "0123456789abcdef") != "" || strings.Trim(ts, "0123456789") != "" {
		return "", false
	}
	return rev, dirty
}

// readBuildInfo reads bi (runtime/debug.ReadBuildInfo's answer; nil when the binary has none).
// `go install …@vX` records vX and no VCS settings; `go build` in a checkout records a
// pseudo-version (Go ≥ 1.24) and vcs.revision; -buildvcs=false records neither.
func readBuildInfo(bi *debug.BuildInfo, ldVersion string) buildInfo {
	out := buildInfo{Version: "devel"}
	if bi != nil {
		out.Go = bi.GoVersion
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			out.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				out.Revision = s.Value
			case "vcs.time":
				out.Time = s.Value
			case "vcs.modified":
				out.Modified = s.Value == "true"
			}
		}
		if out.Revision == "" {
			if rev, dirty := pseudoRev(out.Version); rev != "" {
				out.Revision = rev
				out.Modified = out.Modified || dirty
			}
		}
	}
	if ldVersion != "" {
		out.Version = ldVersion
	}
	return out
}

// String is the one line `mbguard version` prints.
func (b buildInfo) String() string {
	var extra []string
	if b.Revision != "" {
		r := "revision " + b.Revision
		if b.Modified {
			r += " (modified)"
		}
		extra = append(extra, r)
	}
	if b.Time != "" {
		extra = append(extra, b.Time)
	}
	if b.Go != "" {
		extra = append(extra, b.Go)
	}
	if len(extra) == 0 {
		return "mbguard " + b.Version
	}
	return "mbguard " + b.Version + " (" + strings.Join(extra, ", ") + ")"
}

func currentBuild() buildInfo {
	bi, _ := debug.ReadBuildInfo()
	return readBuildInfo(bi, version)
}

// versionString is the bare version, for SARIF's tool.driver.version.
func versionString() string { return currentBuild().Version }

func newVersionCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "version", Short: "print the version and the commit it was built from", Args: noArgs}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		fmt.Fprintln(e.stdout, currentBuild())
		return exitOK
	})
	return c
}
