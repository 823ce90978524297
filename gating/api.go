package gating

// Verdict is the outcome of one decision.
type Verdict string

// The three verdicts, in rising order of severity.
const (
	Allow Verdict = "allow"
	Warn  Verdict = "warn"
	Block Verdict = "block"
)

// Risk is how much damage a write could do without context.
type Risk string

// Risk tiers. RiskNone is for events that are not writes.
const (
	RiskNone   Risk = "none"
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// Gate names the rule family that produced a decision.
type Gate string

// Gates. GateNone is used when nothing objected.
const (
	GateNone     Gate = ""
	GateRead     Gate = "read"      // read-before-write (seed 000)
	GateRecovery Gate = "recovery"  // post-compaction anchors (seed 003)
	GateBank     Gate = "bank"      // memory-bank write guard (seed 004), always on
	GateDocFirst Gate = "doc-first" // document in memory-bank before code
	GateOutcome  Gate = "outcome"   // what a tool call really did to memory-bank/, judged after it ran
)

// Mode is how strictly a gate enforces: off, warn or block.
type Mode string

// Modes shared by the read gate, the recovery gate and the Doc-First gate.
const (
	ModeOff   Mode = "off"
	ModeWarn  Mode = "warn"
	ModeBlock Mode = "block"
)

// EventKind says what happened in the agent host.
type EventKind string

// Event kinds. Every host adapter maps its own hook names onto these.
const (
	// EvMessage is a new real user message: a fresh per-message state. Attached files count as reads.
	EvMessage EventKind = "message"
	// EvToolBefore asks for a decision before a tool runs.
	EvToolBefore EventKind = "tool.before"
	// EvToolAfter reports a tool that ran successfully (reads count here).
	EvToolAfter EventKind = "tool.after"
	// EvCompaction reports a context compaction: the anchor block is returned and recovery armed.
	EvCompaction EventKind = "compaction"
	// EvSessionEnd forgets the session.
	EvSessionEnd EventKind = "session.end"
)

// Event is one thing an agent host reports. Adapters fill it; the engine never looks outside it
// except through Facts.
type Event struct {
	Kind    EventKind      `json:"kind"`
	Host    string         `json:"host,omitempty"` // "opencode", "claude"
	Session string         `json:"session"`
	Message string         `json:"message,omitempty"` // real user-message id; EvMessage starts it
	Tool    string         `json:"tool,omitempty"`    // the host's tool name, as sent
	Args    map[string]any `json:"args,omitempty"`    // the tool's arguments, JSON-decoded
	// Cwd is the absolute directory relative paths and shell commands start from (bash workdir).
	Cwd string `json:"cwd,omitempty"`
	// Call is the host's id of one tool call (Claude's tool_use_id, OpenCode's callID); it pairs a
	// tool.before with its tool.after. Empty when the host sends none.
	Call string `json:"call,omitempty"`
	// Attached lists files attached to a user message (OpenCode @file); they count as reads.
	Attached []string `json:"attached,omitempty"`
	// Now is the current time in Unix milliseconds, supplied by the adapter (the engine has no clock).
	Now int64 `json:"now,omitempty"`
}

// Decision is the engine's answer to one event.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	Gate    Gate    `json:"gate,omitempty"`
	Risk    Risk    `json:"risk,omitempty"`
	// Message says what happened and the one next step (which file to read, which tool to use).
	Message string `json:"message,omitempty"`
	// Advice is extra text for the agent that is not an objection: the writing guideline after a
	// memory-bank write, the anchor block after a compaction.
	Advice string `json:"advice,omitempty"`
	// Paths are the canonical repository-relative paths the decision is about.
	Paths []string `json:"paths,omitempty"`
	// Recovery is "armed" or "cleared" when this event changed the recovery state.
	Recovery string `json:"recovery,omitempty"`
}

// State is one session's memory, serialisable so per-call hosts can keep it in a file.
type State struct {
	Session string `json:"session"`
	// Message is the id of the current user message; all per-message fields below belong to it.
	Message string `json:"message,omitempty"`
	// Reads are canonical memory-bank paths read successfully in this message.
	Reads []string `json:"reads,omitempty"`
	// Satisfied is true once the context requirement was met in this message.
	Satisfied bool `json:"satisfied,omitempty"`
	// Warned records warn-once keys (gate names) for this message.
	Warned map[string]bool `json:"warned,omitempty"`
	// BankWritten is true once a memory-bank .md write was allowed in this message (Doc-First).
	BankWritten bool `json:"bank_written,omitempty"`
	// Anchors is the session's LRU of anchor files read, most recent last.
	Anchors []string `json:"anchors,omitempty"`
	// Recovery is non-nil while the post-compaction recovery gate is armed.
	Recovery *Recovery `json:"recovery,omitempty"`
	// Compactions counts compactions seen in this session.
	Compactions int `json:"compactions,omitempty"`
	// Injected is true once context was injected into this session.
	Injected bool `json:"injected,omitempty"`
	// Updated is the Unix-millisecond time of the last event, for expiry.
	Updated int64 `json:"updated,omitempty"`
}

// Recovery is the armed post-compaction gate.
type Recovery struct {
	Anchors []string `json:"anchors"`         // files that must be read, canonical
	Read    []string `json:"read,omitempty"`  // anchors read since arming
	Since   int64    `json:"since,omitempty"` // Unix ms when armed
	// Cause is why the gate was armed when it was not a compaction (the session's state was
	// lost, so an armed gate may have been lost with it); messages name it instead.
	Cause string `json:"cause,omitempty"`
}

// Facts gives the engine what it may know about the file system without doing I/O itself.
// The host adapter implements it; tests use an in-memory version. Every method must be cheap
// or lazy: the engine calls Secrets only for writes into memory-bank/.
type Facts interface {
	// Root is the absolute, symlink-resolved repository root.
	Root() string
	// BankExists reports whether memory-bank/ exists; without it there is no gating at all.
	BankExists() bool
	// Resolve returns abs with symlinks resolved for its longest existing prefix.
	Resolve(abs string) string
	// CaseInsensitive reports whether the repository's file system folds case.
	CaseInsensitive() bool
	// Exists reports whether the canonical repository-relative path exists.
	Exists(rel string) bool
	// Read returns the current content of a canonical repository-relative path.
	Read(rel string) (string, bool)
	// Secrets returns the rule ids of secrets found in content that would be written to rel.
	Secrets(rel, content string) []string
}
