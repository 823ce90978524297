package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
)

// HostSpec is one agent host mbguard supports: its facts (host.Spec, the one table) and the
// behaviour hooks adds to them — its installer, its protocol. Adding a host is one entry in
// host's table, one here with its installer, and its payload parser and reply renderer (a
// protocol).
type HostSpec struct {
	// Spec is the host's entry in the one table of hosts: its names, tools, secret way,
	// failure mode, events, files, trust step and e2e package.
	host.Spec
	// Install writes (or with Uninstall removes) mbguard's hooks.
	Install func(InstallOptions) ([]Change, error)
	// SkillDir is where install writes the memory-bank skill ("" when the host reads none).
	SkillDir func(InstallOptions) string
	// Refresh, when set, runs at every hook call for a repository: what the host reads by
	// itself (Crush's MEMORY.md view) is brought up to date.
	Refresh func(repo.Repo, *config.Config) error

	proto protocol // nil for a host served by a plugin (OpenCode, Kilo Code)
}

// HookHost reports whether `mbguard hook <Name>` answers this host.
func (s HostSpec) HookHost() bool { return s.proto != nil }

// DoctorFiles are the files doctor reads to find mbguard's hooks, project first (nil for a
// host doctor checks its own way).
func (s HostSpec) DoctorFiles(o InstallOptions) []string {
	var out []string
	add := func(p string) {
		if dir, ok := strings.CutSuffix(p, string(filepath.Separator)+"*.json"); ok {
			out = append(out, jsonFiles(dir)...)
			return
		}
		out = append(out, p)
	}
	for _, f := range s.DoctorProject {
		add(filepath.Join(o.Root, filepath.FromSlash(f)))
	}
	for _, f := range s.DoctorUser {
		add(o.UserPath(f))
	}
	return out
}

// hostSpecs is the one list of hosts, in host's order.
var hostSpecs = []HostSpec{
	{Spec: host.Get("claude"), Install: InstallClaude, SkillDir: skillIn(".claude"), proto: claudeProto{}},
	{
		Spec: host.Get("opencode"), Install: InstallOpenCode,
		SkillDir: func(o InstallOptions) string {
			if o.Global {
				return filepath.Join(o.ConfigHome, "opencode", "skills", "memory-bank")
			}
			return filepath.Join(o.Root, ".opencode", "skills", "memory-bank")
		},
	},
	// Kilo Code keeps OpenCode's plugin API: the same plugin, loaded from .kilo/plugin/
	{Spec: host.Get("kilo"), Install: InstallKilo, SkillDir: kiloHost.skillDir},
	{Spec: host.Get("codex"), Install: InstallCodex, proto: codexProto{}},
	{Spec: host.Get("gemini"), Install: InstallGemini, proto: geminiProto{}},
	{Spec: host.Get("copilot"), Install: InstallCopilot, proto: copilotProto{}},
	{Spec: host.Get("qwen"), Install: InstallQwen, SkillDir: skillIn(".qwen"), proto: qwenProto{}},
	{Spec: host.Get("crush"), Install: InstallCrush, proto: crushProto{}, Refresh: refreshCrushContext},
	{Spec: host.Get("droid"), Install: InstallDroid, proto: droidProto{}},
	{Spec: host.Get("cursor"), Install: InstallCursor, proto: cursorProto{}},
	{Spec: host.Get("auggie"), Install: InstallAuggie, proto: auggieProto{}},
	{Spec: host.Get("cline"), Install: InstallCline, proto: clineProto{}, Refresh: refreshClineRules},
}

// Registry is every supported host, in the order help and doctor list them.
func Registry() []HostSpec { return hostSpecs }

// LookupHost returns the host named name.
func LookupHost(name string) (HostSpec, bool) {
	for _, s := range hostSpecs {
		if s.Name == name {
			return s, true
		}
	}
	return HostSpec{}, false
}

// HostNames are the names of all hosts (install --agent), or with hookOnly those `mbguard
// hook` answers.
func HostNames(hookOnly bool) []string {
	var out []string
	for _, s := range hostSpecs {
		if !hookOnly || s.HookHost() {
			out = append(out, s.Name)
		}
	}
	return out
}

func skillIn(dir string) func(InstallOptions) string {
	return func(o InstallOptions) string {
		if o.Global {
			return filepath.Join(o.Home, dir, "skills", "memory-bank")
		}
		return filepath.Join(o.Root, dir, "skills", "memory-bank")
	}
}

// jsonFiles lists the *.json files directly in dirs.
func jsonFiles(dirs ...string) []string {
	var out []string
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".json") {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}
