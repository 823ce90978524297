package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/outcome"
)

// claudeToolEvents take a tool-name matcher; the others fire without one.
var claudeToolEvents = map[string]bool{claudePreTool: true, claudePreSkillShell: true, claudePostTool: true, claudePostFailure: true}

// InstallClaude merges mbguard's hook entries into Claude Code's settings.json: one
// `<binary> hook claude` command for each event in ClaudeEvents. The user's own hooks, other
// keys and their order are kept; entries are recognised as mbguard's by their command, so a
// second run replaces only those and Uninstall removes only those. Invalid JSON is refused
// without touching the file. The file is written atomically.
func InstallClaude(o InstallOptions) ([]Change, error) {
	command := o.hookCommand("claude")
	if o.HTTPPort > 0 && !o.Uninstall {
		return installHookFile(o, claudeHTTPFile(o, command))
	}
	return installHookFile(o, hookFile{
		host: "claude",
		entry: func(ev string) json.RawMessage {
			// A guard that cannot run (binary gone, timeout) refuses the call: breaking the
			// hook command must not switch the guard off. Elsewhere a failed hook must never
			// hold up a prompt or a compaction.
			onFailure := "continue"
			if claudeGuardEvents[ev] {
				onFailure = "block"
			}
			if !claudeTakesOnFailure(o.ClaudeVersion) {
				onFailure = "" // an older Claude Code may drop a settings file with a key it does not know
			}
			// the post check's deadline (outcome.PostDeadline) derives from this timeout
			return claudeEntry(command, int(outcome.HookTimeout/time.Second), claudeToolEvents[ev], onFailure)
		},
		ours: func(raw json.RawMessage) bool { return isOurGroup(raw, " hook claude") },
	})
}

// hookFileAt returns where install writes the named host's hook file, for readTarget.
func hookFileAt(name string) func(InstallOptions) string {
	return func(o InstallOptions) string { return HookFilePath(name, o) }
}

// hookFile describes one host's JSON hook file: the host (whose table entry names the file and
// the events mbguard registers), the array element it adds per event and how it recognises its
// own elements.
type hookFile struct {
	host  string
	entry func(event string) json.RawMessage
	ours  func(raw json.RawMessage) bool
	// base is the top-level members a new file starts with (Copilot's "version": 1); a file
	// left with nothing else after uninstall is removed.
	base map[string]json.RawMessage
	// more, when set, is the groups added after entry's for an event (Claude Code's http mode:
	// the Bash tool's command hook beside the http one).
	more func(event string) []json.RawMessage
}

// installHookFile merges mbguard's entries into a host's JSON hook file ({"hooks": {event:
// [...]}}): the user's own entries, other keys and their order are kept; a second run
// replaces only mbguard's entries and Uninstall removes only those. Invalid JSON is refused
// without touching the file. The file is written atomically. The host's table entry names the
// file (host.Spec.ProjectFiles, UserFiles) and the events.
func installHookFile(o InstallOptions, f hookFile) ([]Change, error) {
	spec := host.Get(f.host)
	user := spec.UserFiles[0]
	if o.Global && o.lacks(user.Base) {
		return nil, errors.New("--global needs " + globalNeeds(user))
	}
	old, exists, show, path, err := readTarget(o, hookFileAt(f.host), globalNeeds(user))
	if err != nil {
		return nil, err
	}
	top, err := f.merged(o.Uninstall, spec.Events, old, exists, show)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Uninstall && !exists:
		return []Change{{Path: show, Action: "unchanged"}}, nil
	case o.Uninstall && onlyBase(top, f.base):
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing %s: %w", show, err)
		}
		return []Change{{Path: show, Action: "removed", Note: "it held only mbguard's hooks"}}, nil
	}
	out, err := indentJSON(top.encode())
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", show, err)
	}
	note := "hooks: " + strings.Join(spec.Events, ", ")
	if o.Uninstall {
		// mbguard's entries were the only change: the person's own bytes come back, their
		// layout included, so a committed file shows no diff
		if orig, ok := o.original(path); ok && sameJSON(orig, out) {
			out = orig
		}
		defer o.forgetOriginal(path)
		note = ""
	}
	return o.writeHookFile(path, show, old, out, exists, note)
}

