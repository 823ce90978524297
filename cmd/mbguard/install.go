package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/skills"
)

func newInstallCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "install (--agent " + strings.Join(installAgents, "|") + " [--global] | --hooks [--husky]) [--uninstall] [--no-skill]",
		Short: "install agent hooks (--agent " + strings.Join(installAgents, "|") + "), the skill, or the git pre-commit hook (--hooks)",
		Args:  noArgs,
	}
	agent := c.Flags().String("agent", "", "agent host to install into: "+strings.Join(installAgents, " or "))
	global := c.Flags().Bool("global", false, "with --agent: install into the user's global host configuration")
	gitHooks := c.Flags().Bool("hooks", false, "install the git pre-commit hook")
	husky := c.Flags().Bool("husky", false, "with --hooks: add the check to .husky/pre-commit")
	uninstall := c.Flags().Bool("uninstall", false, "remove what install added, keeping everything else")
	noSkill := c.Flags().Bool("no-skill", false, "with --agent: do not write the memory-bank skill")
	sandbox := c.Flags().Bool("sandbox", false, "with --agent claude: turn Claude Code's sandbox on with memory-bank/ read-only for shell commands (the kernel line)")
	c.RegisterFlagCompletionFunc("agent", cobra.FixedCompletions(installAgents, cobra.ShellCompDirectiveNoFileComp))
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if *agent == "" && !*gitHooks {
			return e.usage(c, "install needs --agent %s or --hooks", strings.Join(installAgents, "|"))
		}
		if *sandbox && *agent != "claude" {
			return e.usage(c, "--sandbox applies to --agent claude; other hosts get the kernel line from their hook (see mbguard doctor)")
		}
		if code, stop := e.refuseUnderAgent("install --uninstall", *uninstall); stop {
			return code
		}
		if *gitHooks && *global {
			// the git hook lives in one repository; --global used to be ignored here, silently
			return e.usage(c, "--global applies to --agent only: the git hook is installed per repository (drop --global)")
		}
		r, err := e.repo()
		if err != nil && !*global {
			return e.fail(err)
		}
		home := e.getenv("HOME")
		o := hooks.InstallOptions{Root: r.Root, GitDir: r.GitDir, CommonDir: r.CommonDir, Home: home, ConfigHome: configHome(e.getenv),
			Global: *global, Uninstall: *uninstall, Husky: *husky, Binary: selfCommand()}
		o.CodexHome, o.CopilotHome = e.getenv("CODEX_HOME"), e.getenv("COPILOT_HOME")
		var changes []hooks.Change
		var skillDir string
		if *agent != "" {
			spec, ok := hooks.LookupHost(*agent)
			if !ok {
				return e.usage(c, "--agent %q: want %s", *agent, strings.Join(installAgents, " or "))
			}
			if spec.Name == "claude" {
				changes, err = installClaude(o, *sandbox) // the kernel line rides on Claude Code's sandbox
			} else {
				changes, err = spec.Install(o)
			}
			if spec.SkillDir != nil {
				skillDir = spec.SkillDir(o)
			}
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
		if w := transientBinary(o.Binary); w != "" && !*uninstall && len(changes) > 0 {
			fmt.Fprintln(e.stderr, w)
		}
		if *agent != "" && !*uninstall { // the first hook call must not build the known-good store
			e.prime(r)
		}
		if *sandbox && !*uninstall {
			fmt.Fprintln(e.stdout, hooks.ClaudeSandboxEffects)
		}
		if step := hooks.TrustStep(*agent, *global); step != "" && !*uninstall {
			fmt.Fprintf(e.stdout, "next: %s\n", step)
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
		if *uninstall {
			// the folders install created go too, when nothing else is left in them
			stops := []string{o.Root, o.Home, o.ConfigHome, o.CodexHome, o.CopilotHome}
			for _, ch := range changes {
				if ch.Action == "removed" {
					p := ch.Path
					if !filepath.IsAbs(p) {
						p = filepath.Join(o.Root, p)
					}
					removeEmptyUp(filepath.Dir(p), stops)
				}
			}
			if skillDir != "" && !*noSkill {
				removeEmptyUp(skillDir, stops)
			}
		}
		return exitOK
	})
	return c
}

// installAgents are the hosts install --agent knows, for help, messages and completion.
var installAgents = hooks.HostNames(false)

func printChange(e *env, ch hooks.Change) { fmt.Fprintln(e.stdout, changeLine(ch)) }

// changeLine is one line of what install or uninstall did.
func changeLine(ch hooks.Change) string {
	if ch.Note != "" {
		return fmt.Sprintf("%-10s %s (%s)", ch.Action, ch.Path, ch.Note)
	}
	return fmt.Sprintf("%-10s %s", ch.Action, ch.Path)
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
// transientBinary warns when the hooks name a binary in a cache that goes away: npx's
// (~/.npm/_npx/…) or go run's build folder. "" for any other.
func transientBinary(bin string) string {
	slash := filepath.ToSlash(bin)
	switch {
	case strings.Contains(slash, "/_npx/"):
		return "mbguard: the hooks name " + bin + ", inside npx's cache, which npm may clear: install mbguard into the project (npm install -D mbguard) or onto your PATH, then run this install again"
	case strings.Contains(slash, "/go-build") && strings.Contains(slash, "/exe/"):
		return "mbguard: the hooks name " + bin + ", a go run build that is deleted when it exits: go install github.com/mbguard/mbguard/cmd/mbguard@latest, then run this install again"
	}
	return ""
}

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
