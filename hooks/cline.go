package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mbguard/mbguard/host"
)

// Cline hook events (the CLI `cline` 3.0.65; docs/hosts/cline.md). Each is an executable file
// named after the event in .clinerules/hooks/ or ~/.cline/hooks/; the payload names the event
// by Cline's internal name (hookName), which clineHookNames maps back.
const (
	clineTaskStart    = "TaskStart"
	clineTaskResume   = "TaskResume"
	clinePrompt       = "UserPromptSubmit"
	clinePreTool      = "PreToolUse"
	clinePostTool     = "PostToolUse"
	clineTaskCancel   = "TaskCancel"
	clineTaskComplete = "TaskComplete"
)

// ClineEvents are the hook files `mbguard install --agent cline` writes. Only PreToolUse and
// PostToolUse answer the model: TaskStart, UserPromptSubmit and TaskComplete run detached and
// their output is dropped; they are written so a new message and the task's end still reach
// mbguard's state. Cline 3.0.65 maps PreCompact to no internal event (it never runs), so it
// is not written.
var ClineEvents = host.Get("cline").Events

// clineHookNames maps the payload's hookName (Cline's internal names) onto the event.
var clineHookNames = map[string]string{
	"tool_call": clinePreTool, "tool_result": clinePostTool, "agent_start": clineTaskStart, "agent_resume": clineTaskResume,
	"prompt_submit": clinePrompt, "agent_end": clineTaskComplete, "agent_abort": clineTaskCancel,
}

type clinePayload struct {
	HookName       string   `json:"hookName"`
	TaskID         string   `json:"taskId"`
	WorkspaceRoots []string `json:"workspaceRoots"`
	ToolCall       *struct {
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool_call"`
	ToolResult *struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
	} `json:"tool_result"`
	PreToolUse  *clineToolUse `json:"preToolUse"`
	PostToolUse *clineToolUse `json:"postToolUse"`
	Prompt      *struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit"`
}

// clineToolUse is Cline's older tool block: every parameter a string, objects and arrays
// JSON-encoded.
type clineToolUse struct {
	ToolName   string            `json:"toolName"`
	Parameters map[string]string `json:"parameters"`
	Result     string            `json:"result"`
	Success    *bool             `json:"success"`
}

// clineProto is Cline's hook protocol: the event from the hook file's name (on the command
// line) or the payload's hookName, the task as the session, the first workspace root as cwd.
type clineProto struct{}

func (clineProto) parse(payload []byte, event string) (hookCall, error) {
	var p clinePayload
	if err := json.Unmarshal(payload, &p); err != nil {
		ev := event
		if ev == "" {
			ev = clineHookNames[sniffString(payload, "hookName")]
		}
		c := hookCall{Event: ev, Kind: clineKind(ev), Session: sniffString(payload, "taskId"), Cwd: sniffFirstRoot(payload)}
		c.Tool, _ = clineTool(sniffString(payload, "name"), nil)
		return c, fmt.Errorf("the hook payload is not valid JSON (%v)", shortErr(err))
	}
	ev := clineHookNames[p.HookName]
	if ev == "" {
		ev = event
	}
	c := hookCall{Event: ev, Kind: clineKind(ev), Session: p.TaskID}
	if len(p.WorkspaceRoots) > 0 {
		c.Cwd = p.WorkspaceRoots[0]
	}
	switch c.Kind {
	case callPrompt, callStart:
		// the reply of these events reaches no model: what mbguard has for it waits for the
		// next tool event
		c.Defer = true
		if p.Prompt != nil {
			c.Prompt = p.Prompt.Prompt
		}
	case callPreTool, callPostTool:
		clineToolCall(&p, &c)
	case callOther:
		if ev == "" {
			return c, errors.New(`the hook payload has no known "hookName"`)
		}
	}
	return c, nil
}

