package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestHelpFootersAndPlaceholders: every command's --help ends with its own exit codes, stated
// once (jail's are the command's own, hook's 2 blocks); completion's subcommands are worded like
// the rest (lower case, no cobra default text); no flag's placeholder is its Go type.
func TestHelpFootersAndPlaceholders(t *testing.T) {
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: os.Getenv, dir: "."}
	root := newRootCmd(e)
	root.InitDefaultHelpCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		path := strings.Fields(c.CommandPath())[1:]
		var out bytes.Buffer
		code := run(context.Background(), append(path, "--help"), strings.NewReader(""), &out, &out, os.Getenv)
		help := out.String()
		if code != exitOK {
			t.Errorf("%s --help: exit %d", c.CommandPath(), code)
		}
		if n := strings.Count(help, "Exit codes:"); n != 1 {
			t.Errorf("%s --help states exit codes %d times:\n%s", c.CommandPath(), n, help)
		}
		switch c.Name() {
		case "jail":
			if !strings.Contains(help, "Exit codes: the command's own; 2 usage error; 126") {
				t.Errorf("jail --help footer:\n%s", help)
			}
		case "hook":
			if !strings.Contains(help, "2 blocks the call") {
				t.Errorf("hook --help footer:\n%s", help)
			}
		}
		if r := []rune(c.Short); len(r) > 0 && unicode.IsUpper(r[0]) {
			t.Errorf("%s: Short %q starts with a capital, unlike the others", c.CommandPath(), c.Short)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			switch name {
			case "string", "int", "strings", "stringArray", "duration", "uint", "float64":
				t.Errorf("%s --%s: the placeholder is the type %q; name what goes there (`name` in the usage)", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	for _, c := range root.Commands() {
		walk(c)
	}
}
