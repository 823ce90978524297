package main

import (
	"errors"
	"os/exec"
	"runtime"
	"strings"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/jail"
	"github.com/mbguard/mbguard/internal/repo"
)

// checkLines says, for every host whose hooks are installed, which of mbguard's three lines
// hold there: refuse before the call, undo after it, and the kernel (the agent's shell cannot
// write memory-bank/ at all). hostChecks are doctor's host lines, named by host.
func checkLines(r repo.Repo, home string, cfg *config.Config, hostChecks []doctorCheck) []doctorCheck {
	probe, probeErr := jail.Probe("")
	var out []doctorCheck
	k := doctorCheck{Name: "kernel", Status: checkOK, Detail: "a jail works here (" + string(probe) + ")"}
	if probeErr != nil {
		k.Status, k.Detail = checkInfo, strings.TrimPrefix(probeErr.Error(), jail.ErrUnavailable.Error()+": ")
		if !errors.Is(probeErr, jail.ErrUnavailable) {
			k.Status = checkWarn
		}
		k.Detail = "no jail here: " + k.Detail + "; the two other lines still hold"
	}
	out = append(out, k)
	for _, hc := range hostChecks {
		if !hostInstalled(hc) {
			continue
		}
		kernel, next := kernelLine(hc.Name, r, home, cfg, probeErr)
		ch := doctorCheck{Name: hc.Name, Status: checkInfo,
			Detail: "lines: refuse before on, undo after on, kernel " + kernel, Next: next}
		out = append(out, ch)
	}
	return out
}

// hostInstalled: the host's doctor line found mbguard's hooks or plugin.
func hostInstalled(hc doctorCheck) bool {
	return strings.HasPrefix(hc.Detail, "hooks in ") || strings.HasPrefix(hc.Detail, "plugin current")
}

// kernelLine says whether the kernel line holds for one host, and the step that turns it on.
func kernelLine(host string, r repo.Repo, home string, cfg *config.Config, probeErr error) (string, string) {
	switch host {
	case "claude":
		o := hooks.InstallOptions{Root: r.Root, Home: home}
		switch {
		case !hooks.ClaudeSandboxEnabled(o):
			return "off (Claude Code's sandbox is off)", "mbguard install --agent claude --sandbox"
		case !hooks.ClaudeSandboxDenies(o):
			return "off (the sandbox is on, without the memory-bank/ deny rule)", "mbguard install --agent claude"
		case runtime.GOOS == "linux" && !onPath("bwrap", "socat"):
			return "off (Claude Code's sandbox needs bubblewrap and socat; without them it runs commands unsandboxed)", "apt-get install bubblewrap socat"
		case runtime.GOOS == "windows":
			return "off (Claude Code's sandbox does not run on native Windows; use WSL2)", ""
		}
		return "on (Claude Code's sandbox, denyWrite ./memory-bank)", ""
	case "opencode":
		switch {
		case probeErr != nil:
			return "off (no jail here)", ""
		case cfg == nil || cfg.Kernel.Mode != "on":
			return "off (kernel.mode is off)", "mbguard config, then set kernel.mode: on in .mbguard.yaml"
		}
		return "on (the plugin runs shell calls under mbguard jail)", ""
	}
	return "off (no way in: its hooks cannot rewrite a shell command)", ""
}

func onPath(names ...string) bool {
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			return false
		}
	}
	return true
}