// clineToolCall fills in the tool, its arguments and (after the call) its output.
func clineToolCall(p *clinePayload, c *hookCall) {
	var name string
	var input json.RawMessage
	var use *clineToolUse
	switch {
	case c.Kind == callPreTool && p.ToolCall != nil:
		name, input, c.Call = p.ToolCall.Name, p.ToolCall.Input, p.ToolCall.ID
		use = p.PreToolUse
	case c.Kind == callPostTool && p.ToolResult != nil:
		name, input, c.Call = p.ToolResult.Name, p.ToolResult.Input, p.ToolResult.ID
		c.Output = string(p.ToolResult.Output)
		use = p.PostToolUse
	case c.Kind == callPreTool:
		use = p.PreToolUse
	default:
		use = p.PostToolUse
	}
	var args map[string]any
	var bad string
	if len(input) > 0 {
		args, bad = objectArgs(input, "tool_call.input")
	} else if use != nil {
		args = decodeClineParams(use.Parameters)
	} else {
		bad = `the hook payload has no "tool_call"`
	}
	if name == "" && use != nil {
		name = use.ToolName
	}
	c.ArgsErr = bad
	if c.Kind == callPostTool {
		clinePost(c, use, name, args)
	}
	c.Tool, c.Args = clineTool(name, args)
}

// clinePost fills in what a PostToolUse adds: the output, whether the tool failed, and whether
// the call was one mbguard refused.
func clinePost(c *hookCall, use *clineToolUse, name string, args map[string]any) {
	if use != nil {
		if c.Output == "" {
			c.Output = use.Result
		}
		c.Failed = use.Success != nil && !*use.Success
	}
	if c.ArgsErr == "" && clineRefusedRun(name, args, c.Call) {
		// what ran was the refused call's harmless input, so the call claims no change (Cline
		// sends a post even for a refused call)
		c.Kind, c.Denied = callClose, true
	}
}

// clineRefusedRun reports whether args are the harmless input clineHarmless gave the call.
func clineRefusedRun(name string, args map[string]any, call string) bool {
	want := clineHarmless(clineToolName(name), call)
	if name != "editor" && name != "read_files" && name != "run_commands" && name != "search_codebase" {
		return false
	}
	a, _ := json.Marshal(args)
	w, _ := json.Marshal(want)
	return string(a) == string(w)
}

// clineToolName is the engine's name of a Cline tool.
func clineToolName(name string) string {
	t, _ := clineTool(name, nil)
	return t
}

// decodeClineParams turns preToolUse.parameters back into values: a string holding a JSON
// array or object is decoded, any other string stays as it is.
func decodeClineParams(params map[string]string) map[string]any {
	out := make(map[string]any, len(params))
	for k, s := range params {
		out[k] = s
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
			var v any
			if json.Unmarshal([]byte(t), &v) == nil {
				out[k] = v
			}
		}
	}
	return out
}

func clineKind(event string) callKind {
	switch event {
	case clinePreTool:
		return callPreTool
	case clinePostTool:
		return callPostTool
	case clinePrompt:
		return callPrompt
	case clineTaskStart, clineTaskResume:
		return callStart
	case clineTaskComplete, clineTaskCancel:
		return callEnd
	}
	return callOther
}

// clineTool maps Cline's model-facing tools onto the engine's: read_files reads every path it
// lists, editor replaces old_text with new_text (and creates a missing file with new_text, so
// without old_text it is a write), run_commands runs its commands one after another,
// search_codebase searches the workspace for each query (judged as one grep showing context).
func clineTool(name string, args map[string]any) (string, map[string]any) {
	switch name {
	case "read_files":
		return "Read", clineReadArgs(args)
	case "editor":
		return clineEditor(args)
	case "run_commands":
		cmds := clineStrings(args, "commands")
		if len(cmds) == 0 {
			return "Bash", nil // nothing to judge by: a shell call of unknown effect
		}
		return "Bash", map[string]any{"command": strings.Join(cmds, "\n")}
	case "search_codebase":
		if args == nil {
			return "Grep", nil
		}
		var qs []string
		for _, q := range clineStrings(args, "queries") {
			qs = append(qs, "(?:"+clineQuery(q)+")")
		}
		return "Grep", map[string]any{"pattern": strings.Join(qs, "|"), "output_mode": "content", "-C": float64(3)}
	}
	return name, args
}

// clineEditor: the editor replaces old_text with new_text, and creates a missing file with
// new_text whatever old_text says; without old_text it is a write.
func clineEditor(args map[string]any) (string, map[string]any) {
	if args == nil {
		return "Write", nil
	}
	out := map[string]any{"file_path": args["path"]}
	if old, ok := args["old_text"].(string); ok && old != "" {
		out["old_string"], out["new_string"] = old, args["new_text"]
		return "Edit", out
	}
	out["content"] = args["new_text"]
	return "Write", out
}

