package hooks

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
)

// openCodePlugin is the plugin asset: plain JavaScript, no dependencies, one exported function.
//
//go:embed opencode/mbguard.js
var openCodePlugin string

// OpenCodePluginHash identifies the embedded plugin's code; installed files carry it in their
// header so `mbguard doctor` can tell a current install from a stale one.
func OpenCodePluginHash() string { return shortHash(openCodePlugin) }

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
