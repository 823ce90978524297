package outcome

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/gitexec"
	"github.com/mbguard/mbguard/internal/repo"
)

// manifest is the known-good state as stored in the git directory.
type manifest struct {
	Version int              `json:"version"`
	Tree    string           `json:"tree,omitempty"` // root tree of the blobs, held by Ref
	Entries map[string]Entry `json:"entries"`
}

// Call is one tool call between its pre and post check.
type Call struct {
	ID      string   `json:"id"`
	Session string   `json:"session"`
	Host    string   `json:"host,omitempty"`
	Tool    string   `json:"tool"`
	Allowed []string `json:"allowed,omitempty"` // bank paths an allowed write tool may write
	// Expect are, for allowed paths whose result the tool's arguments tell (a Write's
	// content, an Edit applied in memory), the TextSum of that result: only that state of the
	// path is the tool's.
	Expect map[string]string `json:"expect,omitempty"`
	Start  int64             `json:"start"` // Unix milliseconds
	// Check asks a post check to compare even when no pre check recorded the call (the
	// in-flight log was lost): every call that may write is checked. Not stored.
	Check bool `json:"-"`
	// Ended is set when the session moved on (a new user message, session end) without this
	// call's post check: the call is stale from then on.
	Ended bool `json:"ended,omitempty"`
	// Spawns says the tool may leave processes running after it returned (a shell's
	// background job): the post check then looks for them. Not stored.
	Spawns bool `json:"-"`
	// Procs, on the record a post check leaves behind for such processes, are the ones still
	// running: while one runs, its later writes are judged as the agent's, not accepted as a
	// human's between tool calls.
	Procs []Proc `json:"procs,omitempty"`
	// Ticks is the system's uptime in clock ticks when the pre check recorded the call
	// (Linux; 0 elsewhere): a process that started after it was started by the call.
	Ticks uint64 `json:"ticks,omitempty"`
	// LastPID is the last process id the kernel had handed out then (Linux): the processes
	// the call started have the ids after it, so the post check probes only those.
	LastPID int `json:"last_pid,omitempty"`
	// Parent is the host process that sent the pre event (the first ancestor of the hook
	// that is not a hook runner, Linux): a process between a later request and it that is not
	// a hook runner is one of the host's tool calls (ancestry.go).
	Parent *Proc `json:"parent,omitempty"`
	// Git is the repository's git state when the pre check recorded the call (gitwork.go).
	Git *GitMark `json:"git,omitempty"`
	// Agent marks a subagent's window (Claude Code's SubagentStart): the subagent's tools may
	// write without firing hooks, so what changes in it is the agent's. Only its own stop (End
	// with its id) or StaleAfter closes it, not the session's Stop or next message: a
	// subagent may run in the background past its parent's turn.
	Agent bool `json:"agent,omitempty"`
	// Post is when a post check of this call began (Unix milliseconds): a record still open
	// with Post set belongs to a check that was killed or ran out of time, and the next check
	// finishes it (deadline.go).
	Post int64 `json:"post,omitempty"`
}

type inflight struct {
	Calls []Call `json:"calls"`
}

// The in-flight list is an append-only log of records, one JSON line each: "add" (a call
// started, or changed) and "end" (its check is done). Appending a line costs a fraction of
// rewriting a file through a temporary and a rename, twice per tool call; a line torn by a
// crash is skipped. The log is emptied (truncated) whenever no call is left in flight, and
// compacted to its live calls once it grows past maxInflightLog.
type inflightRecord struct {
	Op   string `json:"op"` // add, end
	Call *Call  `json:"call,omitempty"`
	ID   string `json:"id,omitempty"`
}

// compactInflightAt is the size past which the in-flight log is rewritten to its live calls,
// when those take less than half of it: a read of 8 KiB costs about 0.15 ms.
const compactInflightAt = 8 << 10

func (g *Guard) loadInflight() inflight {
	b, err := os.ReadFile(g.inflightPath())
	if err != nil {
		return inflight{}
	}
	var recs [][]byte
	signed := g.userKey() != nil
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		if signed {
			// every line carries its MAC after a tab (JSON escapes every tab it holds): a
			// record the agent wrote is not taken for a call in flight
			i := bytes.LastIndexByte(line, '\t')
			if i < 0 || !hmac.Equal(line[i+1:], []byte(g.mac(line[:i]))) {
				g.note(".git/mbguard/inflight.log holds a record mbguard did not write; it was ignored")
				continue
			}
			line = line[:i]
		}
		recs = append(recs, line)
	}
	return replayInflight(recs)
}

