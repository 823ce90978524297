package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/skills"
)

func newInstallCmd(e *env) *command {
	c := &command{name: "install", short: "install agent hooks (--agent claude|opencode), the skill, or the git pre-commit hook (--hooks)",
		flags: newFlags("install", "install (--agent claude|opencode [--global] | --hooks [--husky]) [--uninstall] [--no-skill]")}
	agent := c.flags.String("agent", "", "agent host to install into: claude or opencode")
	global := c.flags.Bool("global", false, "install into the user's global host configuration")
	gitHooks := c.flags.Bool("hooks", false, "install the git pre-commit hook")
	husky := c.flags.Bool("husky", false, "with --hooks: add the check to .husky/pre-commit")
	uninstall := c.flags.Bool("uninstall", false, "remove what install added, keeping everything else")
	noSkill := c.flags.Bool("no-skill", false, "with --agent: do not write the memory-bank skill")
	c.run = func(ctx context.Context, args []string) int {
		if len(args) > 0 || (*agent == "" && !*gitHooks) {
			c.flags.Usage()
			return exitUsage
		}
		r, err := e.repo()
		if err != nil && !*global {
			return e.fail(err)
		}
		home := e.getenv("HOME")
		o := hooks.InstallOptions{Root: r.Root, GitDir: r.GitDir, CommonDir: r.CommonDir, Home: home, ConfigHome: configHome(e.getenv),
			Global: *global, Uninstall: *uninstall, Husky: *husky, Binary: selfCommand()}
		var changes []hooks.Change
		var skillDir string
		switch *agent {
		case "":
		case "claude":
			changes, err = hooks.InstallClaude(o)
			skillDir = filepath.Join(r.Root, ".claude", "skills", "memory-bank")
			if *global {
				skillDir = filepath.Join(home, ".claude", "skills", "memory-bank")
			}
		case "opencode":
			changes, err = hooks.InstallOpenCode(o)
			skillDir = filepath.Join(r.Root, ".opencode", "skills", "memory-bank")
			if *global {
				skillDir = filepath.Join(o.ConfigHome, "opencode", "skills", "memory-bank")
			}
		default:
			fmt.Fprintf(e.stderr, "mbguard: --agent %q: want claude or opencode\n", *agent)
			return exitUsage
		}
		if err != nil {
			return e.fail(fmt.Errorf("installing for %s: %w", *agent, err))
		}
		if *gitHooks {
			hc, err := hooks.InstallGitHook(o)
			if err != nil {
				return e.fail(fmt.Errorf("installing the git hook: %w", err))
			}
			changes = append(changes, hc...)
		}
		for _, ch := range changes {
			printChange(e, ch)
		}
		if skillDir != "" && !*noSkill {
			lines, err := skills.Install(skillDir, *uninstall)
			if err != nil {
				return e.fail(fmt.Errorf("installing the skill: %w", err))
			}
			for _, l := range lines {
				// show project files relative to the root, like the other install lines
				if r.Root != "" {
					l = strings.ReplaceAll(l, r.Root+string(filepath.Separator), "")
				}
				fmt.Fprintln(e.stdout, l)
			}
		}
		return exitOK
	}
	return c
}

func printChange(e *env, ch hooks.Change) {
	if ch.Note != "" {
		fmt.Fprintf(e.stdout, "%-10s %s (%s)\n", ch.Action, ch.Path, ch.Note)
		return
	}
	fmt.Fprintf(e.stdout, "%-10s %s\n", ch.Action, ch.Path)
}

// configHome is the user's configuration folder: $XDG_CONFIG_HOME, else ~/.config.
func configHome(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	return filepath.Join(getenv("HOME"), ".config")
}

// selfCommand is how installed hooks call mbguard: by name when the mbguard on PATH is this
// binary (so upgrades of the binary apply), else by absolute path.
func selfCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "mbguard"
	}
	self, _ = filepath.EvalSymlinks(self)
	if p, err := exec.LookPath("mbguard"); err == nil {
		if rp, _ := filepath.EvalSymlinks(p); rp == self {
			return "mbguard"
		}
	}
	if errors.Is(err, exec.ErrNotFound) || err == nil {
		return self
	}
	return self
}
