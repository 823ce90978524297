package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// ClaudeSandboxDeny is the sandbox.filesystem.denyWrite entry that makes memory-bank/
// read-only for every shell command Claude Code runs in its sandbox: the kernel line. A
// relative path in project settings is the project's folder.
const ClaudeSandboxDeny = "./memory-bank"

// ClaudeSandboxEffects says what turning Claude Code's sandbox on changes besides the bank,
// printed when install --sandbox enables it.
const ClaudeSandboxEffects = `Claude Code's sandbox now runs every Bash command with:
  - memory-bank/ read-only (the Write and Edit tools still write it, through mbguard's hook);
  - writes allowed only in the project and the temporary folder;
  - network through Claude Code's proxy: a new domain asks you first, a local server (127.0.0.1) is out of reach;
  - the same permission prompts as before (sandbox.autoAllowBashIfSandboxed stays false);
  - the agent's own git checkout/merge/pull of a branch whose memory-bank/ differs fails
    (run those yourself);
  - on Linux, bubblewrap and socat needed (apt-get install bubblewrap socat).
To turn it off: /sandbox in Claude Code, or set "sandbox.enabled": false in .claude/settings.json.`

// ClaudeSandboxEnabled reports whether Claude Code runs its sandbox for the project: sandbox.enabled
// is true in the project's settings, its local settings or the user's (later files win, as
// in Claude Code). Unreadable or invalid files count as not saying.
func ClaudeSandboxEnabled(o InstallOptions) bool {
	on := false
	for _, p := range claudeSettingsChain(o) {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var s struct {
			Sandbox *struct {
				Enabled *bool `json:"enabled"`
			} `json:"sandbox"`
		}
		if json.Unmarshal(b, &s) == nil && s.Sandbox != nil && s.Sandbox.Enabled != nil {
			on = *s.Sandbox.Enabled
		}
	}
	return on
}

// ClaudeSandboxDenies reports whether the project's settings hold the bank's deny rule.
func ClaudeSandboxDenies(o InstallOptions) bool {
	b, err := os.ReadFile(HookFilePath("claude", InstallOptions{Root: o.Root}))
	if err != nil {
		return false
	}
	var s struct {
		Sandbox struct {
			Filesystem struct {
				DenyWrite []string `json:"denyWrite"`
			} `json:"filesystem"`
		} `json:"sandbox"`
	}
	if json.Unmarshal(b, &s) != nil {
		return false
	}
	for _, d := range s.Sandbox.Filesystem.DenyWrite {
		if d == ClaudeSandboxDeny {
			return true
		}
	}
	return false
}

// claudeSettingsChain lists the settings files that decide sandbox.enabled, lowest first.
func claudeSettingsChain(o InstallOptions) []string {
	var ps []string
	if o.Home != "" {
		ps = append(ps, filepath.Join(o.Home, ".claude", "settings.json"))
	}
	if o.Root != "" {
		ps = append(ps, filepath.Join(o.Root, ".claude", "settings.json"), filepath.Join(o.Root, ".claude", "settings.local.json"))
	}
	return ps
}

