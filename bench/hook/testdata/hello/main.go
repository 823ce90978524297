// Command hello is the benchmark's baseline: a Go program that reads a Claude Code hook
// payload on stdin and parses it, nothing more.
package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	b, _ := io.ReadAll(os.Stdin)
	var p map[string]any
	if json.Unmarshal(b, &p) != nil {
		os.Exit(2)
	}
}
