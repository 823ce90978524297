package gating

import (
	"maps"
	"slices"
	"strings"
)

type actionKind int

const (
	kindOther actionKind = iota
	kindRead
	kindWrite
	kindShell
	kindAgent
	kindBatch
)

type writeOp int

const (
	opWrite    writeOp = iota // whole new content
	opEdit                    // string replacements on the current content
	opPatch                   // hunks applied to the current content (of src for a move)
	opDelete                  // removal (patch Delete File)
	opMoveFrom                // the source of a move: the file disappears
	opPartial                 // a change whose result cannot be derived (notebook cell)
	opShell                   // a shell command writes here; the content is unknowable
	opOpaque                  // a write tool or an unknown tool names this path, but its content cannot be read
)

type editSpec struct {
	old, new string
	all      bool
}

// writeTarget is one file a tool call would change.
type writeTarget struct {
	canonPath
	op      writeOp
	content string     // opWrite, opPartial: the text written
	edits   []editSpec // opEdit
	patch   *PatchFile // opPatch
	src     string     // opPatch on a move: canonical source path whose content the hunks apply to
	// opShell: a literal path (not a run-time word's prefix), a directory written at any depth,
	// and a tree write that touches no Markdown file
	shellExact, shellTree, shellNoMD bool
	shellExclude                     string // the same command leaving the bank out (prettier … '!memory-bank/**')
	shellOp                          string
}

// action is a tool call normalised across hosts.
type action struct {
	kind         actionKind
	tool         string // lower-cased tool name
	reads        []canonPath
	writes       []writeTarget
	agent        string // subagent type of a task/Agent call
	cmd          string // shell command
	named        string // cmd without the words it only reads
	cwd          string // absolute directory the shell command starts in
	shellUnknown bool   // the shell writes somewhere undeterminable
	person       string // an mbguard command only the person may run ("mbguard uninstall")
	tooDeep      bool   // batches nested deeper than maxBatchDepth: not unpacked
	subs         []action
	// bad says why a write call's arguments could not be understood (a path that is a number,
	// content that is an object …); such a call is a write of unknown target, never nothing.
	bad string
	// unknownTool is a tool no host table names whose arguments name a memory-bank path.
	unknownTool bool
}

func (a *action) isWrite() bool {
	// the person's mbguard commands write mbguard's own state and hooks
	return len(a.writes) > 0 || a.shellUnknown || a.bad != "" || a.person != ""
}

// toolKinds maps lower-cased tool names of both hosts onto kinds; OpenCode and Claude Code
// spell the same tools differently only in case (read/Read, task/Task), so one table serves.
//
// Codex (apply_patch, exec_command), Gemini CLI (write_file, replace, run_shell_command,
// read_file) and Copilot CLI (create, edit, view, bash) share it too.
var toolKinds = map[string]actionKind{
	"read": kindRead, "notebookread": kindRead, "read_file": kindRead, "view": kindRead,
	"write": kindWrite, "edit": kindWrite, "multiedit": kindWrite, "notebookedit": kindWrite,
	"apply_patch": kindWrite, "patch": kindWrite, "write_file": kindWrite, "replace": kindWrite, "create": kindWrite,
	"bash": kindShell, "shell": kindShell, "run_shell_command": kindShell, "exec_command": kindShell, "powershell": kindShell,
	"task": kindAgent, "proxy_task": kindAgent, "agent": kindAgent,
	"batch": kindBatch,
}

// ShellTool reports whether tool is a host's shell tool (bash, run_shell_command, Claude
// Code's PowerShell …), the calls the kernel line runs under `mbguard jail`.
func ShellTool(tool string) bool { return toolKinds[strings.ToLower(tool)] == kindShell }

// PowerShellTool reports a shell tool whose commands are PowerShell, not bash (Claude Code's
// PowerShell tool on Windows): they are read by shell.ClassifyPowerShell, and never wrapped
// in a bash command line.
func PowerShellTool(tool string) bool { return strings.EqualFold(tool, "powershell") }

// pathlessTools act without naming project files (a shell already running, a skill, a
// slash command): their arguments are not walked for memory-bank paths, though they are not
// ClassRead — what they set off is checked after it ran.
var pathlessTools = map[string]bool{
	"bashoutput": true, "killshell": true, "killbash": true, "slashcommand": true, "skill": true,
	"save_memory": true, "write_stdin": true,
}

// maxBatchDepth bounds nested batch unpacking: a hostile payload must not recurse forever.
const maxBatchDepth = 3