// merged is the hook file's JSON object (old, when it exists) with mbguard's entries for events
// put in, or with uninstall taken out.
func (f hookFile) merged(uninstall bool, events []string, old []byte, exists bool, show string) (*jsonObject, error) {
	top, err := jsonObjectOf(old, exists, show)
	if err != nil {
		return nil, err
	}
	if !uninstall {
		for _, k := range sortedKeys(f.base) {
			if _, ok := top.get(k); !ok {
				top.set(k, f.base[k])
			}
		}
	}
	hooks := &jsonObject{}
	if raw, ok := top.get("hooks"); ok {
		if hooks, err = parseObject(raw); err != nil {
			return nil, fmt.Errorf(`%s: "hooks" is not a JSON object (%v): fix it by hand and run this again; nothing was changed`, show, err)
		}
	}
	for _, ev := range events {
		if err := f.mergeEvent(hooks, ev, uninstall, show); err != nil {
			return nil, err
		}
	}
	if len(hooks.keys) == 0 {
		top.del("hooks")
	} else {
		top.set("hooks", hooks.encode())
	}
	return top, nil
}

// jsonObjectOf is the JSON object a file holds (old, when it exists); an empty one for an
// empty or absent file.
func jsonObjectOf(old []byte, exists bool, show string) (*jsonObject, error) {
	if !exists || len(bytes.TrimSpace(old)) == 0 {
		return &jsonObject{}, nil
	}
	top, err := parseObject(old)
	if err != nil {
		return nil, fmt.Errorf("%s is not a valid JSON object (%v): fix it by hand and run this again; nothing was changed", show, err)
	}
	return top, nil
}

// mergeEvent keeps the user's entries of hooks[ev] and puts mbguard's after them (none with
// uninstall); an event left with no entry goes.
func (f hookFile) mergeEvent(hooks *jsonObject, ev string, uninstall bool, show string) error {
	var groups []json.RawMessage
	if raw, ok := hooks.get(ev); ok {
		if err := json.Unmarshal(raw, &groups); err != nil {
			return fmt.Errorf(`%s: "hooks.%s" is not a JSON array: fix it by hand and run this again; nothing was changed`, show, ev)
		}
	}
	kept := groups[:0]
	for _, g := range groups {
		if !f.ours(g) {
			kept = append(kept, g)
		}
	}
	if !uninstall {
		kept = append(kept, f.entry(ev))
		if f.more != nil {
			kept = append(kept, f.more(ev)...)
		}
	}
	if len(kept) == 0 {
		hooks.del(ev)
		return nil
	}
	b, _ := json.Marshal(kept)
	hooks.set(ev, b)
	return nil
}

// writeHookFile puts out in place of the file at path (old, when it exists), keeping its mode
// and, at the first change, the person's original bytes; a file whose content would not change
// is left alone.
func (o InstallOptions) writeHookFile(path, show string, old, out []byte, exists bool, note string) ([]Change, error) {
	if exists && bytes.Equal(bytes.TrimSpace(old), bytes.TrimSpace(out)) {
		return []Change{{Path: show, Action: "unchanged"}}, nil
	}
	if exists && !o.Uninstall {
		o.keepOriginal(path, old)
	}
	if err := putFile(path, show, out, 0o644, true); err != nil {
		return nil, err
	}
	action := "updated"
	if !exists {
		action = "created"
	}
	return []Change{{Path: show, Action: action, Note: note}}, nil
}

