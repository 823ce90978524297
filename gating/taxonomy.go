package gating

import (
	"slices"
	"strings"
)

// ToolClass is what a tool can do to the project's files, the same answer on every host:
// the Go adapters' fail-safe rule, the watcher's outcome check and the OpenCode plugin's own
// fallback all read it (the plugin from a copy generated from ToolClasses).
type ToolClass string

// The tool classes. A tool no table names is ClassUnknown and is treated like a write
// wherever mbguard cannot decide: refused when failing closed, checked after it ran.
const (
	ClassRead    ToolClass = "read"    // cannot change a file itself (reads, searches, a subagent whose own calls are checked)
	ClassWrite   ToolClass = "write"   // writes the files its arguments name
	ClassShell   ToolClass = "shell"   // runs a command line
	ClassUnknown ToolClass = "unknown" // anything else, including tools that act without naming files
)

// readOnlyTools cannot change files themselves, whatever their arguments say. Subagents are
// here: a subagent's own tool calls come through the hooks one by one.
var readOnlyTools = []string{
	"read", "notebookread", "read_file", "view",
	"glob", "grep", "ls", "list", "list_directory", "search_file_content", "read_many_files", "grep_search",
	"codesearch", "lsp", "webfetch", "websearch", "web_search", "google_web_search", "web_fetch",
	"todowrite", "todoread", "write_todos", "exitplanmode", "question", "askuserquestion",
	"tool_search", "view_image", "update_plan",
	"task", "proxy_task", "agent",
}

// ClassifyTool returns the class of a host's tool (any host's spelling; case does not matter).
func ClassifyTool(name string) ToolClass {
	lt := strings.ToLower(name)
	if slices.Contains(readOnlyTools, lt) {
		return ClassRead
	}
	switch toolKinds[lt] {
	case kindRead, kindAgent:
		return ClassRead
	case kindWrite:
		return ClassWrite
	case kindShell:
		return ClassShell
	}
	return ClassUnknown
}

// ToolClasses is every tool name the taxonomy knows, with its class.
func ToolClasses() map[string]ToolClass {
	out := map[string]ToolClass{}
	for _, n := range readOnlyTools {
		out[n] = ClassRead
	}
	for n := range toolKinds {
		if c := ClassifyTool(n); c != ClassUnknown {
			out[n] = c
		}
	}
	return out
}
