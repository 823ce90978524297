package main

import (
	"errors"
	"path/filepath"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/repo"
)

// doctorOutside is doctor outside a work tree: the lines that need no repository (the binary,
// the user's configuration, each host's user-level install, the user state), then one line
// saying why the rest is missing and the step that gets it.
func (e *env) doctorOutside(notRepo error) []doctorCheck {
	checks := []doctorCheck{checkBinary("")}
	cfg, cerr := e.config("")
	checks = append(checks, checkConfig(cfg, cerr))
	checks = append(checks, checkUserHosts(e.getenv)...)
	checks = append(checks, checkOrphans()...)
	where := doctorCheck{Name: "repo", Status: checkFail, Detail: "not inside a git repository", Next: "cd into your project, then run mbguard doctor"}
	var be *repo.BareError
	if errors.As(notRepo, &be) {
		where.Detail = be.Dir + " is a bare repository: mbguard guards a work tree"
		where.Next = "run it in a clone with a work tree"
	}
	return append(checks, where)
}

// checkUserHosts is one line per host about its user-level install only.
func checkUserHosts(getenv func(string) string) []doctorCheck {
	o := hooks.InstallOptions{Home: getenv("HOME"), ConfigHome: configHome(getenv), CodexHome: getenv("CODEX_HOME"),
		CopilotHome: getenv("COPILOT_HOME"), Global: true}
	var out []doctorCheck
	for _, spec := range hooks.Registry() {
		if spec.Plugin {
			ch := doctorCheck{Name: spec.Name, Status: checkInfo, Detail: spec.Title + " plugin not installed for the user (mbguard install --agent opencode --global if you use it)"}
			if path, st, err := hooks.OpenCodePluginState(o); err == nil && st != hooks.PluginMissing {
				ch.Detail = "plugin " + string(st) + " at " + path
				if st == hooks.PluginCurrent {
					ch.Status = checkOK
				}
			}
			out = append(out, ch)
			continue
		}
		if len(spec.DoctorUser) == 0 {
			continue
		}
		var user []string // the project files are relative here: no project
		for _, p := range spec.DoctorFiles(o) {
			if filepath.IsAbs(p) {
				user = append(user, p)
			}
		}
		ch := checkHostFiles(spec.Name, spec.Title, spec.Marker, user, nil)
		if ch.Status == checkInfo {
			ch.Detail = spec.Title + " hooks not installed for the user (mbguard install --agent " + spec.Name + " --global if you use it)"
		}
		out = append(out, ch)
	}
	return out
}
