package examples

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// demo is the project `mbguard demo` replays: a scripted Claude Code session and the memory
// bank it works on. Explicit patterns: a directory pattern skips dot and underscore files.
//
//go:embed demo/session.jsonl demo/queue/retry.go demo/memory-bank
var demo embed.FS

// demoGoMod is the demo project's go.mod. It is written, not embedded: a go.mod in
// examples/demo would make it a module of its own, which go:embed cannot reach.
const demoGoMod = "module example.com/payments\n\ngo 1.22\n"

// WriteDemo writes the demo project (session.jsonl, go.mod, queue/, memory-bank/) into dir.
func WriteDemo(dir string) error {
	err := fs.WalkDir(demo, "demo", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("demo", filepath.FromSlash(p))
		if err != nil {
			return err
		}
		target := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := demo.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("writing the demo project: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "go.mod"), []byte(demoGoMod), 0o644)
}