// onlyBase reports whether top holds nothing but the members a new file starts with.
func onlyBase(top *jsonObject, base map[string]json.RawMessage) bool {
	for _, k := range top.keys {
		if _, ok := base[k]; !ok {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// shellQuote is binary as one shell word ("mbguard" when empty): a path with shell-special
// characters is quoted. A Windows path is written with forward slashes: hosts on Windows run
// hook commands in Git Bash, cmd or PowerShell, and C:/x/mbguard.exe means the same file to all
// three, where bash would eat the backslashes of C:\x\mbguard.exe. One with a space is
// double-quoted, which bash and cmd both read.
func shellQuote(binary string) string {
	if binary == "" {
		binary = "mbguard"
	}
	if winBinary(binary) {
		binary = strings.ReplaceAll(binary, `\`, "/")
		if strings.ContainsAny(binary, " \t&()[]{}^=;!'+,~") && !strings.ContainsAny(binary, "\"$`") {
			binary = `"` + binary + `"`
		}
	}
	if strings.ContainsAny(binary, " \t'\"$`\\!*?[]{}()<>|&;#~") && !strings.HasPrefix(binary, `"`) {
		binary = "'" + strings.ReplaceAll(binary, "'", `'\''`) + "'"
	}
	return binary
}

// winBinary reports a Windows path to the binary: a drive (C:\x, c:/x) or a share (\\srv\x).
func winBinary(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && (p[2] == '\\' || p[2] == '/') ||
		strings.HasPrefix(p, `\\`)
}

type claudeHook struct {
	Type    string `json:"type"`
	Command string `json:"command,omitempty"`
	// URL, Headers and AllowedEnvVars make a type "http" hook (watch.http_port).
	URL            string            `json:"url,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	AllowedEnvVars []string          `json:"allowedEnvVars,omitempty"`
	Timeout        int               `json:"timeout,omitempty"`
	// OnFailure (Claude Code 2.1.332) says what a hook that cannot run means: "block" or
	// "continue"; older versions ignore it.
	OnFailure string `json:"onFailure,omitempty"`
}

// claudeEntry is ourGroup with the hook's onFailure set.
func claudeEntry(command string, timeout int, toolEvent bool, onFailure string) json.RawMessage {
	g := claudeGroup{Hooks: []claudeHook{{Type: "command", Command: command, Timeout: timeout, OnFailure: onFailure}}}
	if toolEvent {
		all := "*"
		g.Matcher = &all
	}
	b, _ := json.Marshal(g)
	return b
}

type claudeGroup struct {
	Matcher *string      `json:"matcher,omitempty"`
	Hooks   []claudeHook `json:"hooks"`
}

// ourGroup is a Claude-shaped hook group running command; tool events match every tool.
func ourGroup(command string, timeout int, toolEvent bool) json.RawMessage {
	g := claudeGroup{Hooks: []claudeHook{{Type: "command", Command: command, Timeout: timeout}}}
	if toolEvent {
		all := "*"
		g.Matcher = &all
	}
	b, _ := json.Marshal(g)
	return b
}

// isOurGroup recognises a group install wrote: every hook in it runs `… mbguard… hook <host>`
// (suffix " hook <host>"). A group the user extended with hooks of their own is theirs and stays.
func isOurGroup(raw json.RawMessage, suffix string) bool {
	var g claudeGroup
	if json.Unmarshal(raw, &g) != nil || len(g.Hooks) == 0 {
		return false
	}
	for _, h := range g.Hooks {
		ok := h.Type == "command" && isOurCommand(h.Command, suffix) || suffix == " hook claude" && ourHTTPHook(h)
		if !ok {
			return false
		}
	}
	return true
}

// ourHTTPHook: an http hook install wrote (claudeHTTPFile).
func ourHTTPHook(h claudeHook) bool {
	return h.Type == "http" && strings.HasSuffix(h.URL, HTTPPath) && h.Headers[HTTPHeader] == HTTPHeaderValue
}

// isOurCommand: a command line that runs mbguard's hook for one host.
func isOurCommand(command, suffix string) bool {
	c := strings.TrimSpace(command)
	return strings.HasSuffix(c, suffix) && strings.Contains(c, "mbguard")
}

func displayPath(root, p string) string {
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// jsonObject is a JSON object that keeps its members' order, so rewriting a user's settings
// file moves nothing but what mbguard changes.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseObject(b []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	o := &jsonObject{vals: map[string]json.RawMessage{}}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the object")
	}
	return o, nil
}

func (o *jsonObject) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *jsonObject) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jsonObject) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *jsonObject) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func indentJSON(b []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