// replayInflight is the calls the records leave in flight, in the order of their last "add"
// (each add moves its call to the end; an end removes it). Only the last record of a call
// decides it, so the records are read from the newest, and one a later record of its call
// overrides is only skimmed for its op and id: the log holds many adds of a long call.
func replayInflight(recs [][]byte) inflight {
	var newest []Call
	decided := map[string]bool{}
	for i := len(recs) - 1; i >= 0; i-- {
		var h struct {
			Op   string `json:"op"`
			ID   string `json:"id"`
			Call *struct {
				ID string `json:"id"`
			} `json:"call"`
		}
		if json.Unmarshal(recs[i], &h) != nil {
			continue // torn: as if it were not there
		}
		id := h.ID
		if h.Op == "add" {
			if h.Call == nil {
				continue
			}
			id = h.Call.ID
		} else if h.Op != "end" {
			continue
		}
		if decided[id] {
			continue
		}
		var r inflightRecord
		if json.Unmarshal(recs[i], &r) != nil {
			continue
		}
		decided[id] = true
		if r.Op == "add" {
			newest = append(newest, *r.Call)
		}
	}
	slices.Reverse(newest)
	return inflight{Calls: newest}
}

// saveInflight appends what changed from prev to next.
func (g *Guard) saveInflight(prev, next inflight) error {
	delta := g.inflightLines(prev, next)
	if len(delta) == 0 {
		return nil
	}
	p := g.inflightPath()
	if len(next.Calls) == 0 {
		// nothing in flight: an empty log says the same as its history, and keeps the next
		// read (twice per tool call, by every per-call hook) a few bytes long
		if err := os.Truncate(p, 0); err == nil || !errors.Is(err, os.ErrNotExist) {
			if err != nil {
				return fmt.Errorf("recording calls in flight: %w", err)
			}
			return nil
		}
	}
	if fi, err := os.Stat(p); err == nil && fi.Size()+int64(len(delta)) > compactInflightAt {
		// every check reads the whole log, a MAC and a JSON decode a line: once it holds
		// twice what the calls in flight need, it is rewritten to those (a session with a
		// job left running never empties it)
		if live := g.inflightLines(inflight{}, next); fi.Size()+int64(len(delta)) > 2*int64(len(live)) {
			return writeFile(p, live, 0o644, false)
		}
	}
	return appendLog(p, delta)
}

// inflightLines are the log's records, each with its MAC, that take prev to next: an "end"
// for each call gone, an "add" for each new or changed one.
func (g *Guard) inflightLines(prev, next inflight) []byte {
	var buf bytes.Buffer
	line := func(r inflightRecord) {
		b, _ := json.Marshal(r)
		buf.Write(b)
		if m := g.mac(b); m != "" {
			buf.WriteByte('\t')
			buf.WriteString(m)
		}
		buf.WriteByte('\n')
	}
	for _, c := range prev.Calls {
		if !slices.ContainsFunc(next.Calls, func(n Call) bool { return n.ID == c.ID }) {
			line(inflightRecord{Op: "end", ID: c.ID})
		}
	}
	for _, c := range next.Calls {
		if i := slices.IndexFunc(prev.Calls, func(p Call) bool { return p.ID == c.ID }); i < 0 || !sameCall(prev.Calls[i], c) {
			line(inflightRecord{Op: "add", Call: &c})
		}
	}
	return buf.Bytes()
}

// appendLog appends b to the in-flight log at p, making its folder when it is missing.
func appendLog(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("recording calls in flight: %w", err)
		}
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	}
	if err != nil {
		return fmt.Errorf("recording calls in flight: %w", err)
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("recording calls in flight: %w", werr)
	}
	return nil
}

func sameCall(a, b Call) bool {
	return a.ID == b.ID && a.Session == b.Session && a.Ended == b.Ended && a.Start == b.Start && a.Post == b.Post && slices.Equal(a.Allowed, b.Allowed) &&
		maps.Equal(a.Expect, b.Expect)
}

