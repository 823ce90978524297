package hooks

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/watcher"
)

// callFate is what a host's own record of a session says about a tool call whose post event
// never came.
type callFate int

const (
	// fateUnknown: the record says nothing (no transcript, the call is not in its tail): the
	// call may or may not have run, so its window claims nothing and what changed in it is
	// kept, and reported when it breaks a rule.
	fateUnknown callFate = iota
	// fateNeverRan: the call was refused before it ran (the user denied it at the prompt, a
	// permission rule or a hook refused it): it claims nothing.
	fateNeverRan
	// fateRan: the call's result is recorded: what changed in its window is the call's.
	fateRan
)

// transcriptTail bounds the bytes of a transcript read at one event: the calls still open at
// a new user message are the last ones the host wrote down.
const transcriptTail = 2 << 20

// readTail returns the last max bytes of the file at path, from the first full line on.
func readTail(path string, max int64) []byte {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	off := fi.Size() - max
	if off < 0 {
		off = 0
	}
	b := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(b, off)
	if err != nil && err != io.EOF {
		return nil
	}
	b = b[:n]
	if off > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil
		}
		b = b[i+1:]
	}
	return b
}

// claudeLine is the part of a Claude Code transcript line (JSONL) that tells a tool call's
// fate: a "user" entry holding its tool_result. Claude Code 2.1.332 marks a refused call with
// toolDenialKind ("user-rejected", "permission-rule", …) and permissionDecision.decision
// "reject", or toolDenialBeforeRun; toolDenialAfterRun says the call ran before it was
// refused (hooks/testdata/claude-transcript-denied.jsonl is a captured sample).
type claudeLine struct {
	Type    string `json:"type"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	ToolUseResult       json.RawMessage `json:"toolUseResult"`
	ToolDenialKind      string          `json:"toolDenialKind"`
	ToolDenialBeforeRun bool            `json:"toolDenialBeforeRun"`
	ToolDenialAfterRun  bool            `json:"toolDenialAfterRun"`
	PermissionDecision  *struct {
		Decision string `json:"decision"`
	} `json:"permissionDecision"`
}

// claudeRejected is the text Claude Code gives the model for a call the user refused at the
// prompt; versions that write no permissionDecision are recognised by it.
const claudeRejected = "The user doesn't want to proceed with this tool use. The tool use was rejected"

// claudeFates reads the tail of a Claude Code transcript for the fate of each call in ids.
// The last result recorded for a call wins (Claude Code may replace an earlier one).
func claudeFates(path string, ids []string) map[string]callFate {
	fates := map[string]callFate{}
	tail := readTail(path, transcriptTail)
	if len(tail) == 0 {
		return fates
	}
	// only the lines that name an open call are decoded, in file order (the last one wins)
	for _, from := range idLineStarts(tail, ids) {
		line := tail[from:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		if bytes.Contains(line, []byte(`"tool_result"`)) {
			claudeLineFates(line, ids, fates)
		}
	}
	return fates
}

// idLineStarts returns, sorted and once each, the starts of the lines of tail that hold one of
// the ids in quotes.
func idLineStarts(tail []byte, ids []string) []int {
	var starts []int
	for _, id := range ids {
		q := []byte(`"` + id + `"`)
		for i := 0; ; {
			j := bytes.Index(tail[i:], q)
			if j < 0 {
				break
			}
			at := i + j
			starts = append(starts, bytes.LastIndexByte(tail[:at], '\n')+1)
			i = at + len(q)
		}
	}
	slices.Sort(starts)
	return slices.Compact(starts)
}

// claudeResultPart is one part of a Claude Code user message: a tool_result among them.
type claudeResultPart struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// claudeLineFates records in fates what one transcript line says of the calls it names.
func claudeLineFates(line []byte, ids []string, fates map[string]callFate) {
	var named []string
	for _, id := range ids {
		if bytes.Contains(line, []byte(`"`+id+`"`)) {
			named = append(named, id)
		}
	}
	var e claudeLine
	if json.Unmarshal(line, &e) != nil || e.Type != "user" {
		return
	}
	var parts []claudeResultPart
	if json.Unmarshal(e.Message.Content, &parts) != nil {
		return
	}
	for _, p := range parts {
		if p.Type != "tool_result" {
			continue
		}
		for _, id := range named {
			if p.ToolUseID != id {
				continue
			}
			fates[id] = fateRan
			if p.IsError && claudeRefused(&e, p) && !e.ToolDenialAfterRun {
				fates[id] = fateNeverRan
			}
		}
	}
}

// claudeRefused reports a tool result of a call refused before it ran: rejected by the
// person, denied before the run, or answered with Claude Code's rejection text.
func claudeRefused(e *claudeLine, p claudeResultPart) bool {
	return e.PermissionDecision != nil && e.PermissionDecision.Decision == "reject" || e.ToolDenialBeforeRun ||
		e.PermissionDecision == nil && bytes.HasPrefix(p.Content, []byte(`"`+claudeRejected))
}

// transcriptReaders read a host's record of a session for the fate of its open calls. A host
// without one (or whose format is not known) leaves every such call's fate unknown.
var transcriptReaders = map[string]func(path string, ids []string) map[string]callFate{
	"claude": claudeFates,
}

// closeUnproven runs before an event that closes every window of c's session: each call still
// open without its post event that the host's record does not show as run is closed as one
// that never ran, so it claims nothing — a person's edit made after the user refused it
// stands, and what changed meanwhile is kept, and reported when it breaks a rule, by the next
// check. Calls recorded as run keep their window for the event itself, which judges them as
// their own post check would have. It returns notices for the agent.
func (h *Hook) closeUnproven(c *hookCall, r repo.Repo, send func(watcher.Request) (watcher.Response, bool)) string {
	ids := outcome.OpenWindows(r, c.Session)
	if len(ids) == 0 {
		return ""
	}
	var fates map[string]callFate
	if read := transcriptReaders[h.name()]; read != nil {
		fates = read(c.Transcript, ids)
	}
	var notes []string
	for _, id := range ids {
		if fates[id] == fateRan {
			continue
		}
		if resp, ok := send(watcher.Request{Op: "close", Session: c.Session, Call: id, Denied: true}); ok {
			notes = append(notes, resp.Notice)
		}
	}
	return joinText(notes...)
}
