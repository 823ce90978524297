package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// openCodeHeader starts every plugin file mbguard writes; what follows it on the first line is
// "asset:<hash of the embedded plugin> sum:<hash of the rest of the file>".
const openCodeHeader = "// mbguard-opencode-plugin "

// openCodeBinLine is the line of the asset that install rewrites with the binary to call.
const openCodeBinLine = `const DEFAULT_BIN = "mbguard"`

// openCodeHostLine is the line of the asset that install rewrites with the host's name, which
// every event the plugin sends carries.
const openCodeHostLine = `const HOST = "opencode"`

// pluginHost is a host that loads mbguard's OpenCode plugin from a folder of its own: OpenCode,
// and Kilo Code, which keeps OpenCode's plugin API. The same asset serves both; install writes
// the host's name into it.
type pluginHost struct {
	name, title string
	// dir is the project's configuration folder, config the one under $XDG_CONFIG_HOME
	// (~/.config); the plugin goes into plugin/ in either.
	dir, config string
}

var (
	openCodeHost = pluginHost{name: "opencode", title: "OpenCode", dir: ".opencode", config: "opencode"}
	pluginHosts  = []pluginHost{openCodeHost, kiloHost}
)

func lookupPluginHost(name string) (pluginHost, bool) {
	for _, h := range pluginHosts {
		if h.name == name {
			return h, true
		}
	}
	return pluginHost{}, false
}

// path is where install writes the plugin: the project's <dir>/plugin/mbguard.js, or with
// Global the host's configuration folder ($XDG_CONFIG_HOME/<config>, else ~/.config/<config>):
// the host's first project and user file (host.Spec).
func (h pluginHost) path(o InstallOptions) string { return HookFilePath(h.name, o) }

// skillDir is where the host reads the memory-bank skill: skills/ in the same folders.
func (h pluginHost) skillDir(o InstallOptions) string {
	if o.Global {
		base := o.ConfigHome
		if base == "" {
			base = filepath.Join(o.Home, ".config")
		}
		return filepath.Join(base, h.config, "skills", "memory-bank")
	}
	return filepath.Join(o.Root, h.dir, "skills", "memory-bank")
}

// OpenCodePluginPath is where install writes OpenCode's plugin: the project's
// .opencode/plugin/mbguard.js, or with Global OpenCode's configuration folder
// ($XDG_CONFIG_HOME/opencode, else ~/.config/opencode).
func OpenCodePluginPath(o InstallOptions) string { return openCodeHost.path(o) }

// PluginPath is where install writes the plugin for the plugin host named name ("" for any
// other host).
func PluginPath(name string, o InstallOptions) string {
	h, ok := lookupPluginHost(name)
	if !ok {
		return ""
	}
	return h.path(o)
}

// PluginState is what OpenCodePluginState found at the plugin path.
type PluginState string

// Plugin states, for `mbguard doctor`.
const (
	PluginMissing PluginState = "missing" // no file
	PluginCurrent PluginState = "current" // ours, untouched, from this binary's asset
	PluginStale   PluginState = "stale"   // ours, untouched, from another mbguard version
	PluginEdited  PluginState = "edited"  // ours, but changed by hand since install
	PluginForeign PluginState = "foreign" // a file mbguard did not write
)

// OpenCodePluginState reports whether the plugin at OpenCodePluginPath(o) is installed and current.
func OpenCodePluginState(o InstallOptions) (string, PluginState, error) {
	return PluginStateOf("opencode", o)
}

// PluginStateOf reports whether the plugin of the plugin host named name is installed at its
// PluginPath and current.
func PluginStateOf(name string, o InstallOptions) (string, PluginState, error) {
	path := PluginPath(name, o)
	if path == "" {
		return "", "", fmt.Errorf("%s loads no mbguard plugin", name)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, PluginMissing, nil
	}
	if err != nil {
		return path, "", fmt.Errorf("reading %s: %w", path, err)
	}
	return path, pluginState(string(b)), nil
}