// TextSum is the digest Call.Expect holds for a write tool's result. Line endings are
// normalised: a host may write CRLF where the arguments say LF.
func TextSum(b []byte) string {
	s := sha256.Sum256(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")))
	return hex.EncodeToString(s[:])
}

const manifestVersion = 1

func readJSON(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	return true, nil
}

// writeJSON replaces path atomically. durable adds an fsync: the manifest needs it (it
// names the bytes to restore), the in-flight list does not (after a power loss every call in
// it is over anyway, and it is written twice per tool call).
func writeJSON(path string, v any, durable bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeFile(path, b, 0o644, durable)
}

// writeFile replaces path atomically (a temporary file renamed over it); durable syncs it first.
func writeFile(path string, b []byte, perm os.FileMode, durable bool) error {
	return fsutil.WriteFile(path, b, perm, fsutil.Options{NoSync: !durable})
}

// fromRef rebuilds a manifest from the tree under the private ref, when the manifest file is
// gone or unreadable (removed by a command, say). Stat fields are unknown, so every file is
// read and compared once; folder modes default to 0755.
func (g *Guard) fromRef() (*manifest, error) {
	if !g.obj.reftable {
		// cheap first: no ref file and no packed ref means no git process at all (every post
		// check of a repository without a bank comes here)
		_, err := os.Stat(filepath.Join(g.r.CommonDir, filepath.FromSlash(g.Ref())))
		if err != nil {
			packed, _ := os.ReadFile(filepath.Join(g.r.CommonDir, "packed-refs"))
			if !bytes.Contains(packed, []byte(" "+g.Ref()+"\n")) {
				return nil, nil
			}
		}
	}
	out, err := gitexec.Run(context.Background(), g.r.Root, "ls-tree", "-r", "-z", "--full-tree", g.Ref())
	if err != nil {
		return nil, nil // no ref: there never was a known-good state
	}
	m := &manifest{Entries: map[string]Entry{}}
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if ok && len(f) == 3 && f[1] == "blob" {
			m.addTreeBlob(string(p), f[0], f[2])
		}
	}
	if len(m.Entries) == 0 {
		return nil, nil
	}
	m.Tree, _ = g.obj.refValue(g.Ref())
	return m, nil
}

// addTreeBlob adds a blob of the ref's tree (git mode, id) at path, and the folders above it.
func (m *manifest) addTreeBlob(path, mode, blob string) {
	e := Entry{Kind: KindFile, Mode: 0o644, Blob: blob, Nlink: 1}
	switch mode {
	case "100755":
		e.Mode = 0o755
	case "120000":
		e.Kind, e.Mode, e.Nlink = KindSymlink, 0o777, 1
	}
	m.Entries[path] = e
	for d := filepath.ToSlash(filepath.Dir(path)); d != "." && d != "/" && d != ""; d = filepath.ToSlash(filepath.Dir(d)) {
		if _, ok := m.Entries[d]; !ok {
			m.Entries[d] = Entry{Kind: KindDir, Mode: 0o755}
		}
	}
}

// mirrorPath is where a copy of the manifest lives outside the repository, in the user's
// state directory ($XDG_STATE_HOME, else ~/.local/state), keyed by the git directory. A
// command run by the agent can delete .git/mbguard/ and the private ref together (from a
// script the pre check cannot read); the copy still names the known-good blobs, which stay
// in the object store, so the post check undoes the change instead of finding no state at
// all and the next pre check accepting it. "" when there is no home directory.
func (g *Guard) mirrorPath() string {
	base, key := stateBase(), g.repoKey()
	if base == "" || key == "" {
		return ""
	}
	return filepath.Join(base, "known-good", key+".idx")
}

// recoverManifest finds the known-good state when the manifest in the git directory is gone
// or unreadable: first its copy outside the repository, then the tree under the private ref.
func (g *Guard) recoverManifest() (*manifest, error) {
	if p := g.mirrorPath(); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			if g.authentic(b) {
				if m, err := decodeManifest(b); err == nil {
					g.note(".git/mbguard/known-good.idx was removed or damaged; the authentic copy outside the repository was put back")
					_ = os.MkdirAll(g.r.StateDir(), 0o755)
					_ = writeFile(g.manifestPath(), b, 0o644, true)
					g.checkRef(m)
					return m, nil
				}
			} else if !g.macKnown() {
				// an mbguard before the MAC kept it
				if m, err := decodeManifest(b); err == nil && len(m.Entries) > 0 {
					if t, ok := g.obj.refValue(g.Ref()); !ok || t == m.Tree {
						return m, nil
					}
				}
			}
		}
		if g.macKnown() {
			// a state was kept, and no authentic copy is left: the ref alone is not trusted
			g.note("the known-good manifest, its copy outside the repository and their signature no longer agree: every copy was removed or forged")
			return nil, ErrStoreLost
		}
	}
	return g.fromRef()
}

// HasKnownGood reports whether mbguard keeps a known-good state of r's memory bank with
// anything in it: a command that removes or renames the whole memory-bank/ folder must
// still be checked (and undone), not taken for a repository without a bank. Cheap when
// the manifest is there; only called when memory-bank/ is missing.
func HasKnownGood(r repo.Repo) bool {
	g := &Guard{r: r, obj: newObjects(r.Root, r.CommonDir)}
	for _, p := range []string{g.manifestPath(), g.mirrorPath()} {
		if b, err := os.ReadFile(p); p != "" && err == nil {
			if m, err := decodeManifest(b); err == nil {
				return len(m.Entries) > 0
			}
		}
	}
	var m manifest
	if ok, err := readJSON(g.legacyManifestPath(), &m); err == nil && ok {
		return len(m.Entries) > 0
	}
	m2, _ := g.fromRef()
	return m2 != nil
}
