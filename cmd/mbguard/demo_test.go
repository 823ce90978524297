package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// TestDemoBundled runs the README's first command from a directory that is not the checkout:
// the demo project is built in, every step must give the verdict its _expect names, and the
// directory it ran in must not change.
func TestDemoBundled(t *testing.T) {
	testgit.Isolate(t)
	for name, args := range map[string][]string{
		"anywhere":         {"-C", t.TempDir(), "demo"},
		"README's command": {"-C", "../../examples/demo", "demo"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := args[1]
			before, _ := os.ReadDir(dir)
			var out, errb bytes.Buffer
			code := run(context.Background(), args, strings.NewReader(""), &out, &errb, os.Getenv)
			if code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
			}
			for _, want := range []string{"the bundled demo project", "BLOCK  a high-risk write (go.mod) before reading", "recovery armed", "recovery cleared", "<memory-bank-anchors>", "[mbguard bank]", "20 steps replayed"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("demo output lacks %q:\n%s", want, out.String())
				}
			}
			after, _ := os.ReadDir(dir)
			if len(before) != len(after) {
				t.Errorf("the demo changed %s: %d entries before, %d after", dir, len(before), len(after))
			}
		})
	}
}
