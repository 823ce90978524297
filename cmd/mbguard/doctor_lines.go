package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/jail"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// kernelCheck is doctor's kernel line for what jail.Probe found.
func kernelCheck(probe jail.Method, probeErr error) doctorCheck {
	k := doctorCheck{Name: "kernel", Status: checkOK, Detail: "a jail works here (" + string(probe) + ")"}
	if probeErr != nil {
		k.Status, k.Detail = checkInfo, strings.TrimPrefix(probeErr.Error(), jail.ErrUnavailable.Error()+": ")
		if !errors.Is(probeErr, jail.ErrUnavailable) {
			k.Status = checkWarn
		}
		k.Detail = "no jail here: " + k.Detail + "; the two other lines still hold"
	}
	return k
}

// checkLines says, for every host whose hooks are installed, which of mbguard's three lines
// hold there: refuse before the call, undo after it, and the kernel (the agent's shell cannot
// write memory-bank/ at all). hostChecks are doctor's host lines, named by host.
func checkLines(r repo.Repo, home string, cfg *config.Config, hostChecks []doctorCheck) []doctorCheck {
	probe, probeErr := jail.Probe("")
	out := []doctorCheck{kernelCheck(probe, probeErr)}
	for _, hc := range hostChecks {
		if !hostInstalled(hc) {
			continue
		}
		spec, _ := hooks.LookupHost(hc.Name)
		files := hookFiles(hc.Detail)
		before, after, next := "on", "on", ""
		if bin, why := hookBinary(spec, files); why != "" {
			before, after = "off ("+why+")", "off (no hook runs)"
			next = "mbguard install --agent " + hc.Name + " (from the mbguard you run), or put " + strconv.Quote(bin) + " on PATH"
		} else if spec.NoPost {
			after = "off (" + spec.Title + " sends no post-tool event: what a call changed is judged only when its window lapses, " + outcome.StaleAfter.String() + " later)"
		} else if !postRegistered(spec, files) {
			after = "off (no post-tool hook is registered)"
			next = "mbguard install --agent " + hc.Name
		}
		kernel, knext := kernelLine(spec, r, home, cfg, probeErr)
		if next == "" {
			next = knext
		}
		status := checkInfo
		if strings.HasPrefix(before, "off") || strings.HasPrefix(after, "off (no") {
			status = checkWarn
		}
		out = append(out, doctorCheck{Name: hc.Name, Status: status,
			Detail: "lines: refuse before " + before + ", undo after " + after + ", kernel " + kernel, Next: next})
		out = append(out, failureLine(spec))
	}
	return out
}

// failureLine says what the host does when mbguard's gating hook crashes, times out or answers
// in a shape the host rejects (host.Spec.Fails); for Claude Code, checked against the version
// on PATH, since onFailure needs 2.1.295.
func failureLine(spec hooks.HostSpec) doctorCheck {
	ch := doctorCheck{Name: spec.Name, Status: checkInfo, Detail: "on failure: " + spec.Fails.String()}
	if note := failureNotes[spec.Name]; note != nil {
		if n := note(); n != "" {
			ch.Status, ch.Detail, ch.Next = checkWarn, "on failure: open — "+n, "update "+spec.Title+", then run mbguard install --agent "+spec.Name+" again"
		}
	}
	return ch
}

// failureNotes say why a host's failure mode is not what its table entry says on this machine
// ("" when it is): Claude Code's onFailure needs a version the one on PATH may predate.
var failureNotes = map[string]func() string{
	"claude": func() string { return hooks.ClaudeOnFailureNote(claudeVersionOnPath()) },
}

// hookFiles are the files a host's doctor line found mbguard's hooks or plugin in.
func hookFiles(detail string) []string {
	rest, ok := strings.CutPrefix(detail, "hooks in ")
	if !ok {
		rest, ok = strings.CutPrefix(detail, "plugin current at ")
	}
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, "; ")
	rest, _, _ = strings.Cut(rest, ": ")
	var out []string
	for _, f := range strings.Split(strings.ReplaceAll(rest, " and ", ", "), ", ") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// hookBinary finds the program the installed hooks run (the command before "hook <host>",
