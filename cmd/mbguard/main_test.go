package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mbguard/mbguard/internal/jail"
)

// TestMain lets the test binary act as the mbguard command inside txtar scripts, so the
// scripts drive the real CLI in real git repositories without a separate build step.
func TestMain(m *testing.M) {
	jail.Inner()
	testscript.Main(m, map[string]func(){
		"mbguard": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
		},
	})
}

// TestScripts runs testdata/script/*.txtar; one behaviour per script, named <command>-<case>.
// Each script runs in a fresh $WORK with an isolated git configuration.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			gitcfg := filepath.Join(home, ".gitconfig")
			if err := os.WriteFile(gitcfg, []byte("[user]\n\tname = mbguard test\n\temail = test@example.invalid\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"), 0o644); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_CONFIG_GLOBAL", gitcfg)
			env.Setenv("NO_COLOR", "1")
			return nil
		},
	})
}
