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
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/spawn"
	"github.com/mbguard/mbguard/skills"
)

// installFlags are install's flags.
type installFlags struct {
	agent                                                string
	global, gitHooks, husky, uninstall, noSkill, sandbox bool
}

func newInstallCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "install (--agent " + strings.Join(installAgents, "|") + " [--global] | --hooks [--husky]) [--uninstall] [--no-skill]",
		Short: "install agent hooks (--agent " + strings.Join(installAgents, "|") + "), the skill, or the git pre-commit hook (--hooks)",
		Args:  noArgs,
	}
	f := &installFlags{}
	c.Flags().StringVar(&f.agent, "agent", "", "the agent `host` to install into: "+strings.Join(installAgents, " or "))
	c.Flags().BoolVar(&f.global, "global", false, "with --agent: install into the user's global host configuration")
	c.Flags().BoolVar(&f.gitHooks, "hooks", false, "install the git pre-commit hook")
	c.Flags().BoolVar(&f.husky, "husky", false, "with --hooks: add the check to .husky/pre-commit")
	c.Flags().BoolVar(&f.uninstall, "uninstall", false, "remove what install added, keeping everything else")
	c.Flags().BoolVar(&f.noSkill, "no-skill", false, "with --agent: do not write the memory-bank skill")
	c.Flags().BoolVar(&f.sandbox, "sandbox", false, "with --agent claude: turn Claude Code's sandbox on with memory-bank/ read-only for shell commands (the kernel line)")
	c.RegisterFlagCompletionFunc("agent", cobra.FixedCompletions(installAgents, cobra.ShellCompDirectiveNoFileComp))
	c.RunE = e.runs(func(ctx context.Context, args []string) int { return e.install(ctx, c, f) })
	return c
}

// install is the install command after its flags, in steps: refuse flags that do not go
// together, install the agent's hooks and the git hook, tell what changed and the next step,
// write the skill, and after an uninstall remove the folders install created, when empty.
func (e *env) install(ctx context.Context, c *cobra.Command, f *installFlags) int {
	if code, stop := e.refuseInstallFlags(c, f); stop {
		return code
	}
	r, err := e.repo()
	if err != nil && !f.global {
		return e.fail(err)
	}
	o := hooks.InstallOptions{Root: r.Root, GitDir: r.GitDir, CommonDir: r.CommonDir, Home: e.getenv("HOME"), ConfigHome: configHome(e.getenv),
		Global: f.global, Uninstall: f.uninstall, Husky: f.husky, Binary: selfCommand(), HookBinary: hookSelfCommand(), ProjectBin: projectBin(r.Root)}
	o.CodexHome, o.CopilotHome = e.getenv("CODEX_HOME"), e.getenv("COPILOT_HOME")
	o.HTTPPort = e.httpPort(r, f)
	changes, skillDir, code, stop := e.installAgent(ctx, c, f, &o)
	if stop {
		return code
	}
	if f.gitHooks {
		hc, err := hooks.InstallGitHook(o)
		if err != nil {
			return e.fail(fmt.Errorf("installing the git hook: %w", err))
		}
		changes = append(changes, hc...)
	}
	e.tellInstalled(f, o, r, changes)
	if skillDir == "" || f.noSkill {
		skillDir = ""
	} else if err := e.installSkill(skillDir, f.uninstall, r.Root); err != nil {
		return e.fail(err)
	}
	if f.uninstall {
		removeInstalledDirs(o, changes, skillDir)
	}
	return exitOK
}

// refuseInstallFlags answers flags that do not go together, and an agent's own uninstall.
func (e *env) refuseInstallFlags(c *cobra.Command, f *installFlags) (int, bool) {
	switch {
	case f.agent == "" && !f.gitHooks:
		return e.usage(c, "install needs --agent %s or --hooks", strings.Join(installAgents, "|")), true
	case f.sandbox && host.Get(f.agent).Kernel != host.Sandbox:
		return e.usage(c, "--sandbox applies to --agent claude; other hosts get the kernel line from their hook (see mbguard doctor)"), true
	}
	if code, stop := e.refuseUnderAgent("install --uninstall", f.uninstall); stop {
		return code, true
	}
	if f.gitHooks && f.global {
		// the git hook lives in one repository; --global used to be ignored here, silently
		return e.usage(c, "--global applies to --agent only: the git hook is installed per repository (drop --global)"), true
	}
	return 0, false
}

