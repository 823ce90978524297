package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/skills"
)

func newInstallCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "install (--agent " + strings.Join(installAgents, "|") + " [--global] | --hooks [--husky]) [--uninstall] [--no-skill]",
		Short: "install agent hooks (--agent " + strings.Join(installAgents, "|") + "), the skill, or the git pre-commit hook (--hooks)",
		Args:  noArgs,
	}
	agent := c.Flags().String("agent", "", "the agent `host` to install into: "+strings.Join(installAgents, " or "))
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
		if *sandbox && host.Get(*agent).Kernel != host.Sandbox {
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
			Global: *global, Uninstall: *uninstall, Husky: *husky, Binary: selfCommand(), ProjectBin: projectBin(r.Root)}
		o.CodexHome, o.CopilotHome = e.getenv("CODEX_HOME"), e.getenv("COPILOT_HOME")
		var changes []hooks.Change
		var skillDir string
		if *agent != "" {
			spec, ok := hooks.LookupHost(*agent)
			if !ok {
				return e.usage(c, "--agent %q: want %s", *agent, strings.Join(installAgents, " or "))
			}
			o.ProjectDirEnv = spec.ProjectDirEnv
			switch {
			case spec.Kernel == host.Sandbox && *uninstall:
				changes, err = uninstallClaude(o)
			case spec.Kernel == host.Sandbox:
				o.ClaudeVersion = claudeVersion(ctx)
				changes, err = installClaude(o, *sandbox) // the kernel line rides on Claude Code's sandbox
				if note := hooks.ClaudeOnFailureNote(o.ClaudeVersion); note != "" && err == nil {
					fmt.Fprintln(e.stderr, "mbguard: "+note+". Next: update Claude Code, then run mbguard install --agent claude again.")
				}
			default:
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
		if w := transientBinary(o.Binary); w != "" && o.ProjectBin == "" && !*uninstall && len(changes) > 0 {
			fmt.Fprintln(e.stderr, w)
		}
		if *agent != "" && !*uninstall { // the first hook call must not build the known-good store
			e.prime(r)
		}
		if *sandbox && !*uninstall {
			fmt.Fprintln(e.stdout, hooks.ClaudeSandboxEffects)
		}
		if *agent != "" && !*uninstall && !*global {
			if fi, err := os.Stat(r.BankDir()); err != nil || !fi.IsDir() {
				// doctor FAILs this; say it where the person is looking
				fmt.Fprintln(e.stdout, "next: mbguard init (there is no memory-bank/ here yet, so nothing is gated)")
			}
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

// uninstallClaude removes the sandbox's deny rule, then the hooks: the hooks' step is the one
// that gives the person's own bytes back when mbguard's entries were the only change, so it
// comes last. The lines keep install's order.
func uninstallClaude(o hooks.InstallOptions) ([]hooks.Change, error) {
	sc, err := hooks.InstallClaudeSandbox(o, false)
	if err != nil {
		return nil, err
	}
	changes, err := hooks.InstallClaude(o)
	return append(changes, sc...), err
}

// claudeVersionOnPath is claudeVersion without a caller's context.
func claudeVersionOnPath() string { return claudeVersion(context.Background()) }

// claudeVersion is what `claude --version` prints ("" when there is no claude on PATH or it
// does not answer within five seconds).
func claudeVersion(ctx context.Context) string {
	if _, err := exec.LookPath("claude"); err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "claude", "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
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
		// npx puts the project's node_modules/.bin on PATH for this run only: the hosts do
		// not have it
		rp, _ := filepath.EvalSymlinks(p)
		npx := filepath.Base(filepath.Dir(p)) == ".bin" && filepath.Base(filepath.Dir(filepath.Dir(p))) == "node_modules"
		if rp == self || rp != "" && !npx && rp == npmLauncher(self) {
			return "mbguard"
		}
	}
	return self
}

// npmLauncher is the mbguard.js launcher npm installed beside self, when self is the binary
// of an npm platform package (<dir>/node_modules/mbguard-<os>-<arch>/bin/mbguard): the
// launcher runs exactly this binary. "" otherwise.
func npmLauncher(self string) string {
	pkg := filepath.Dir(filepath.Dir(self))
	nm := filepath.Dir(pkg)
	if filepath.Base(filepath.Dir(self)) != "bin" || filepath.Base(nm) != "node_modules" || !strings.HasPrefix(filepath.Base(pkg), "mbguard-") {
		return ""
	}
	js := filepath.Join(nm, "mbguard", "bin", "mbguard.js")
	if rp, err := filepath.EvalSymlinks(js); err == nil {
		return rp
	}
	return ""
}

// projectBin is the launcher npm linked into the project's node_modules/.bin when this binary
// came with the project's npm install (npm install -D mbguard), relative to root and
// slash-separated; "" for any other binary. Committed files call it through the project, so
// each clone runs its own install.
func projectBin(root string) string {
	self, err := os.Executable()
	if err != nil || root == "" {
		return ""
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return ""
	}
	launcher := npmLauncher(self)
	if launcher == "" {
		return ""
	}
	nm := filepath.Dir(filepath.Dir(filepath.Dir(launcher)))
	if rp, err := filepath.EvalSymlinks(filepath.Join(nm, ".bin", "mbguard")); err != nil || rp != launcher {
		return ""
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, filepath.Join(nm, ".bin", "mbguard"))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "" // an install outside the project (npm -g, a parent's node_modules)
	}
	return filepath.ToSlash(rel)
}
