// Package watcher is mbguard's long-lived side: the Service that answers gating requests with
// one engine and one state store (used in-process by per-call hooks, by `mbguard serve --stdio`
// and by the `mbguard watch` socket), the JSON-lines protocol, and the fsnotify loop that notices
// out-of-band changes to memory-bank/.
package watcher