func parseAction(tool string, args map[string]any, cwd string, fx Facts, depth int) action {
	lt := strings.ToLower(tool)
	a := action{kind: toolKinds[lt], tool: lt}
	switch a.kind {
	case kindRead:
		forPaths(args, func(p string) { a.reads = append(a.reads, canon(p, cwd, fx)) })
	case kindWrite:
		parseWrite(&a, args, cwd, fx)
	case kindShell:
		parseShell(&a, args, cwd, fx)
	case kindAgent:
		a.agent = str(args, "subagent_type", "subagentType", "agent")
	case kindOther:
		parseUnknownTool(&a, args, cwd, fx)
	case kindBatch:
		parseBatch(&a, args, cwd, fx, depth)
	}
	return a
}

// parseShell reads a shell call: its command and working directory, and what the classifier
// says the command reads and writes.
func parseShell(a *action, args map[string]any, cwd string, fx Facts) {
	cmd, ok := args["command"]
	if !ok {
		cmd, ok = args["cmd"]
	}
	if c, isStr := cmd.(string); isStr {
		a.cmd = c
	} else {
		// A shell call whose command cannot be read runs something nobody can judge.
		a.bad = "its command is " + jsonType(cmd, ok) + ", not a string"
		a.shellUnknown = true
		return
	}
	a.cwd = slashClean(absolute(".", cwd, slashClean(fx.Root())))
	if wd := str(args, "workdir", "cwd", "dir_path", "directory"); wd != "" {
		a.cwd = absolute(wd, a.cwd, slashClean(fx.Root()))
	}
	var r shellResult
	if PowerShellTool(a.tool) {
		r = classifyPowerShell(a.cmd, a.cwd)
	} else {
		r = withRuns(classifyShell(a.cmd, a.cwd, fx), a.cwd, fx, 0)
	}
	a.named = r.named
	for _, p := range r.reads {
		a.reads = append(a.reads, canon(p, a.cwd, fx))
	}
	for _, w := range r.writes {
		a.writes = append(a.writes, writeTarget{canonPath: canon(w.path, a.cwd, fx), op: opShell,
			shellExact: w.exact, shellTree: w.tree, shellNoMD: w.noMD, shellOp: w.op, shellExclude: w.exclude})
	}
	a.shellUnknown = r.unknown
	if len(r.person) > 0 {
		a.person = r.person[0]
	}
}

// parseBatch reads a batch call's calls, each parsed as a call of its own.
func parseBatch(a *action, args map[string]any, cwd string, fx Facts, depth int) {
	if depth >= maxBatchDepth {
		// Hosts do not nest batches; a payload that does is hiding something, so it is
		// judged like a shell command with an undeterminable write rather than as nothing
		// (and the bank guard refuses it: tooDeep).
		a.kind, a.shellUnknown, a.tooDeep = kindShell, true, true
		return
	}
	raw, has := args["tool_calls"]
	calls, isList := raw.([]any)
	if !isList {
		// a batch whose calls cannot be read runs something nobody can judge
		a.bad = "its tool_calls is " + jsonType(raw, has) + ", not a list of calls"
		return
	}
	for _, c := range calls {
		m, _ := c.(map[string]any)
		if m == nil {
			a.bad = "an entry of tool_calls is " + jsonType(c, true) + ", not a call"
			continue
		}
		name, _ := m["tool"].(string)
		params, _ := m["parameters"].(map[string]any)
		if params == nil {
			params, _ = m["args"].(map[string]any)
		}
		a.subs = append(a.subs, parseAction(name, params, cwd, fx, depth+1))
	}
}

func parseWrite(a *action, args map[string]any, cwd string, fx Facts) {
	if args == nil {
		a.bad = "its arguments (tool_input) are missing or not a JSON object"
		return
	}
	if k, v := badPath(args); k != "" {
		a.bad = k + " is " + v + ", not a string"
		return
	}
	var specs []editSpec
	op := opWrite
	var content string
	switch a.tool {
	case "apply_patch", "patch":
		parsePatchWrite(a, args, cwd, fx)
		return
	case "notebookedit":
		parseNotebookWrite(a, args, cwd, fx)
		return
	case "edit", "replace":
		op = opEdit
		ed, why := edit(args)
		if why != "" {
			a.bad = why
		}
		specs = []editSpec{ed}
	case "multiedit":
		op = opEdit
		specs = parseMultiEdit(a, args, cwd, fx)
	default: // write, write_file, create
		var why string
		content, why = strArg(args, "content", "file_text", "fileText", "text")
		if why != "" {
			a.bad = "its content " + why
		}
	}
	n := len(a.writes)
	forPaths(args, func(p string) {
		a.writes = append(a.writes, writeTarget{canonPath: canon(p, cwd, fx), op: op, content: content, edits: specs})
	})
	if len(a.writes) == n && n == 0 {
		a.bad = "it names no file"
	}
	if a.bad != "" {
		// The paths are known, the change is not: judge them as opaque writes.
		for i := range a.writes {
			a.writes[i].op = opOpaque
		}
	}
}