// or the OpenCode plugin's recorded binary) and checks that it can be started: found on
// PATH, or a file that exists and is executable. why is "" when it can.
func hookBinary(spec hooks.HostSpec, files []string) (bin, why string) {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if bin = commandBefore(string(b), spec); bin != "" {
			break
		}
	}
	if bin == "" {
		return "mbguard", "" // the plugin or hook names no program of its own: as installed
	}
	if v := os.Getenv("MBGUARD_BIN"); v != "" && spec.Plugin {
		bin = v
	}
	found, err := exec.LookPath(bin)
	if err != nil {
		if strings.ContainsRune(bin, filepath.Separator) || strings.ContainsRune(bin, '/') {
			return bin, "the hook runs " + bin + ", which does not exist or is not executable"
		}
		return bin, "the hook runs " + bin + ", which is not on PATH"
	}
	if strings.HasPrefix(filepath.Base(found), "mbguard-hook") {
		// mbguard-hook scans for secrets, and hands every other command line, to the
		// mbguard beside it
		if r, err := filepath.EvalSymlinks(found); err == nil {
			found = r
		}
		full := filepath.Join(filepath.Dir(found), strings.Replace(filepath.Base(found), "mbguard-hook", "mbguard", 1))
		if fi, err := os.Stat(full); err != nil || !fi.Mode().IsRegular() {
			return bin, "the hook runs " + bin + ", but the mbguard it needs beside it (" + full + ") is missing"
		}
	}
	return bin, ""
}

// commandBefore returns the program of the first hook command in text: what precedes
// " hook <host>" in a JSON string (quotes around it removed), or the plugin's DEFAULT_BIN.
func commandBefore(text string, spec hooks.HostSpec) string {
	if spec.Plugin {
		_, rest, ok := strings.Cut(text, "const DEFAULT_BIN = ")
		if !ok {
			return ""
		}
		line, _, _ := strings.Cut(rest, "\n")
		if v, err := strconv.Unquote(strings.TrimSpace(line)); err == nil {
			return v
		}
		return ""
	}
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return ""
	}
	var found string
	var visit func(any)
	visit = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, y := range t {
				visit(y)
			}
		case []any:
			for _, y := range t {
				visit(y)
			}
		case string:
			if i := strings.Index(t, " "+spec.Marker); i > 0 && found == "" {
				found = strings.Trim(strings.TrimSpace(t[:i]), `"'`)
			}
		}
	}
	visit(v)
	return found
}

// postRegistered reports whether a file holding mbguard's hooks registers one of the host's
// post-tool events (HostSpec.Closes): without it no check runs after a call.
func postRegistered(spec hooks.HostSpec, files []string) bool {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, ev := range spec.Closes {
			if strings.Contains(string(b), strconv.Quote(ev)) || spec.Plugin && strings.Contains(string(b), ev) {
				return true
			}
		}
	}
	return false
}

// hostInstalled: the host's doctor line found mbguard's hooks or plugin.
func hostInstalled(hc doctorCheck) bool {
	return strings.HasPrefix(hc.Detail, "hooks in ") || strings.HasPrefix(hc.Detail, "plugin current")
}

// kernelLine says whether the kernel line holds for one host (host.Spec.Kernel), and the step
// that turns it on.
func kernelLine(spec hooks.HostSpec, r repo.Repo, home string, cfg *config.Config, probeErr error) (string, string) {
	switch spec.Kernel {
	case host.Sandbox:
		return sandboxLine(spec, hooks.InstallOptions{Root: r.Root, Home: home})
	case host.Jail:
		switch {
		case probeErr != nil:
			return "off (no jail here)", ""
		case cfg == nil || cfg.Kernel.Mode != "on":
			return "off (kernel.mode is off)", "mbguard config, then set kernel.mode: on in .mbguard.yaml"
		}
		return "on (the plugin runs shell calls under mbguard jail: they and every job they leave cannot write memory-bank/; " +
			"git checkout, switch, merge, pull, rebase, reset, cherry-pick, stash, am, restore and revert run outside it and are judged after the call)", ""
	}
	return "off (no way in: its hooks cannot rewrite a shell command)", ""
}

// sandboxLine is the kernel line of a host whose own sandbox keeps memory-bank/ read-only
// (Claude Code's).
func sandboxLine(spec hooks.HostSpec, o hooks.InstallOptions) (string, string) {
	switch {
	case !hooks.ClaudeSandboxEnabled(o):
		return "off (" + spec.Title + "'s sandbox is off)", "mbguard install --agent " + spec.Name + " --sandbox"
	case !hooks.ClaudeSandboxDenies(o):
		return "off (the sandbox is on, without the memory-bank/ deny rule)", "mbguard install --agent " + spec.Name
	case runtime.GOOS == "linux" && !onPath("bwrap", "socat"):
		return "off (" + spec.Title + "'s sandbox needs bubblewrap and socat; without them it runs commands unsandboxed)", "apt-get install bubblewrap socat"
	case runtime.GOOS == "windows":
		return "off (" + spec.Title + "'s sandbox does not run on native Windows; use WSL2)", ""
	}
	return "on (" + spec.Title + "'s sandbox, denyWrite ./memory-bank)", ""
}

func onPath(names ...string) bool {
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			return false
		}
	}
	return true
}
