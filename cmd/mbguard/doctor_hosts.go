package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/repo"
)

// checkInfo marks a host that is simply not in use here: neither a warning nor a failure.
const checkInfo = "INFO"

// checkHostFiles reports whether a JSON-settings host has mbguard's hooks in one of its files:
// a file that is not valid JSON fails (the host ignores it), a file without our command is
// not in use. trust, when set, adds a warning about a trust step the host still needs.
func checkHostFiles(name, title, marker string, paths []string, trust func() (string, string)) doctorCheck {
	ch := doctorCheck{Name: name}
	var where []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			ch.Status, ch.Detail, ch.Next = checkFail, p+" is not valid JSON ("+title+" ignores it)", "fix the JSON, then run mbguard install --agent "+name
			return ch
		}
		if strings.Contains(string(b), marker) {
			where = append(where, p)
		}
	}
	if len(where) == 0 {
		ch.Status, ch.Detail = checkInfo, title+" hooks not installed (mbguard install --agent "+name+" if you use it)"
		return ch
	}
	ch.Status, ch.Detail = checkOK, "hooks in "+strings.Join(where, ", ")
	if len(where) > 1 {
		ch.Status, ch.Detail, ch.Next = twice(name, where)
	}
	if trust != nil {
		if detail, next := trust(); detail != "" {
			ch.Status, ch.Detail, ch.Next = checkWarn, ch.Detail+"; "+detail, next
		}
	}
	return ch
}

// ownHostChecks are the hosts doctor checks its own way; every other host by whether its
// files (host.Spec.DoctorProject, DoctorUser) hold mbguard's hooks.
var ownHostChecks = map[string]func(r repo.Repo, o hooks.InstallOptions, spec hooks.HostSpec) doctorCheck{
	"claude":   func(r repo.Repo, o hooks.InstallOptions, _ hooks.HostSpec) doctorCheck { return checkClaude(r, o.Home) },
	"opencode": checkPlugin,
	"kilo":     checkPlugin,
	"codex":    checkCodex,
	"crush": func(r repo.Repo, o hooks.InstallOptions, spec hooks.HostSpec) doctorCheck {
		return checkCrush(r, checkSpecFiles(spec, o))
	},
	"auggie": func(_ repo.Repo, o hooks.InstallOptions, spec hooks.HostSpec) doctorCheck {
		return checkAuggie(o, checkSpecFiles(spec, o))
	},
	"cline": func(_ repo.Repo, o hooks.InstallOptions, _ hooks.HostSpec) doctorCheck { return checkCline(o) },
}

// checkSpecFiles is checkHostFiles on the host's own files.
func checkSpecFiles(spec hooks.HostSpec, o hooks.InstallOptions) doctorCheck {
	return checkHostFiles(spec.Name, spec.Title, spec.Marker, spec.DoctorFiles(o), nil)
}

// checkHosts runs one check per host of the registry: a host's own check where it has one,
// else whether its configuration files hold mbguard's hooks.
func checkHosts(r repo.Repo, getenv func(string) string) []doctorCheck {
	o := hooks.InstallOptions{Root: r.Root, GitDir: r.GitDir, CommonDir: r.CommonDir, Home: getenv("HOME"), ConfigHome: configHome(getenv),
		CodexHome: getenv("CODEX_HOME"), CopilotHome: getenv("COPILOT_HOME")}
	var out []doctorCheck
	defer func() { out = quietUnused(out) }()
	for _, spec := range hooks.Registry() {
		if own, ok := ownHostChecks[spec.Name]; ok {
			out = append(out, own(r, o, spec))
			continue
		}
		out = append(out, checkSpecFiles(spec, o))
	}
	return out
}

// checkCodex adds to Codex CLI's line the trust it still needs: Codex skips untrusted hooks
// silently.
func checkCodex(r repo.Repo, o hooks.InstallOptions, spec hooks.HostSpec) doctorCheck {
	paths := spec.DoctorFiles(o)
	project := paths[0]
	return checkHostFiles(spec.Name, spec.Title, spec.Marker, paths, func() (string, string) {
		// Codex skips untrusted hooks silently: say so when its config shows no trust yet.
		b, _ := os.ReadFile(o.UserPath(host.File{Base: host.CodexHome, Path: "config.toml"}))
		cfg := string(b)
		if _, err := os.Stat(project); err == nil && !strings.Contains(cfg, `[projects."`+r.Root+`"]`) {
			return "Codex has not trusted this project, so it skips them", spec.TrustStep(false)
		}
		if !strings.Contains(cfg, "trusted_hash") {
			_, err := os.Stat(project)
			return "no Codex hook is trusted yet, so it skips them", spec.TrustStep(err != nil) // only the user-level file: the global step
		}
		return "", ""
	})
}

// twice words a host whose hooks sit in two of its settings files (a project and the user
// level): the host runs both, so every hook runs twice.
func twice(name string, where []string) (string, string, string) {
	return checkWarn, "hooks in " + strings.Join(where, " and ") + ": the host runs both, so every hook runs twice",
		"keep one: mbguard install --agent " + name + " --global --uninstall (or --uninstall for this project's)"
}