// parsePatchWrite reads the files a patch tool changes, each with what the patch does to it.
func parsePatchWrite(a *action, args map[string]any, cwd string, fx Facts) {
	text, why := strArg(args, "patchText", "patch_text", "patch", "input", "diff", "command")
	if why != "" {
		a.bad = "its patch text " + why
		return
	}
	for _, f := range ParsePatch(text) {
		f := f
		if f.Path == "" {
			continue
		}
		from := canon(f.Path, cwd, fx)
		switch f.Op {
		case PatchAdd:
			a.writes = append(a.writes, writeTarget{canonPath: from, op: opWrite, content: f.Added})
		case PatchUpdate:
			a.writes = append(a.writes, writeTarget{canonPath: from, op: opPatch, patch: &f, src: from.rel})
		case PatchDelete:
			a.writes = append(a.writes, writeTarget{canonPath: from, op: opDelete})
		case PatchMove:
			a.writes = append(a.writes, writeTarget{canonPath: from, op: opMoveFrom})
			if f.To != "" {
				a.writes = append(a.writes, writeTarget{canonPath: canon(f.To, cwd, fx), op: opPatch, patch: &f, src: from.rel})
			}
		}
	}
	if len(a.writes) == 0 && strings.TrimSpace(text) != "" && namesPath(text, bankDir) {
		// A patch we cannot read that names memory-bank/ may still be applied by the host.
		a.bad = "its patch names memory-bank/ in a form mbguard cannot read"
	}
}

// parseNotebookWrite reads a notebook cell edit: a part of the file, whose whole is not known.
func parseNotebookWrite(a *action, args map[string]any, cwd string, fx Facts) {
	content := str(args, "new_source", "newSource")
	if v, ok := args["new_source"]; ok && v != nil {
		if _, isStr := v.(string); !isStr {
			a.bad = "new_source is " + jsonType(v, true) + ", not a string"
		}
	}
	n := len(a.writes)
	forPaths(args, func(p string) {
		a.writes = append(a.writes, writeTarget{canonPath: canon(p, cwd, fx), op: opPartial, content: content})
	})
	if len(a.writes) == n {
		a.bad = "it names no file"
	}
}

// parseMultiEdit returns the edits of a multi-edit call for the file the call names; edits that
// name their own file are added to a as writes of that file.
func parseMultiEdit(a *action, args map[string]any, cwd string, fx Facts) []editSpec {
	edits, ok := args["edits"].([]any)
	if !ok {
		v, has := args["edits"]
		a.bad = "edits is " + jsonType(v, has) + ", not a list of edits"
	}
	var specs []editSpec
	perFile := map[string][]editSpec{}
	var order []string
	for _, x := range edits {
		m, _ := x.(map[string]any)
		if m == nil {
			a.bad = "an entry of edits is " + jsonType(x, true) + ", not an edit"
			continue
		}
		ed, why := edit(m)
		if why != "" {
			a.bad = why
		}
		if p := str(m, "filePath", "file_path", "path"); p != "" {
			// some hosts put a path on each edit: those edits belong to that file
			if _, seen := perFile[p]; !seen {
				order = append(order, p)
			}
			perFile[p] = append(perFile[p], ed)
			continue
		}
		specs = append(specs, ed)
	}
	for _, p := range order {
		a.writes = append(a.writes, writeTarget{canonPath: canon(p, cwd, fx), op: opEdit, edits: perFile[p]})
	}
	return specs
}

// edit reads one replacement in any host's spelling; why says what was wrong with it.
func edit(m map[string]any) (editSpec, string) {
	all, _ := m["replaceAll"].(bool)
	if !all {
		all, _ = m["replace_all"].(bool)
	}
	if !all {
		all, _ = m["allow_multiple"].(bool)
	}
	old, why := strArg(m, "oldString", "old_string", "old_str")
	if why != "" {
		return editSpec{}, "its old text " + why
	}
	nw, why := strArg(m, "newString", "new_string", "new_str")
	if why == "is missing" {
		// some editors' schemas let a deletion leave the new text out; the result is still
		// computed and judged
		nw, why = "", ""
	}
	if why != "" {
		return editSpec{}, "its new text " + why
	}
	return editSpec{old: old, new: nw, all: all}, ""
}

