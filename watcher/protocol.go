package watcher

import (
	"encoding/json"

	"github.com/mbguard/mbguard/gating"
)

// Request is one request of the JSON-lines protocol spoken by `mbguard serve --stdio` and by the
// `mbguard watch` unix socket (docs/protocol.md). Requests are pipelined: a client may send many
// before reading, and every request gets exactly one Response carrying its ID.
type Request struct {
	// ID is echoed back verbatim (a number or a string).
	ID json.RawMessage `json:"id,omitempty"`
	// Op is "event" (a gating event), "context" (the context block for a session), "status",
	// "ping" or "shutdown".
	Op string `json:"op"`
	// Event is the gating event for Op "event".
	Event *gating.Event `json:"event,omitempty"`
	// Session names the session for Op "context", "open" and "close".
	Session string `json:"session,omitempty"`
	// Call, for Op "close", names the one call whose window closes ("" closes every call of
	// the session: the turn stopped). Denied says that call never ran (a refused permission).
	Call   string `json:"call,omitempty"`
	Denied bool   `json:"denied,omitempty"`
	// Host names the agent host for Op "open" (a subagent's window, named by Call, opens).
	Host string `json:"host,omitempty"`
	// Redact, on a tool.after event, says the host can rewrite the tool's output before the
	// model reads it: the answer's Redact lists the secrets of the bank files the call named.
	Redact bool `json:"redact,omitempty"`
	// Output, on a tool.after event sent with Redact, is the tool's output (the first
	// MaxRedactOutput bytes): a search of a directory above or in the bank is redacted by the
	// bank secrets it shows.
	Output string `json:"output,omitempty"`
	// from is the process that sent the request (never read from the wire: see requester)
	from int
	// fromHost: from is the host itself (WithHost), not a hook it started
	fromHost bool
}

// MaxRedactOutput bounds the Output a host sends; the OpenCode plugin sends no more.
const MaxRedactOutput = 1 << 20

// Response answers one Request.
type Response struct {
	ID json.RawMessage `json:"id,omitempty"`
	// Decision is the engine's decision for Op "event".
	Decision *gating.Decision `json:"decision,omitempty"`
	// Context is the <memory-bank> block for Op "context" ("" when there is nothing to inject).
	Context string `json:"context,omitempty"`
	// Notice carries out-of-band findings from the file watcher that this session has not been
	// told about yet; hosts append it to what the agent sees.
	Notice string `json:"notice,omitempty"`
	// Command, on a shell tool.before that is not blocked, is the command line the host runs
	// instead of the agent's: the same command under `mbguard jail`, memory-bank/ read-only
	// (kernel.mode on). Hosts that cannot rewrite a call ignore it.
	Command string `json:"command,omitempty"`
	// Status is the answer to Op "status".
	Status *Status `json:"status,omitempty"`
	// Config, on op "trust", is the digest of the configuration the Service decides by
	// (ConfigDigest): a hook trusts a watcher only when it is the hook's own.
	Config string `json:"config,omitempty"`
	// Agent, on op "trust", says the watcher was started from inside an agent's tool call
	// (the call it found among its ancestors); "" when a person started it.
	Agent string `json:"agent,omitempty"`
	// Error is set when the request could not be served; Decision may still carry a fail-safe answer.
	Error string `json:"error,omitempty"`
	// Mode is the read gate's mode in effect ("off", "warn", "block"). Hosts keep the last one
	// they saw so they can fail safe (block writes) when a later request goes unanswered.
	Mode string `json:"mode,omitempty"`
	// RecoveryArmed is true while the session's post-compaction recovery gate is armed after this
	// request; like Mode it lets a host fail safe when the server stops answering.
	RecoveryArmed bool `json:"recovery_armed,omitempty"`
	// Redact, on a tool.after event sent with Redact, are the secret texts in the bank files
	// the call named: the host replaces each in the tool's output by "REDACTED" (Notice says
	// where they are). Secrets, so a host never logs or shows them.
	Redact []string `json:"redact,omitempty"`
}

// Status is a snapshot for `mbguard status`.
type Status struct {
	Root     string          `json:"root"`
	Sessions []SessionStatus `json:"sessions"`
	Findings []Finding       `json:"findings"`
	Watching bool            `json:"watching"`
	PID      int             `json:"pid,omitempty"`
}

// SessionStatus summarises one session.
type SessionStatus struct {
	ID            string   `json:"id"`
	Message       string   `json:"message,omitempty"`
	Satisfied     bool     `json:"satisfied"`
	RecoveryArmed bool     `json:"recovery_armed"`
	UnreadAnchors []string `json:"unread_anchors,omitempty"`
	Updated       int64    `json:"updated"`
}

// Finding is an out-of-band change the file watcher noticed in memory-bank/.
type Finding struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Time    int64  `json:"time"` // Unix ms
	// Resolved marks the record that the finding with this Path, Rule and Message is gone
	// (the file was deleted or fixed); readers drop the finding.
	Resolved bool `json:"resolved,omitempty"`
}

// same reports whether f and g are the same finding (a resolution record matches the
// finding it resolves).
func (f Finding) same(g Finding) bool {
	return f.Path == g.Path && f.Rule == g.Rule && f.Message == g.Message
}
