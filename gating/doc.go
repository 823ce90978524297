// Package gating is mbguard's pure decision engine (SPEC §3): host adapters turn agent hook
// payloads into Events, Engine.Handle turns each Event into a Decision and updates the
// session's State.
//
// The package does no I/O and reads no clock or environment, so that every rule can be
// replayed in tests and fuzzed: the time arrives in Event.Now and everything it must know about
// the file system (file contents, symlinks, case folding, secrets) arrives through Facts.
// depcheck_test.go keeps it that way.
//
// Gates, strongest first: the memory-bank write guard (always on), the post-compaction recovery
// gate, the read-before-write gate and the Doc-First gate. The strictest verdict wins; ties go
// to the stronger gate, and its message names the one next step.
package gating
