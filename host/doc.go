// Package host is the one table of the agent hosts mbguard supports: for each host, the facts
// every floor needs — its names, its hook events and the ones that close a call's window, the
// files it reads hooks from (project and user level, which gating protects and doctor reads),
// its trust step, its kernel line, its own names for the shell, write and edit tools, how a
// bank secret is kept from its model, whether it runs tools one at a time, what it does when a
// hook fails, and how it is tested end to end.
//
// It sits on the bottom floor and imports only the standard library, so gating, outcome,
// watcher, hooks and cmd all read the same entry; a fact about a host written anywhere else is a
// duplicate. What is protocol (parsing a payload, rendering a reply, writing a hook file) stays
// in hooks/<host>.go. Adding a host is one Spec here, one protocol file in hooks and one e2e
// folder (docs/architecture.md).
package host
