// Package opencode holds the end-to-end tests that drive the real OpenCode binary headless
// against a scripted fake model, with mbguard's plugin installed by `mbguard install`.
package opencode