// clineStrings is args[key] as a list of strings (one string counts as a list of one).
func clineStrings(args map[string]any, key string) []string {
	var out []string
	switch v := args[key].(type) {
	case []any:
		for _, c := range v {
			if s, ok := c.(string); ok {
				out = append(out, s)
			}
		}
	case string:
		out = append(out, v)
	}
	return out
}

// clineQuery is a query as a Go regexp: itself when it compiles, else its literal text.
func clineQuery(q string) string {
	if _, err := regexp.Compile(q); err == nil {
		return q
	}
	return regexp.QuoteMeta(q)
}

// clineReadArgs lists read_files' paths under the engine's names.
func clineReadArgs(args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	var paths []any
	add := func(v any) {
		switch f := v.(type) {
		case string:
			paths = append(paths, f)
		case map[string]any:
			if s, ok := f["path"].(string); ok {
				paths = append(paths, s)
			}
		}
	}
	switch v := args["files"].(type) {
	case []any:
		for _, f := range v {
			add(f)
		}
	default:
		add(v)
	}
	if p, ok := args["path"].(string); ok {
		paths = append(paths, p)
	}
	out := map[string]any{"paths": paths}
	if len(paths) > 0 {
		out["file_path"] = paths[0]
	}
	return out
}

// clineHarmless is the input a refused call runs with instead of its own: one that does
// nothing and succeeds (Cline ends a task after three failed calls in a row) — no files for a
// read, an echo for the shell, a search for nothing — or, for the editor, which creates any
// missing file it is given, {}: the editor's own input check fails, so it never runs.
//
// The input names the call (its id): Cline stops a task after five identical calls in a row,
// and it compares the inputs the calls ran with.
func clineHarmless(tool, call string) map[string]any {
	id := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return -1
	}, call)
	switch tool {
	case "Read":
		return map[string]any{"files": []any{}}
	case "Bash":
		return map[string]any{"commands": []any{"echo '[mbguard] call " + id + " was refused before it ran: the reason follows'"}}
	case "Grep":
		return map[string]any{"queries": []any{"mbguard-refused-search-" + id}}
	}
	return map[string]any{}
}

// render: Cline ignores exit codes and stderr, and `cancel: true` ends the whole task without
// a word to the model, so a refusal replaces the call's input with a harmless one
// (clineHarmless) and tells the model why in contextModification (which Cline adds after the
// tool's result as <hook_context>). After a call the same channel
// carries an undo and any note; the other events' output is not read.
func (clineProto) render(c *hookCall, a *hookAnswer) Reply {
	r := Reply{Event: c.Event, Decision: a.Decision, Stderr: a.Stderr, Context: a.Context, Note: a.Note}
	out := map[string]any{"cancel": false}
	switch c.Kind {
	case callPreTool:
		if a.Deny != "" {
			out["overrideInput"] = clineHarmless(c.Tool, c.Call)
			out["contextModification"] = a.Deny
		} else if a.Context != "" {
			out["contextModification"] = a.Context
		}
	case callPostTool:
		if text := joinText(a.Undone, a.Context); text != "" {
			out["contextModification"] = text
		}
	}
	if len(out) > 1 {
		// nothing to say is no output: Cline lets the call run
		r.Stdout = encodeJSON(out)
	}
	return r
}

// sniffFirstRoot recovers the first of workspaceRoots from a payload that is not valid JSON.
func sniffFirstRoot(raw []byte) string {
	_, rest, ok := strings.Cut(string(raw), `"workspaceRoots"`)
	if !ok {
		return ""
	}
	rest = strings.TrimLeft(rest, " \t\r\n")
	if rest, ok = strings.CutPrefix(rest, ":"); !ok {
		return ""
	}
	rest = strings.TrimLeft(rest, " \t\r\n")
	if rest, ok = strings.CutPrefix(rest, "["); !ok {
		return ""
	}
	return sniffString([]byte(`{"r":`+strings.TrimLeft(rest, " \t\r\n")), "r")
}
