package hooks

import (
	"encoding/json"
	"time"

	"github.com/mbguard/mbguard/outcome"
)

// qwenToolEvents take a tool-name matcher.
var qwenToolEvents = map[string]bool{qwenPreTool: true, qwenPostTool: true, qwenPostFailure: true}

// InstallQwen merges `<binary> hook qwen` into the "hooks" of Qwen Code's settings.json for
// each event in QwenEvents (Claude Code's shape, timeout in milliseconds), keeping the user's
// settings and hooks (see installHookFile).
func InstallQwen(o InstallOptions) ([]Change, error) {
	command := o.hookCommand("qwen")
	return installHookFile(o, hookFile{
		host: "qwen",
		entry: func(ev string) json.RawMessage {
			return ourGroup(command, int(outcome.HookTimeout/time.Millisecond), qwenToolEvents[ev])
		},
		ours: func(raw json.RawMessage) bool { return isOurGroup(raw, " hook qwen") },
	})
}