// strArg returns the first of keys present in m; why is non-empty when none is present or the
// one present is not a string.
func strArg(m map[string]any, keys ...string) (s, why string) {
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		if s, isStr := v.(string); isStr {
			return s, ""
		}
		return "", "is " + jsonType(v, true) + ", not a string"
	}
	return "", "is missing"
}

// badPath reports a path argument that is present but not a string (file_path: 42).
func badPath(args map[string]any) (key, typ string) {
	for _, k := range pathKeys {
		if v, ok := args[k]; ok {
			if _, isStr := v.(string); !isStr {
				return k, jsonType(v, true)
			}
		}
	}
	if v, ok := args["paths"]; ok {
		ps, isList := v.([]any)
		if !isList {
			return "paths", jsonType(v, true)
		}
		for _, p := range ps {
			if _, isStr := p.(string); !isStr {
				return "an entry of paths", jsonType(p, true)
			}
		}
	}
	return "", ""
}

// jsonType names a decoded JSON value's type in JSON's words, never Go's.
func jsonType(v any, present bool) string {
	if !present {
		return "missing"
	}
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "true or false"
	case float64, int, int64, float32, int32, uint, uint64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "of an unexpected type"
}

// readToolWords mark an unknown tool (an MCP server's, a new host's) as one that only reads.
var readToolWords = []string{"read", "get", "list", "search", "view", "grep", "glob", "find", "stat", "show",
	"fetch", "query", "describe", "info", "cat", "head", "tail", "diff", "status", "log", "tree", "open_file",
	"lsp", "diagnostic", "hover", "symbol", "definition", "reference", "exists", "inspect", "analy", "count"}

// parseUnknownTool treats a tool no table names as a write of every memory-bank path its
// arguments carry, unless its name says it reads: an MCP server's write_file or move_file
// must not slip past the bank guard because mbguard has never heard of it.
func parseUnknownTool(a *action, args map[string]any, cwd string, fx Facts) {
	if pathlessTools[a.tool] || ClassifyTool(a.tool) == ClassRead {
		return // a todo list may well mention memory-bank/
	}
	reads := slices.ContainsFunc(readToolWords, func(w string) bool { return strings.Contains(a.tool, w) })
	budget := 64
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if budget <= 0 || depth > 3 {
			return
		}
		budget--
		switch x := v.(type) {
		case string:
			if x == "" || len(x) > 4096 || strings.ContainsAny(x, "\n\r") {
				return
			}
			c := canon(x, cwd, fx)
			if !c.touchesBank() {
				return
			}
			if reads {
				a.reads = append(a.reads, c)
				return
			}
			a.unknownTool = true
			a.writes = append(a.writes, writeTarget{canonPath: c, op: opOpaque})
		case []any:
			for _, y := range x {
				walk(y, depth+1)
			}
		case map[string]any:
			// in key order: the same call must be decided, and named, the same way twice
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], depth+1)
			}
		}
	}
	walk(args, 0)
}

// pathKeys are the argument names that carry a file path in either host.
var pathKeys = []string{"filePath", "file_path", "path", "notebook_path", "notebookPath", "filepath"}

// forPaths calls f for every path an argument map carries, each distinct raw path once.
func forPaths(args map[string]any, f func(string)) {
	var seen [8]string
	n := 0
	emit := func(p string) {
		if p == "" {
			return
		}
		for _, s := range seen[:n] {
			if s == p {
				return
			}
		}
		if n < len(seen) {
			seen[n] = p
			n++
		}
		f(p)
	}
	for _, k := range pathKeys {
		if s, ok := args[k].(string); ok {
			emit(s)
		}
	}
	if ps, ok := args["paths"].([]any); ok {
		for _, p := range ps {
			if s, ok := p.(string); ok {
				emit(s)
			}
		}
	}
}

func str(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	return ""
}

// applyEdits computes an edit's result the way the edit tools do; ok is false when an
// oldString is not found (the tool would fail or fall back to fuzzy matching we cannot mirror).
func applyEdits(old string, edits []editSpec) (string, bool) {
	s := old
	for _, ed := range edits {
		if ed.old == "" {
			if s == "" {
				s = ed.new // OpenCode's edit creates a file from an empty oldString
				continue
			}
			return "", false
		}
		if !strings.Contains(s, ed.old) {
			return "", false
		}
		if ed.all {
			s = strings.ReplaceAll(s, ed.old, ed.new)
		} else {
			s = strings.Replace(s, ed.old, ed.new, 1)
		}
	}
	return s, true
}
