package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
)

// HostSpec is one agent host mbguard supports: everything the CLI, doctor, the protected set
// and the tests need to know about it. Adding a host is one entry in hostSpecs plus its
// payload parser and reply renderer (a protocol).
type HostSpec struct {
	// Spec is the host's entry in the one table of hosts: its names, tools, secret way,
	// failure mode and e2e package.
	host.Spec
	// Events are the host's hook events install registers, in the host's spelling.
	Events []string
	// Closes are the events that end a tool call's window: after them the call claims no
	// later change (SPEC "attribution").
	Closes []string
	// NoPost: the host sends no event after a tool call (Crush), so nothing a call did is
	// undone right after it: its window lapses (outcome.StaleAfter) and a later check judges it.
	NoPost bool
	// ProjectFiles are the configuration files install writes in a project (relative to the
	// repository root); an agent that could write them could switch the guard off, so each
	// is in gating.ProtectedPaths.
	ProjectFiles []string
	// Install writes (or with Uninstall removes) mbguard's hooks.
	Install func(InstallOptions) ([]Change, error)
	// SkillDir is where install writes the memory-bank skill ("" when the host reads none).
	SkillDir func(InstallOptions) string
	// Trust is the one step a user must take before the host runs the hooks ("" for none).
	Trust func(global bool) string
	// ProjectDirEnv is the variable in which the host names the project folder to a hook
	// command ("" when it has none); a project's npm install is reached through it.
	ProjectDirEnv string
	// Marker is the text a configuration file holds when mbguard's hook is in it.
	Marker string
	// DoctorFiles are the files doctor reads to find mbguard's hooks, project first.
	DoctorFiles func(InstallOptions) []string
	// SessionField names the payload's session id, for messages.
	SessionField string
	// Refresh, when set, runs at every hook call for a repository: what the host reads by
	// itself (Crush's MEMORY.md view) is brought up to date.
	Refresh func(repo.Repo, *config.Config) error

	proto protocol // nil for a host served by a plugin (OpenCode)
}

// HookHost reports whether `mbguard hook <Name>` answers this host.
func (s HostSpec) HookHost() bool { return s.proto != nil }