func pluginState(content string) PluginState {
	first, body, _ := strings.Cut(content, "\n")
	meta, ours := strings.CutPrefix(first, openCodeHeader)
	if !ours {
		return PluginForeign
	}
	var asset, sum string
	for _, f := range strings.Fields(meta) {
		if v, ok := strings.CutPrefix(f, "asset:"); ok {
			asset = v
		} else if v, ok := strings.CutPrefix(f, "sum:"); ok {
			sum = v
		}
	}
	switch {
	case sum != shortHash(body):
		return PluginEdited
	case asset != OpenCodePluginHash():
		return PluginStale
	}
	return PluginCurrent
}

// pluginBinary is the DEFAULT_BIN the plugin gets: a project's npm install relative to the
// project (the plugin resolves it against the work tree it runs in), else Binary.
func (o InstallOptions) pluginBinary() string {
	if o.projectBin() {
		return o.ProjectBin
	}
	return o.Binary
}

// renderOpenCodePlugin is the file install writes for OpenCode: the header, then the asset
// calling binary.
func renderOpenCodePlugin(binary string) string { return renderPlugin("opencode", binary) }

// renderPlugin is the file install writes for the plugin host named host: the header, then
// the asset naming host and calling binary.
func renderPlugin(host, binary string) string {
	body := openCodePlugin
	if host != "opencode" {
		body = strings.Replace(body, openCodeHostLine, "const HOST = "+strconv.Quote(host), 1)
	}
	if binary != "" && binary != "mbguard" {
		q, _ := json.Marshal(binary)
		body = strings.Replace(body, openCodeBinLine, "const DEFAULT_BIN = "+string(q), 1)
	}
	return fmt.Sprintf("%sasset:%s sum:%s\n%s", openCodeHeader, OpenCodePluginHash(), shortHash(body), body)
}

// InstallOpenCode writes the OpenCode plugin (one file, loaded by OpenCode from its plugin
// folder) that forwards the agent's hooks to `mbguard serve --stdio`. A second run leaves an
// identical file unchanged and replaces a stale one, or one edited by hand (the edits are kept
// beside it as mbguard.js.orig); a file someone else wrote is never touched. Uninstall removes
// only our file.
func InstallOpenCode(o InstallOptions) ([]Change, error) { return openCodeHost.install(o) }

func (h pluginHost) install(o InstallOptions) ([]Change, error) {
	old, exists, show, path, err := readTarget(o, h.path, "HOME or XDG_CONFIG_HOME to find "+h.title+"'s configuration")
	if err != nil {
		return nil, err
	}
	state := PluginMissing
	if exists {
		state = pluginState(string(old))
	}
	if o.Uninstall {
		switch state {
		case PluginMissing:
			return []Change{{Path: show, Action: "unchanged", Note: "not installed"}}, nil
		case PluginForeign:
			return []Change{{Path: show, Action: "skipped", Note: "not written by mbguard; left in place"}}, nil
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing %s: %w", show, err)
		}
		return []Change{{Path: show, Action: "removed"}}, nil
	}
	want := renderPlugin(h.name, o.pluginBinary())
	switch state {
	case PluginForeign:
		return []Change{{Path: show, Action: "skipped", Note: "a file mbguard did not write is in the way; move it and run this again"}}, nil
	case PluginEdited:
		// The file says "do not edit"; keep the edits beside it (a name OpenCode does not load)
		// rather than lose them, and install the real plugin.
		if err := fsutil.WriteFileAtomic(path+".orig", old, 0o644); err != nil {
			return nil, err
		}
	}
	if string(old) == want {
		return []Change{{Path: show, Action: "unchanged"}}, nil
	}
	if err := putFile(path, show, []byte(want), 0o644, false); err != nil {
		return nil, err
	}
	if state == PluginEdited {
		return []Change{{Path: show, Action: "updated", Note: "your edits are kept in " + filepath.Base(path) + ".orig"}}, nil
	}
	if exists {
		return []Change{{Path: show, Action: "updated"}}, nil
	}
	return []Change{{Path: show, Action: "created", Note: "restart " + h.title + " to load it; its shell calls then run with memory-bank/ read-only " +
		"(kernel.mode, on by default; git's branch operations run outside: see mbguard doctor)"}}, nil
}