// quietUnused: where mbguard guards at least one host, a host without its hooks is one the
// user does not run (INFO); where it guards none, that is worth a warning on the hosts
// mbguard knows best.
func quietUnused(out []doctorCheck) []doctorCheck {
	installed := false
	for _, ch := range out {
		if ch.Status == checkOK || ch.Status == checkFail || strings.HasPrefix(ch.Detail, "hooks in ") {
			installed = true
		}
	}
	if !installed {
		return out
	}
	for i, ch := range out {
		if ch.Status == checkWarn && strings.HasSuffix(ch.Detail, "not installed") {
			out[i].Status, out[i].Detail, out[i].Next = checkInfo, ch.Detail+" (mbguard install --agent "+ch.Name+" if you use it)", ""
		}
	}
	return out
}

// checkCrush adds to Crush's line the view of MEMORY.md its crush.json points at: it lives
// under .git/mbguard/, so a fresh clone has none until a hook ran, and Crush then starts
// without the memory.
func checkCrush(r repo.Repo, ch doctorCheck) doctorCheck {
	if ch.Status != checkOK {
		return ch
	}
	if _, err := os.Stat(r.BankDir()); err != nil {
		return ch // no bank, no view to keep
	}
	view := hooks.CrushContextPath(r)
	if _, err := os.Stat(view); err != nil {
		ch.Status = checkWarn
		ch.Detail += "; " + displayRel(r.Root, view) + " (the MEMORY.md Crush reads) does not exist yet, so Crush starts without the memory"
		ch.Next = "mbguard install --agent crush (writes it; once per clone)"
	}
	return ch
}

// AuggieHooksNote is what doctor says of every Auggie install: the switch that loads hooks at
// all is Augment's, not the user's.
const AuggieHooksNote = "Auggie runs them only when Augment's backend enables hooks for your account (get-models' enable_hooks flag); " +
	"where it does not, nothing is guarded and only the rule file reaches the model"

// checkAuggie adds to Auggie's line that hooks run only where Augment's backend enables them,
// and checks the rule file that tells the agent to read the bank.
func checkAuggie(o hooks.InstallOptions, ch doctorCheck) doctorCheck {
	if ch.Status != checkOK && ch.Status != checkWarn {
		return ch
	}
	if !strings.HasPrefix(ch.Detail, "hooks in ") {
		return ch
	}
	ch.Detail += "; " + AuggieHooksNote
	rules := []string{hooks.AuggieRulePath(o), hooks.AuggieRulePath(hooks.InstallOptions{Global: true, Home: o.Home})}
	for _, p := range rules {
		if _, err := os.Stat(p); err == nil {
			return ch
		}
	}
	ch.Status = checkWarn
	ch.Detail += "; no " + displayRel(o.Root, rules[0]) + ", so nothing tells the agent to read memory-bank/MEMORY.md"
	if ch.Next == "" {
		ch.Next = "mbguard install --agent auggie (writes it)"
	}
	return ch
}

// checkCline reports Cline's hook files (shell scripts, one per event, not JSON): all of a
// folder's in place and executable, in one folder only, and the project's MEMORY.md rule file.
func checkCline(o hooks.InstallOptions) doctorCheck {
	ch := doctorCheck{Name: "cline"}
	var where []string
	for _, global := range []bool{false, true} {
		oo := o
		oo.Global = global
		if global && o.Home == "" {
			continue
		}
		ours, broken := clineFolder(oo)
		if ours == 0 {
			continue
		}
		dir := hooks.ClineHooksDir(oo)
		if len(broken) > 0 {
			ch.Status, ch.Detail = checkFail, dir+" lacks mbguard's hook for "+strings.Join(broken, ", ")
			ch.Next = "mbguard install --agent cline" + map[bool]string{true: " --global", false: ""}[global]
			return ch
		}
		where = append(where, dir)
	}
	if len(where) == 0 {
		ch.Status, ch.Detail = checkInfo, "Cline hooks not installed (mbguard install --agent cline if you use it)"
		return ch
	}
	ch.Status, ch.Detail = checkOK, "hooks in "+strings.Join(where, ", ")
	if len(where) > 1 {
		ch.Status, ch.Detail, ch.Next = twice("cline", where)
		return ch
	}
	if o.Root != "" {
		if _, err := os.Stat(filepath.Join(o.Root, filepath.FromSlash(hooks.ClineRulesFile))); err != nil {
			ch.Status = checkWarn
			ch.Detail += "; " + hooks.ClineRulesFile + " (how MEMORY.md reaches Cline's model) is missing, so Cline starts without the memory"
			ch.Next = "mbguard install --agent cline (writes it; a hook call rewrites it too)"
		}
	}
	return ch
}

// clineFolder counts the hook files of o's folder that are mbguard's and executable, and names
// the others.
func clineFolder(o hooks.InstallOptions) (ours int, broken []string) {
	for _, p := range hooks.ClineHookFiles(o) {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), "hook cline") {
			broken = append(broken, filepath.Base(p))
			continue
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			broken = append(broken, filepath.Base(p)+" (not executable)")
			continue
		}
		ours++
	}
	return ours, broken
}