// installAgent installs (or removes) the hooks of the host --agent names, and says where its
// skill goes; stop with code when it could not.
func (e *env) installAgent(ctx context.Context, c *cobra.Command, f *installFlags, o *hooks.InstallOptions) (changes []hooks.Change, skillDir string, code int, stop bool) {
	if f.agent == "" {
		return nil, "", 0, false
	}
	spec, ok := hooks.LookupHost(f.agent)
	if !ok {
		return nil, "", e.usage(c, "--agent %q: want %s", f.agent, strings.Join(installAgents, " or ")), true
	}
	o.ProjectDirEnv = spec.ProjectDirEnv
	sandboxHost := spec.Kernel == host.Sandbox && !o.Uninstall
	if sandboxHost {
		o.ClaudeVersion = claudeVersion(ctx) // onFailure is written only for a Claude Code that reads it
	}
	if note := hooks.ClaudeHTTPNote(o.ClaudeVersion); o.HTTPPort > 0 && note != "" {
		fmt.Fprintln(e.stderr, "mbguard: "+note+". Next: update Claude Code, then run mbguard install --agent claude again.")
		o.HTTPPort = 0
	}
	changes, err := installHost(spec, *o, f.sandbox)
	if err != nil {
		return nil, "", e.fail(fmt.Errorf("installing for %s: %w", f.agent, err)), true
	}
	if note := hooks.ClaudeOnFailureNote(o.ClaudeVersion); sandboxHost && note != "" {
		fmt.Fprintln(e.stderr, "mbguard: "+note+". Next: update Claude Code, then run mbguard install --agent claude again.")
	}
	if spec.SkillDir != nil {
		skillDir = spec.SkillDir(*o)
	}
	return changes, skillDir, 0, false
}

// installHost installs (with o.Uninstall removes) one host's hooks. A host whose kernel line
// rides on its own sandbox (host.Sandbox: Claude Code) gets the sandbox's deny rule with them;
// sandbox also turns the sandbox on.
func installHost(spec hooks.HostSpec, o hooks.InstallOptions, sandbox bool) ([]hooks.Change, error) {
	switch {
	case spec.Kernel == host.Sandbox && o.Uninstall:
		return uninstallClaude(o)
	case spec.Kernel == host.Sandbox:
		return installClaude(o, sandbox)
	}
	return spec.Install(o)
}

// tellInstalled prints what install changed and, after an install, what follows from it: a
// binary that will not last, the sandbox's effects, a missing bank, the host's trust step.
func (e *env) tellInstalled(f *installFlags, o hooks.InstallOptions, r repo.Repo, changes []hooks.Change) {
	for _, ch := range changes {
		printChange(e, ch)
	}
	if f.uninstall {
		return
	}
	if w := transientBinary(o.Binary); w != "" && o.ProjectBin == "" && len(changes) > 0 {
		fmt.Fprintln(e.stderr, w)
	}
	if f.agent != "" { // the first hook call must not build the known-good store
		e.prime(r)
	}
	if f.sandbox {
		fmt.Fprintln(e.stdout, hooks.ClaudeSandboxEffects)
	}
	if f.agent != "" && !f.global {
		if fi, err := os.Stat(r.BankDir()); err != nil || !fi.IsDir() {
			// doctor FAILs this; say it where the person is looking
			fmt.Fprintln(e.stdout, "next: mbguard init (there is no memory-bank/ here yet, so nothing is gated)")
		}
	}
	if o.HTTPPort > 0 {
		fmt.Fprintf(e.stdout, "next: mbguard watch --detach (Claude Code's hooks ask it at %s; while it does not run, the tool calls they guard are refused)\n", hooks.HTTPURL(o.HTTPPort))
	}
	if step := hooks.TrustStep(f.agent, f.global); step != "" {
		fmt.Fprintf(e.stdout, "next: %s\n", step)
	}
}

// installSkill writes (or removes) the memory-bank skill in dir.
func (e *env) installSkill(dir string, uninstall bool, root string) error {
	lines, err := skills.Install(dir, uninstall)
	if err != nil {
		return fmt.Errorf("installing the skill: %w", err)
	}
	for _, l := range relLines(lines, root) {
		fmt.Fprintln(e.stdout, l)
	}
	return nil
}

// removeInstalledDirs removes the folders install created that an uninstall left empty: those
// of the files it removed, and the skill's.
func removeInstalledDirs(o hooks.InstallOptions, changes []hooks.Change, skillDir string) {
	stops := []string{o.Root, o.Home, o.ConfigHome, o.CodexHome, o.CopilotHome}
	for _, ch := range changes {
		if ch.Action == "removed" {
			removeEmptyUp(filepath.Dir(inRoot(o.Root, ch.Path)), stops)
		}
	}
	if skillDir != "" {
		removeEmptyUp(skillDir, stops)
	}
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

// hookSelfCommand is how installed hooks start mbguard-hook, the hook program released beside
// this binary: by name when the mbguard-hook on PATH is that one and this binary is called by
// name too, else by absolute path (inside an npm package as well: the node launcher would cost
// more than the start it saves). "" when there is none beside this binary: the hooks then run
// this binary's hook command.
func hookSelfCommand() string {
	hp, err := spawn.Beside("mbguard-hook")
	if err != nil {
		return ""
	}
	if selfCommand() == "mbguard" {
		if p, err := exec.LookPath("mbguard-hook"); err == nil {
			if rp, _ := filepath.EvalSymlinks(p); rp == hp {
				return "mbguard-hook"
			}
		}
	}
	return hp
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
