// Package bank is the memory bank's own model, pure and shared: the layout (legacy, v7.0,
// v7.1), the block markers (fence-aware: markers inside fenced code or inline code are text)
// and the template version. scanner, lifecycle, gating, hooks and watcher all read the bank
// through this one parser.
package bank