// InstallClaudeSandbox adds the kernel line to the project's Claude Code settings: the
// denyWrite rule for memory-bank/, and with enable also "sandbox.enabled": true. Without
// enable the rule is added only when the sandbox is already on (anywhere in the settings
// chain); otherwise nothing changes and the returned line names --sandbox. Uninstall removes
// the rule and leaves sandbox.enabled as it is. Other keys and their order are kept; the
// file is written atomically and refused untouched when it is not a JSON object.
func InstallClaudeSandbox(o InstallOptions, enable bool) ([]Change, error) {
	if o.Global {
		if enable {
			return nil, errors.New("--sandbox applies to a project: the deny rule names the project's memory-bank/ (run it in the project without --global)")
		}
		return nil, nil
	}
	if !o.Uninstall && !enable && !ClaudeSandboxEnabled(o) {
		return []Change{{Path: displayPath(o.Root, HookFilePath("claude", o)), Action: "skipped",
			Note: "kernel line off: Claude Code's sandbox is off; --sandbox would make memory-bank/ read-only for every shell command and its jobs, " +
				"and also confine shell writes to the project and temp, block local network, ask per new domain, and stop the agent's git checkout of a branch whose bank differs"}}, nil
	}
	old, exists, show, path, err := readTarget(o, hookFileAt("claude"), "")
	if err != nil {
		return nil, err
	}
	if o.Uninstall && !exists {
		return nil, nil
	}
	top, err := jsonObjectOf(old, exists, show)
	if err != nil {
		return nil, err
	}
	note, err := putSandboxDeny(top, show, o.Uninstall, enable)
	if err != nil {
		return nil, err
	}
	if o.Uninstall && len(top.keys) == 0 {
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing %s: %w", show, err)
		}
		return []Change{{Path: show, Action: "removed", Note: "it held only mbguard's settings"}}, nil
	}
	return writeSandbox(path, show, old, top, exists, note, o.Uninstall)
}

// putSandboxDeny puts ClaudeSandboxDeny into top's sandbox.filesystem.denyWrite once (with
// enable also sandbox.enabled: true), or with uninstall takes it out; note says what it put in.
func putSandboxDeny(top *jsonObject, show string, uninstall, enable bool) (note string, err error) {
	sandbox, err := childObject(top, "sandbox", show)
	if err != nil {
		return "", err
	}
	fs, err := childObject(sandbox, "filesystem", show+": sandbox")
	if err != nil {
		return "", err
	}
	var deny []string
	if raw, ok := fs.get("denyWrite"); ok && json.Unmarshal(raw, &deny) != nil {
		return "", fmt.Errorf(`%s: "sandbox.filesystem.denyWrite" is not an array of strings: fix it by hand and run this again; nothing was changed`, show)
	}
	kept := slices.DeleteFunc(slices.Clone(deny), func(d string) bool { return d == ClaudeSandboxDeny })
	if !uninstall {
		kept = append(kept, ClaudeSandboxDeny)
		note = "sandbox denyWrite " + ClaudeSandboxDeny
		if enable {
			sandbox.set("enabled", json.RawMessage("true"))
			note = "sandbox on, denyWrite " + ClaudeSandboxDeny
		}
	}
	if len(kept) == 0 {
		fs.del("denyWrite")
	} else {
		b, _ := json.Marshal(kept)
		fs.set("denyWrite", b)
	}
	setOrDrop(sandbox, "filesystem", fs)
	setOrDrop(top, "sandbox", sandbox)
	return note, nil
}

// writeSandbox writes top to the settings file at path (old, when it exists), keeping its
// mode; a file whose content would not change is left alone.
func writeSandbox(path, show string, old []byte, top *jsonObject, exists bool, note string, uninstall bool) ([]Change, error) {
	out, err := indentJSON(top.encode())
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", show, err)
	}
	if exists && bytes.Equal(bytes.TrimSpace(old), bytes.TrimSpace(out)) {
		return []Change{{Path: show, Action: "unchanged", Note: note}}, nil
	}
	if err := putFile(path, show, out, 0o644, true); err != nil {
		return nil, err
	}
	if uninstall {
		note = "sandbox denyWrite " + ClaudeSandboxDeny + " removed; sandbox.enabled left as it was"
	}
	return []Change{{Path: show, Action: "updated", Note: note}}, nil
}

// childObject returns the object member k of o (an empty one when absent), or an error
// naming where when it is something else.
func childObject(o *jsonObject, k, where string) (*jsonObject, error) {
	raw, ok := o.get(k)
	if !ok {
		return &jsonObject{}, nil
	}
	c, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf(`%s: %q is not a JSON object (%v): fix it by hand and run this again; nothing was changed`, where, k, err)
	}
	return c, nil
}

// setOrDrop stores c as o's member k, or removes k when c is empty.
func setOrDrop(o *jsonObject, k string, c *jsonObject) {
	if len(c.keys) == 0 {
		o.del(k)
		return
	}
	o.set(k, c.encode())
}
