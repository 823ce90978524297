package main

import (
	"strings"
	"testing"
)

// TestTransientBinary: hooks that name a binary in npx's cache or in go run's build folder
// stop working when that folder goes; install says so, with the way out. Other paths are quiet.
func TestTransientBinary(t *testing.T) {
	for _, c := range []struct {
		bin, want string
	}{
		{"/home/ana/.npm/_npx/3f2a/node_modules/mbguard-linux-x64/bin/mbguard", "npm install -D mbguard"},
		{"/tmp/go-build1234/b001/exe/mbguard", "go install github.com/mbguard/mbguard/cmd/mbguard@latest"},
		{"/home/ana/proj/node_modules/mbguard-linux-x64/bin/mbguard", ""},
		{"/usr/local/bin/mbguard", ""},
		{"mbguard", ""},
	} {
		got := transientBinary(c.bin)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("transientBinary(%q) = %q; want it to contain %q", c.bin, got, c.want)
		}
	}
}
