// Command deps links the same heavy dependencies as mbguard (gitleaks, go-git, fsnotify,
// koanf, mvdan sh) and then does what hello does: the second baseline, which pays their
// package initialisation on every start.
package main

import (
	"encoding/json"
	"io"
	"os"

	_ "github.com/fsnotify/fsnotify"
	_ "github.com/go-git/go-git/v5/storage/filesystem" // what lifecycle links: not the root package and its transports
	_ "github.com/knadh/koanf/v2"
	_ "github.com/zricethezav/gitleaks/v8/detect"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {
	b, _ := io.ReadAll(os.Stdin)
	var p map[string]any
	if json.Unmarshal(b, &p) != nil {
		os.Exit(2)
	}
}
