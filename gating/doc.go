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
//
// The bank guard also refuses shell writes that take in memory-bank/ without naming it: the
// repository root or an ancestor (rm -rf ., tar x or unzip at the root, git checkout .), and
// globs that can match it (rm -rf *, rm -f */MEMORY.md), except find runs whose -name tests
// admit no Markdown file (find . -name '*.pyc' -delete). redteam_test.go lists the attempts.
//
// Known gaps, left on purpose: a shell write whose target is built at run time from pieces that
// do not spell memory-bank (M=memory; echo > ${M}-bank/x) and writes hidden in files the
// command runs (python x.py, git apply x.patch, make) are judged by the read gate only, not
// refused; the engine has no $HOME, so a ~/… path with a memory-bank segment is refused
// whether or not it is this repository's bank.
package gating
