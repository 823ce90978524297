package hooks

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"time"

	"github.com/mbguard/mbguard/outcome"
)

// QwenSettingsPath is the settings file install writes for Qwen Code: the project's
// .qwen/settings.json, or ~/.qwen/settings.json with Global.
func QwenSettingsPath(o InstallOptions) string {
	if o.Global {
		return filepath.Join(o.Home, ".qwen", "settings.json")
	}
	return filepath.Join(o.Root, ".qwen", "settings.json")
}

// qwenToolEvents take a tool-name matcher.
var qwenToolEvents = map[string]bool{qwenPreTool: true, qwenPostTool: true, qwenPostFailure: true}

// InstallQwen merges `<binary> hook qwen` into the "hooks" of Qwen Code's settings.json for
// each event in QwenEvents (Claude Code's shape, timeout in milliseconds), keeping the user's
// settings and hooks (see installHookFile).
func InstallQwen(o InstallOptions) ([]Change, error) {
	if o.Global && o.Home == "" {
		return nil, errors.New("--global needs HOME to find ~/.qwen")
	}
	command := o.hookCommand("qwen")
	return installHookFile(o, hookFile{
		path:        QwenSettingsPath,
		globalNeeds: "HOME to find ~/.qwen",
		events:      QwenEvents,
		entry: func(ev string) json.RawMessage {
			return ourGroup(command, int(outcome.HookTimeout/time.Millisecond), qwenToolEvents[ev])
		},
		ours: func(raw json.RawMessage) bool { return isOurGroup(raw, " hook qwen") },
	})
}
