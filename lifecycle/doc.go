// Package lifecycle creates, upgrades and migrates memory banks: init scaffolds the v7.1
// layout, Upgrade brings an older MEMORY.md to the current template in place (append-only),
// and Migrate turns a legacy bank into v7.1 in two commits — pure renames first, so git keeps
// the history, then the new MEMORY.md — with a journal that lets a killed run resume or roll back.
package lifecycle
