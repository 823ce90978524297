package hooks

import (
	"encoding/json"
	"time"

	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/outcome"
)

// codexToolEvents take a tool-name matcher.
var codexToolEvents = map[string]bool{codexPreTool: true, codexPostTool: true}

// InstallCodex merges `<binary> hook codex` into Codex CLI's hooks.json (Claude Code's
// shape) for each event in CodexEvents, keeping the user's entries (see installHookFile).
// Codex runs the hooks only once the project and each hook are trusted: see TrustStep.
func InstallCodex(o InstallOptions) ([]Change, error) {
	command := o.hookCommand("codex")
	return installHookFile(o, hookFile{
		host: "codex",
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
	command := o.hookCommand("gemini")
	return installHookFile(o, hookFile{
		host: "gemini",
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
	return installHookFile(o, hookFile{
		host: "copilot",
		base: map[string]json.RawMessage{"version": json.RawMessage(`1`)},
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
// wrote ("" when there is none; host.Spec.Trust). mbguard never changes a host's trust
// settings itself.
func TrustStep(agent string, global bool) string { return host.Get(agent).TrustStep(global) }
