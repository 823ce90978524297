// Package kilo holds the end-to-end tests that drive the real Kilo Code CLI headless against
// the scripted fake model, with mbguard's OpenCode plugin installed for it by `mbguard install
// --agent kilo` (Kilo Code keeps OpenCode's plugin API).
package kilo
