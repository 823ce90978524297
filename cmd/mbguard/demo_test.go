package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// TestDemoBundled runs the README's first command on the bundled example: every step must
// give the verdict its _expect names, and the checkout must not change.
func TestDemoBundled(t *testing.T) {
	testgit.Isolate(t)
	before, err := os.ReadFile("../../examples/demo/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-C", "../../examples/demo", "demo"}, strings.NewReader(""), &out, &errb, os.Getenv)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"BLOCK  a high-risk write (go.mod) before reading", "recovery armed", "recovery cleared", "<memory-bank-anchors>", "[mbguard bank]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat("../../examples/demo/.git"); !os.IsNotExist(err) {
		t.Errorf("the demo created examples/demo/.git in the checkout")
	}
	after, _ := os.ReadFile("../../examples/demo/session.jsonl")
	if !bytes.Equal(before, after) {
		t.Errorf("the demo changed session.jsonl")
	}
}
