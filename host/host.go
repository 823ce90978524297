package host

import "slices"

// Secrets is how a host keeps a bank secret that a read would show from its model.
type Secrets int

const (
	// Tell: the model is only told which file and line hold a secret (the host can neither
	// replace a tool's output nor refuse a read with the file's redacted text).
	Tell Secrets = iota
	// Update: the post-tool reply replaces the tool's output with a redacted copy, in the
	// tool's own shape (Claude Code's updatedToolOutput).
	Update
	// Replace: the post-tool reply replaces the tool's result with mbguard's text, which
	// carries the redacted output (Codex, Gemini CLI, Copilot CLI).
	Replace
	// Refuse: nothing after a call can hide the output, so a read of a secret-holding bank
	// file is refused before it runs, with the file's text redacted in the refusal.
	Refuse
)

// Tools are a host's own names of its shell, write and edit tools, for messages that tell the
// model which of its tools did what.
type Tools struct{ Shell, Write, Edit string }

// FailMode is what a host does when mbguard's gating hook cannot answer: the process crashes or
// cannot start, runs past the host's timeout, or prints a reply the host rejects. "closed"
// refuses the tool call, "open" lets it run. How says what makes it so, or why it cannot be
// changed.
type FailMode struct {
	Crash, Timeout, BadReply string
	How                      string
}

// Open reports whether some failure of the gating hook lets the call run.
func (f FailMode) Open() bool {
	return f.Crash != "closed" || f.Timeout != "closed" || f.BadReply != "closed"
}

// String is the one line doctor prints.
func (f FailMode) String() string {
	if f.Crash == f.Timeout && f.Timeout == f.BadReply {
		return "a crash, a timeout or a reply it rejects fails " + f.Crash + " (" + f.How + ")"
	}
	return "a crash fails " + f.Crash + ", a timeout " + f.Timeout + ", a reply it rejects " + f.BadReply + " (" + f.How + ")"
}

// Spec is one agent host.
type Spec struct {
	// Name is the host's name on the command line: install --agent <Name>, hook <Name>.
	Name string
	// Title is how people call it.
	Title string
	// Tools are its own names of the shell, write and edit tools (zero for a host whose
	// messages use the engine's names).
	Tools Tools
	// Secrets is how a bank secret a read would show is kept from its model.
	Secrets Secrets
	// Serial: the host runs one tool call at a time per session, so a session's next pre event
	// closes the window of a call whose post never came (docs/hosts/windows.md).
	Serial bool
	// Fails is what the host does with a gating hook that crashes, times out or answers in a
	// shape it rejects.
	Fails FailMode
	// E2E is the package that drives the real host end to end, or "" with NotRun saying why.
	E2E    string
	NotRun string
}

// specs is the one list of hosts, in the order help and doctor list them.
var specs = []Spec{
	{
		Name: "claude", Title: "Claude Code",
		Tools: Tools{"Bash", "Write", "Edit"}, Secrets: Update,
		Fails: FailMode{Crash: "closed", Timeout: "closed", BadReply: "closed",
			How: "install sets onFailure: block on the gates; Claude Code before 2.1.295 ignores it and fails open"},
		E2E: "test/e2e/claude",
	},
	{
		Name: "opencode", Title: "OpenCode",
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open",
			How: "the plugin lets a call run with a warning in warn mode; in block mode or with recovery armed it refuses writes"},
		E2E: "test/e2e/opencode",
	},
	{
		Name: "codex", Title: "Codex CLI",
		Tools: Tools{"exec_command", "apply_patch", "apply_patch"}, Secrets: Replace,
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open", How: "Codex runs the call when a hook fails; no setting changes that"},
		E2E:   "test/e2e/codex",
	},
	{
		Name: "gemini", Title: "Gemini CLI",
		Tools: Tools{"run_shell_command", "write_file", "replace"}, Secrets: Replace,
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open", How: "Gemini CLI runs the call when a hook fails; no setting changes that"},
		E2E:   "test/e2e/gemini",
	},
	{
		Name: "copilot", Title: "Copilot CLI",
		Tools: Tools{"bash", "create", "edit"}, Secrets: Replace,
		Fails: FailMode{Crash: "closed", Timeout: "open", BadReply: "open",
			How: "Copilot CLI refuses on exit 1 but runs the call on a timeout; no setting changes that"},
		E2E: "test/e2e/copilot",
	},
	{
		Name: "qwen", Title: "Qwen Code",
		Tools: Tools{"run_shell_command", "write_file", "edit"}, Secrets: Refuse,
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open", How: "Qwen Code runs the call when a hook fails; no setting changes that"},
		E2E:   "test/e2e/qwen",
	},
	{
		Name: "crush", Title: "Crush",
		Tools: Tools{"bash", "write", "edit"}, Secrets: Refuse,
		Fails:  FailMode{Crash: "open", Timeout: "open", BadReply: "open", How: "Crush runs the call when a hook fails; no setting changes that"},
		NotRun: "its npm package downloads the binary from GitHub at install time; adapter tests on the payloads of HOSTS.md §7",
	},
	{
		Name: "droid", Title: "Factory Droid",
		Tools: Tools{"Execute", "Create", "Edit"}, Secrets: Refuse,
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open",
			How: "Droid runs the call when a hook fails (Claude-compatible hooks without onFailure)"},
		E2E: "test/e2e/droid",
	},
	{
		Name: "cursor", Title: "Cursor",
		// beforeReadFile can only allow or deny, and nothing after a read replaces what the
		// model got
		Tools: Tools{"Shell", "Write", "StrReplace"}, Secrets: Refuse,
		Fails:  FailMode{Crash: "closed", Timeout: "closed", BadReply: "closed", How: "install sets failClosed: true on the gates"},
		NotRun: "no headless Cursor binary on any registry here; adapter tests on payloads built from Cursor's published hook schema (docs/hosts/cursor.md)",
	},
	{
		Name: "cline", Title: "Cline",
		// PostToolUse cannot change a tool's output: a read that would show a secret is refused
		Tools: Tools{"run_commands", "editor", "editor"}, Secrets: Refuse,
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open",
			How: "Cline runs the call when a hook prints no valid reply or passes its 120 s; no setting changes that"},
		E2E: "test/e2e/cline",
	},
}

// All returns every host, in the order help and doctor list them.
func All() []Spec { return slices.Clone(specs) }

// Lookup returns the host named name.
func Lookup(name string) (Spec, bool) {
	for _, s := range specs {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// Get returns the host named name, or the zero Spec (no tools, Tell, not serial) for a name
// that is none: what a caller gets for an unknown host is the most careful answer.
func Get(name string) Spec {
	s, _ := Lookup(name)
	return s
}
