package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/outcome"
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

// TestDemoNarrative: the demo says it blocks because it runs in block mode (the default is
// warn); a step it calls re-reading an anchor reads a file the anchor list it showed names; and
// it leaves no state behind (doctor would report its deleted repository for ever after).
func TestDemoNarrative(t *testing.T) {
	testgit.Isolate(t)
	t.Setenv("XDG_STATE_HOME", "")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-C", t.TempDir(), "demo"}, strings.NewReader(""), &out, &errb, os.Getenv); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	text := out.String()
	if !strings.Contains(text, "the default is warn") {
		t.Errorf("the demo does not say the default mode is warn:\n%s", text)
	}
	anchors := map[string]bool{}
	inBlock := false
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "│"))
		switch {
		case strings.Contains(l, "<memory-bank-anchors>"):
			inBlock = true
		case strings.Contains(l, "</memory-bank-anchors>"):
			inBlock = false
		case inBlock && strings.HasPrefix(l, "- memory-bank/"):
			anchors[strings.TrimPrefix(l, "- ")] = true
		}
	}
	if len(anchors) == 0 {
		t.Fatalf("no anchor list in the demo:\n%s", text)
	}
	for _, l := range strings.Split(text, "\n") {
		if !strings.Contains(l, "re-reading an anchor") {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 4 || !anchors[f[3]] {
			t.Errorf("%q re-reads a file the anchor list %v does not name", l, anchors)
		}
	}
	if gone, err := outcome.OrphanState(); err != nil || len(gone) > 0 {
		t.Errorf("the demo left the state of %d deleted repositories (%v)", len(gone), err)
	}
}