// hostSpecs is the one list of hosts.
var hostSpecs = []HostSpec{
	{
		Spec: host.Get("claude"), Events: ClaudeEvents, Closes: []string{claudePostTool, claudePostFailure},
		ProjectFiles: []string{".claude/settings.json", ".claude/settings.local.json"},
		Install:      InstallClaude, SkillDir: skillIn(".claude"), ProjectDirEnv: "CLAUDE_PROJECT_DIR", Marker: "hook claude",
		DoctorFiles: func(o InstallOptions) []string {
			return []string{filepath.Join(o.Root, ".claude", "settings.json"), filepath.Join(o.Root, ".claude", "settings.local.json"),
				filepath.Join(o.Home, ".claude", "settings.json")}
		},
		SessionField: "session_id", proto: claudeProto{},
	},
	{
		Spec: host.Get("opencode"), Events: []string{"chat.message", "tool.execute.before", "tool.execute.after",
			"experimental.chat.system.transform", "experimental.session.compacting", "event"},
		Closes:       []string{"tool.execute.after"},
		ProjectFiles: []string{".opencode/plugin/mbguard.js", ".opencode/plugins/mbguard.js"},
		Install:      InstallOpenCode,
		SkillDir: func(o InstallOptions) string {
			if o.Global {
				return filepath.Join(o.ConfigHome, "opencode", "skills", "memory-bank")
			}
			return filepath.Join(o.Root, ".opencode", "skills", "memory-bank")
		},
		Marker: openCodeHeader, SessionField: "sessionID",
	},
	{
		Spec: host.Get("codex"), Events: CodexEvents, Closes: []string{codexPostTool},
		ProjectFiles: []string{".codex/hooks.json", ".codex/config.toml"},
		Install:      InstallCodex, Trust: trustStep("codex"), Marker: "hook codex",
		DoctorFiles: func(o InstallOptions) []string {
			return []string{CodexHooksPath(o), CodexHooksPath(InstallOptions{Global: true, Home: o.Home, CodexHome: o.CodexHome})}
		},
		SessionField: "session_id", proto: codexProto{},
	},
	{
		Spec: host.Get("gemini"), Events: GeminiEvents, Closes: []string{geminiAfterTool},
		ProjectFiles: []string{".gemini/settings.json"},
		Install:      InstallGemini, Trust: trustStep("gemini"), ProjectDirEnv: "GEMINI_PROJECT_DIR", Marker: "hook gemini",
		DoctorFiles: func(o InstallOptions) []string {
			return []string{GeminiSettingsPath(o), GeminiSettingsPath(InstallOptions{Global: true, Home: o.Home})}
		},
		SessionField: "session_id", proto: geminiProto{},
	},
	{
		Spec: host.Get("copilot"), Events: CopilotEvents, Closes: []string{copilotPostTool, copilotPostFailure},
		ProjectFiles: []string{".github/hooks/mbguard.json"},
		Install:      InstallCopilot, Trust: trustStep("copilot"), ProjectDirEnv: "COPILOT_PROJECT_DIR", Marker: "hook copilot",
		DoctorFiles: func(o InstallOptions) []string {
			home := o.CopilotHome
			if home == "" {
				home = filepath.Join(o.Home, ".copilot")
			}
			// Copilot CLI reads every *.json in these folders
			return jsonFiles(filepath.Join(o.Root, ".github", "hooks"), filepath.Join(home, "hooks"))
		},
		SessionField: "sessionId", proto: copilotProto{},
	},
	{
		Spec: host.Get("qwen"), Events: QwenEvents, Closes: []string{qwenPostTool, qwenPostFailure},
		ProjectFiles: []string{".qwen/settings.json"},
		Install:      InstallQwen, SkillDir: skillIn(".qwen"), ProjectDirEnv: "QWEN_PROJECT_DIR", Marker: "hook qwen",
		DoctorFiles: func(o InstallOptions) []string {
			return []string{QwenSettingsPath(o), QwenSettingsPath(InstallOptions{Global: true, Home: o.Home})}
		},
		SessionField: "session_id", proto: qwenProto{},
	},
	{
		Spec: host.Get("crush"), Events: CrushEvents, Closes: []string{crushPreTool}, NoPost: true,
		ProjectFiles: []string{"crush.json", ".crush.json"},
		Install:      InstallCrush, ProjectDirEnv: "CRUSH_PROJECT_DIR", Marker: "hook crush",
		DoctorFiles: func(o InstallOptions) []string {
			return []string{CrushConfigPath(o), filepath.Join(o.Root, ".crush.json"), CrushConfigPath(InstallOptions{Global: true, ConfigHome: o.ConfigHome})}
		},
		SessionField: "session_id", proto: crushProto{}, Refresh: refreshCrushContext,
	},
	{
		Spec: host.Get("droid"), Events: DroidEvents, Closes: []string{claudePostTool, claudeStop},
		ProjectFiles: []string{".factory/settings.json"},
		Install:      InstallDroid, ProjectDirEnv: "FACTORY_PROJECT_DIR", Marker: "hook droid",
		DoctorFiles: func(o InstallOptions) []string {
			return []string{DroidSettingsPath(o), DroidSettingsPath(InstallOptions{Global: true, Home: o.Home})}
		},
		SessionField: "session_id", proto: droidProto{},
	},
	{
		Spec: host.Get("cursor"), Events: CursorEvents, Closes: []string{cursorPostTool, cursorPostFailure, cursorPostShell, cursorAfterEdit, cursorStop},
		ProjectFiles: []string{".cursor/hooks.json"},
		Install:      InstallCursor, Trust: cursorTrust, ProjectDirEnv: "CURSOR_PROJECT_DIR", Marker: "hook cursor",
		DoctorFiles: func(o InstallOptions) []string {
			return []string{CursorHooksPath(o), CursorHooksPath(InstallOptions{Global: true, Home: o.Home})}
		},
		SessionField: "conversation_id", proto: cursorProto{},
	},
	{
		Spec: host.Get("cline"), Events: ClineEvents, Closes: []string{clinePostTool, clineTaskComplete, clineTaskCancel},
		ProjectFiles: clineProjectFiles(),
		Install:      InstallCline, Marker: "hook cline",
		DoctorFiles: func(o InstallOptions) []string {
			return append(ClineHookFiles(o), ClineHookFiles(InstallOptions{Global: true, Home: o.Home})...)
		},
		SessionField: "taskId", proto: clineProto{}, Refresh: refreshClineRules,
	},
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

func trustStep(name string) func(bool) string {
	return func(global bool) string { return TrustStep(name, global) }
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
