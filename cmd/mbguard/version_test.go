package main

import (
	"runtime/debug"
	"testing"
)

func TestReadBuildInfo(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := map[string]struct {
		bi   *debug.BuildInfo
		ld   string
		want string
	}{
		"no build info": {nil, "", "mbguard devel"},
		"go install @tag": {&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.2.0"}}, "",
			"mbguard v0.2.0 (go1.26.0)"},
		"go install @commit": {&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.1.1-0.20261126031720-75ceac7a1b2c"}}, "",
			"mbguard v0.1.1-0.20261126031720-75ceac7a1b2c (revision 75ceac7a1b2c, go1.26.0)"},
		"checkout with vcs stamping": {&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20261126031720-75ceac7a1b2c+dirty"},
			Settings: vcs("vcs.revision", "75ceac7a1b2c3d4e5f60718293a4b5c6d7e8f901", "vcs.time", "2026-11-26T03:17:20Z", "vcs.modified", "true")}, "",
			"mbguard v0.0.0-20261126031720-75ceac7a1b2c+dirty (revision 75ceac7a1b2c3d4e5f60718293a4b5c6d7e8f901 (modified), 2026-11-26T03:17:20Z, go1.26.0)"},
		"go install @commit on a tagged line": {&debug.BuildInfo{Main: debug.Module{Version: "v0.2.0-rc.1.0.20261126031720-75ceac7a1b2c+dirty"}}, "",
			"mbguard v0.2.0-rc.1.0.20261126031720-75ceac7a1b2c+dirty (revision 75ceac7a1b2c (modified))"},
		"a tag with dashes is no pseudo-version": {&debug.BuildInfo{Main: debug.Module{Version: "v1.0.0-beta-2"}}, "", "mbguard v1.0.0-beta-2"},
		"checkout without vcs stamping": {&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, "",
			"mbguard devel (go1.26.0)"},
		"ldflags wins": {&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "abc")}, "v9.9.9", "mbguard v9.9.9 (revision abc, go1.26.0)"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := readBuildInfo(tt.bi, tt.ld).String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
