package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mbguard/mbguard/internal/jail"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/watcher"
)

// TestMain lets the test binary act as the mbguard command inside txtar scripts, so the
// scripts drive the real CLI in real git repositories without a separate build step.
func TestMain(m *testing.M) {
	jail.Inner()
	testscript.Main(m, map[string]func(){
		"mbguard-killed": killedMain,
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
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"status": cmdStatus},
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
			// a watcher a script detached must not outlive it, whatever the script did
			env.Defer(func() { stopWatchers(env.T(), env.WorkDir) })
			return nil
		},
	})
}

// cmdStatus is `status N prog args...`: runs prog like exec and requires exit code N, for
// the exit codes the README promises (0 ok, 1 findings/blocked/refused, 2 usage).
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %q is not an exit code", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// stopWatchers stops every watcher still running for a repository under dir.
func stopWatchers(t testscript.T, dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != watcher.PIDFile || filepath.Base(filepath.Dir(p)) != "mbguard" {
			return nil
		}
		r, err := repo.Find(filepath.Dir(filepath.Dir(filepath.Dir(p))))
		if err != nil {
			return nil
		}
		if pid, err := watcher.Stop(r, 10*time.Second); err != nil {
			t.Log(err)
		} else if pid != 0 {
			t.Log("stopped a watcher the script left running (pid " + strconv.Itoa(pid) + ")")
		}
		return nil
	})
}
