package gating

import (
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
}

// action is a tool call normalised across hosts.
type action struct {
	kind         actionKind
	tool         string // lower-cased tool name
	reads        []canonPath
	writes       []writeTarget
	agent        string // subagent type of a task/Agent call
	cmd          string // shell command
	cwd          string // absolute directory the shell command starts in
	shellUnknown bool   // the shell writes somewhere undeterminable
	tooDeep      bool   // batches nested deeper than maxBatchDepth: not unpacked
	subs         []action
}

func (a *action) isWrite() bool {
	return len(a.writes) > 0 || a.shellUnknown
}

// toolKinds maps lower-cased tool names of both hosts onto kinds; OpenCode and Claude Code
// spell the same tools differently only in case (read/Read, task/Task), so one table serves.
var toolKinds = map[string]actionKind{
	"read": kindRead, "notebookread": kindRead,
	"write": kindWrite, "edit": kindWrite, "multiedit": kindWrite, "notebookedit": kindWrite,
	"apply_patch": kindWrite, "patch": kindWrite,
	"bash": kindShell, "shell": kindShell,
	"task": kindAgent, "proxy_task": kindAgent, "agent": kindAgent,
	"batch": kindBatch,
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
		a.cmd = str(args, "command", "cmd")
		a.cwd = slashClean(absolute(".", cwd, slashClean(fx.Root())))
		if wd := str(args, "workdir", "cwd"); wd != "" {
			a.cwd = absolute(wd, a.cwd, slashClean(fx.Root()))
		}
		r := classifyShell(a.cmd, a.cwd)
		for _, p := range r.reads {
			a.reads = append(a.reads, canon(p, a.cwd, fx))
		}
		for _, w := range r.writes {
			a.writes = append(a.writes, writeTarget{canonPath: canon(w.path, a.cwd, fx), op: opShell,
				shellExact: w.exact, shellTree: w.tree, shellNoMD: w.noMD})
		}
		a.shellUnknown = r.unknown
	case kindAgent:
		a.agent = str(args, "subagent_type", "subagentType", "agent")
	case kindBatch:
		if depth >= maxBatchDepth {
			// Hosts do not nest batches; a payload that does is hiding something, so it is
			// judged like a shell command with an undeterminable write rather than as nothing
			// (and the bank guard refuses it: tooDeep).
			a.kind, a.shellUnknown, a.tooDeep = kindShell, true, true
			return a
		}
		calls, _ := args["tool_calls"].([]any)
		for _, c := range calls {
			m, _ := c.(map[string]any)
			if m == nil {
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
	return a
}

func parseWrite(a *action, args map[string]any, cwd string, fx Facts) {
	switch a.tool {
	case "apply_patch", "patch":
		text := str(args, "patchText", "patch_text", "patch", "input", "diff")
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
		return
	case "notebookedit":
		content := str(args, "new_source", "newSource")
		forPaths(args, func(p string) {
			a.writes = append(a.writes, writeTarget{canonPath: canon(p, cwd, fx), op: opPartial, content: content})
		})
		return
	}
	var specs []editSpec
	op := opWrite
	content := str(args, "content")
	switch a.tool {
	case "edit":
		op = opEdit
		specs = []editSpec{edit(args)}
	case "multiedit":
		op = opEdit
		edits, _ := args["edits"].([]any)
		perFile := map[string][]editSpec{}
		var order []string
		for _, x := range edits {
			m, _ := x.(map[string]any)
			if m == nil {
				continue
			}
			if p := str(m, "filePath", "file_path", "path"); p != "" {
				// some hosts put a path on each edit: those edits belong to that file
				if _, seen := perFile[p]; !seen {
					order = append(order, p)
				}
				perFile[p] = append(perFile[p], edit(m))
				continue
			}
			specs = append(specs, edit(m))
		}
		for _, p := range order {
			a.writes = append(a.writes, writeTarget{canonPath: canon(p, cwd, fx), op: opEdit, edits: perFile[p]})
		}
	}
	forPaths(args, func(p string) {
		a.writes = append(a.writes, writeTarget{canonPath: canon(p, cwd, fx), op: op, content: content, edits: specs})
	})
}

func edit(m map[string]any) editSpec {
	all, _ := m["replaceAll"].(bool)
	if !all {
		all, _ = m["replace_all"].(bool)
	}
	return editSpec{old: str(m, "oldString", "old_string"), new: str(m, "newString", "new_string"), all: all}
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

// mentionsBank reports whether a command names memory-bank/ as a path word, not as part of
// another name such as my-memory-bank-notes.
func mentionsBank(cmd string) bool {
	for i := 0; ; {
		j := strings.Index(cmd[i:], bankDir)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(bankDir)
		before := at == 0 || strings.IndexByte(" \t'\"/=(;|&<>", cmd[at-1]) >= 0
		after := end == len(cmd) || strings.IndexByte(" \t'\"/);|&<>", cmd[end]) >= 0
		if before && after {
			return true
		}
		i = end
	}
}
