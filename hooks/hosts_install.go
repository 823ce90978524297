package hooks

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"time"

	"github.com/mbguard/mbguard/outcome"
)

// CodexHooksPath is the hook file install writes for Codex CLI: the project's
// .codex/hooks.json, or $CODEX_HOME/hooks.json (~/.codex by default) with Global.
func CodexHooksPath(o InstallOptions) string {
	if o.Global {
		home := o.CodexHome
		if home == "" {
			home = filepath.Join(o.Home, ".codex")
		}
		return filepath.Join(home, "hooks.json")
	}
	return filepath.Join(o.Root, ".codex", "hooks.json")
}

// codexToolEvents take a tool-name matcher.
var codexToolEvents = map[string]bool{codexPreTool: true, codexPostTool: true}

// InstallCodex merges `<binary> hook codex` into Codex CLI's hooks.json (Claude Code's
// shape) for each event in CodexEvents, keeping the user's entries (see installHookFile).
// Codex runs the hooks only once the project and each hook are trusted: see TrustStep.
func InstallCodex(o InstallOptions) ([]Change, error) {
	if o.Global && o.Home == "" && o.CodexHome == "" {
		return nil, errors.New("--global needs CODEX_HOME or HOME to find ~/.codex")
	}
	command := o.hookCommand("codex")
	return installHookFile(o, hookFile{
		path:        CodexHooksPath,
		globalNeeds: "CODEX_HOME or HOME to find ~/.codex",
		events:      CodexEvents,
		entry: func(ev string) json.RawMessage {
			timeout := int(outcome.HookTimeout / time.Second)
			if ev == codexSessionEnd {
				timeout = 3 // Codex clamps SessionEnd hooks to 3 s and warns about more
			}
			return ourGroup(command, timeout, codexToolEvents[ev])
		},
		ours: func(raw json.RawMessage) bool { return isOurGroup(raw, " hook codex") },
	})
}

// GeminiSettingsPath is the settings file install writes for Gemini CLI: the project's
// .gemini/settings.json, or ~/.gemini/settings.json with Global.
func GeminiSettingsPath(o InstallOptions) string {
	if o.Global {
		return filepath.Join(o.Home, ".gemini", "settings.json")
	}
	return filepath.Join(o.Root, ".gemini", "settings.json")
}

type geminiHook struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"` // milliseconds
}

type geminiGroup struct {
	Matcher string       `json:"matcher,omitempty"`
	Hooks   []geminiHook `json:"hooks"`
}

// InstallGemini merges `<binary> hook gemini` into the "hooks" of Gemini CLI's settings.json
// for each event in GeminiEvents (no matcher: every tool; timeout in milliseconds), keeping
// the user's settings and hooks (see installHookFile). PreCompress is left out: Gemini CLI
// fires it before every model call.
func InstallGemini(o InstallOptions) ([]Change, error) {
	if o.Global && o.Home == "" {
		return nil, errors.New("--global needs HOME to find ~/.gemini")
	}
	command := o.hookCommand("gemini")
	return installHookFile(o, hookFile{
		path:        GeminiSettingsPath,
		globalNeeds: "HOME to find ~/.gemini",
		events:      GeminiEvents,
		entry: func(string) json.RawMessage {
			b, _ := json.Marshal(geminiGroup{Hooks: []geminiHook{{Name: "mbguard", Type: "command", Command: command, Timeout: int(outcome.HookTimeout / time.Millisecond)}}})
			return b
		},
		ours: func(raw json.RawMessage) bool {
			var g geminiGroup
			if json.Unmarshal(raw, &g) != nil || len(g.Hooks) == 0 {
				return false
			}
			for _, h := range g.Hooks {
				if h.Type != "command" || !isOurCommand(h.Command, " hook gemini") {
					return false
				}
			}
			return true
		},
	})
}

// CopilotHooksPath is the hook file install writes for Copilot CLI: the project's
// .github/hooks/mbguard.json, or with Global the user-level $COPILOT_HOME/hooks/mbguard.json
// (~/.copilot/hooks/ by default), which Copilot CLI 1.0.102 loads for every project.
func CopilotHooksPath(o InstallOptions) string {
	if o.Global {
		home := o.CopilotHome
		if home == "" {
			home = filepath.Join(o.Home, ".copilot")
		}
		return filepath.Join(home, "hooks", "mbguard.json")
	}
	return filepath.Join(o.Root, ".github", "hooks", "mbguard.json")
}

type copilotHook struct {
	Type       string `json:"type"`
	Bash       string `json:"bash,omitempty"`
	PowerShell string `json:"powershell,omitempty"`
	TimeoutSec int    `json:"timeoutSec,omitempty"`
}

// InstallCopilot writes .github/hooks/mbguard.json (version 1, camelCase events) with one
// `<binary> hook copilot <event>` command per event in CopilotEvents — Copilot CLI does not
// name the event in the payload — keeping any entries someone else added to that file.
func InstallCopilot(o InstallOptions) ([]Change, error) {
	if o.Global && o.Home == "" && o.CopilotHome == "" {
		return nil, errors.New("--global needs COPILOT_HOME or HOME to find ~/.copilot")
	}
	return installHookFile(o, hookFile{
		path:        CopilotHooksPath,
		globalNeeds: "COPILOT_HOME or HOME to find ~/.copilot",
		events:      CopilotEvents,
		base:        map[string]json.RawMessage{"version": json.RawMessage(`1`)},
		entry: func(ev string) json.RawMessage {
			b, _ := json.Marshal(copilotHook{Type: "command", Bash: o.hookCommand("copilot", ev), TimeoutSec: int(outcome.HookTimeout / time.Second)})
			return b
		},
		ours: func(raw json.RawMessage) bool {
			var h copilotHook
			if json.Unmarshal(raw, &h) != nil || h.Type != "command" {
				return false
			}
			for _, ev := range CopilotEvents {
				if isOurCommand(h.Bash, " hook copilot "+ev) {
					return true
				}
			}
			return isOurCommand(h.Bash, " hook copilot")
		},
	})
}

// TrustStep is the one step a user must take before agent's host runs the hooks install
// wrote ("" when there is none). mbguard never changes a host's trust settings itself.
func TrustStep(agent string, global bool) string {
	switch agent {
	case "codex":
		if global {
			return "Codex skips hooks it has not trusted, silently: start `codex`, open the hook review and trust mbguard's hooks (Codex records each as hooks.state.<key>.trusted_hash in $CODEX_HOME/config.toml; changing the command needs a new review)."
		}
		return "Codex skips hooks in an untrusted project, silently: start `codex` in this project, trust the project, then trust mbguard's hooks in the hook review (recorded as hooks.state.<key>.trusted_hash in $CODEX_HOME/config.toml)."
	case "gemini":
		if global {
			return ""
		}
		return "Gemini CLI loads project hooks only in a trusted folder: start `gemini` in this project and trust the folder when it asks."
	case "copilot":
		if global {
			return ""
		}
		return "Copilot CLI skips repository hooks in a folder it does not trust, silently: start `copilot` in this project and trust the folder when it asks (`--trust-folder` trusts it for one run only)."
	case "qwen":
		if global {
			return ""
		}
		return "Qwen Code runs no project hook in an untrusted folder when its folder trust is on (security.folderTrust.enabled; off by default): start `qwen` in this project and trust the folder if it asks."
	case "cursor":
		return cursorTrust(global)
	}
	return ""
}
