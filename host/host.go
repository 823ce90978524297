package host

import (
	"path"
	"slices"
	"strings"
)

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

// Base is the folder a host's user-level file lies in.
type Base int

const (
	// Home is the user's home.
	Home Base = iota
	// ConfigHome is the user's configuration folder: $XDG_CONFIG_HOME, else ~/.config.
	ConfigHome
	// CodexHome is Codex CLI's folder: $CODEX_HOME, else ~/.codex.
	CodexHome
	// CopilotHome is Copilot CLI's folder: $COPILOT_HOME, else ~/.copilot.
	CopilotHome
)

// InHome is where b lies below home when its variable is not set ("" for home itself).
func (b Base) InHome() string {
	return [...]string{Home: "", ConfigHome: ".config", CodexHome: ".codex", CopilotHome: ".copilot"}[b]
}

// Var is the environment variable that moves b ("HOME" for home itself).
func (b Base) Var() string {
	return [...]string{Home: "HOME", ConfigHome: "XDG_CONFIG_HOME", CodexHome: "CODEX_HOME", CopilotHome: "COPILOT_HOME"}[b]
}

// File is a user-level file: Path (slash-separated) below Base.
type File struct {
	Base Base
	Path string
}

// InHome is the file's path relative to home when Base's variable is not set.
func (f File) InHome() string { return path.Join(f.Base.InHome(), f.Path) }

// Kernel is the way a host's shell calls can be kept from writing memory-bank/ by the kernel.
type Kernel int

const (
	// NoKernel: the host's hooks cannot rewrite a shell command, so no kernel line holds.
	NoKernel Kernel = iota
	// Sandbox: the host's own sandbox, with a deny rule for memory-bank/ (Claude Code).
	Sandbox
	// Jail: the host's plugin runs shell calls under `mbguard jail` (OpenCode, Kilo Code).
	Jail
)

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

	// Events are the host's hook events install registers, in the host's spelling.
	Events []string
	// Closes are the events that end a tool call's window: after them the call claims no
	// later change (SPEC "attribution").
	Closes []string
	// Gates are the events whose installed entry fails closed (a crash or timeout of mbguard
	// refuses the action); nil where the host has no such setting per entry.
	Gates []string
	// NoPost: the host sends no event after a tool call (Crush), so nothing a call did is
	// undone right after it: its window lapses and a later check judges it.
	NoPost bool
	// ProjectFiles are the configuration files install writes in a project, relative to the
	// repository root and slash-separated, the one install writes first; an agent that could
	// write them could switch the guard off, so each is protected (gating.ProtectedPaths).
	ProjectFiles []string
	// ProjectDirs are project folders protected whole: the host reads hooks or plugins from
	// any file in them.
	ProjectDirs []string
	// UserFiles are the user-level files the host reads hooks or settings from, the one
	// install --global writes first; protected as the project's are.
	UserFiles []File
	// DoctorProject and DoctorUser are the files doctor reads to find mbguard's hooks (a name
	// "*.json" stands for every such file in its folder); nil for a host doctor checks its own
	// way.
	DoctorProject []string
	DoctorUser    []File
	// ProjectDirEnv is the variable in which the host names the project folder to a hook
	// command ("" when it has none); a project's npm install is reached through it.
	ProjectDirEnv string
	// Marker is the text a configuration file holds when mbguard's hook is in it.
	Marker string
	// SessionField names the payload's session id, for messages.
	SessionField string
	// Trust and TrustGlobal are the one step a user must take before the host runs the hooks
	// install wrote in a project or at user level ("" for none). mbguard never changes a
	// host's trust settings itself.
	Trust, TrustGlobal string
	// Kernel is how the kernel line can hold for the host's shell calls.
	Kernel Kernel
	// Plugin: mbguard runs inside the host as a plugin that asks `mbguard serve --stdio`, not
	// as hook commands in a settings file (OpenCode, and Kilo Code, which keeps its plugin API).
	Plugin bool
	// Aliases are other names the engine's events may carry for the host.
	Aliases []string
	// ReadCall is how the host's read tool is called, a %s for the path (absolute with
	// ReadAbs), and SubagentCall how it starts a subagent, a %s for the agent's name; "" where
	// messages use plain words.
	ReadCall     string
	ReadAbs      bool
	SubagentCall string
	// HTTPEvents are the events the host POSTs to a URL hook (Claude Code's type "http"):
	// with watch.http_port set, install points them at `mbguard watch` instead of a process.
	// nil: the host only runs commands.
	HTTPEvents []string
}

// TrustStep is the step before the host runs the hooks install wrote (global: at user level).
func (s Spec) TrustStep(global bool) string {
	if global {
		return s.TrustGlobal
	}
	return s.Trust
}

// specs is the one list of hosts, in the order help and doctor list them.
var specs = []Spec{
	{
		Name: "claude", Title: "Claude Code",
		Tools: Tools{"Bash", "Write", "Edit"}, Secrets: Update,
		Fails: FailMode{Crash: "closed", Timeout: "closed", BadReply: "closed",
			How: "install sets onFailure: block on the gates; Claude Code before 2.1.295 ignores it and fails open"},
		E2E: "test/e2e/claude",
		Events: []string{"UserPromptSubmit", "PreToolUse", "PreSkillShellCommand", "PostToolUse", "PostToolUseFailure", "PreCompact",
			"SessionStart", "SessionEnd", "Stop", "PermissionDenied", "SubagentStart", "SubagentStop"},
		Closes:        []string{"PostToolUse", "PostToolUseFailure"},
		ProjectFiles:  []string{".claude/settings.json", ".claude/settings.local.json"},
		UserFiles:     []File{{Home, ".claude/settings.json"}},
		DoctorProject: []string{".claude/settings.json", ".claude/settings.local.json"},
		DoctorUser:    []File{{Home, ".claude/settings.json"}},
		ProjectDirEnv: "CLAUDE_PROJECT_DIR", Marker: "hook claude", SessionField: "session_id",
		Kernel:   Sandbox,
		Aliases:  []string{"claude-code", "claudecode"},
		ReadCall: `Read({ file_path: "%s" })`, ReadAbs: true, SubagentCall: `Agent({ subagent_type: "%s" })`,
		// every tool call's and turn's events; it sends SessionStart to command hooks only
		// (test/e2e/claude http_test.go), and the rare events stay processes
		HTTPEvents: []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
	},
	{
		Name: "opencode", Title: "OpenCode",
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open",
			How: "the plugin lets a call run with a warning in warn mode; in block mode or with recovery armed it refuses writes"},
		E2E: "test/e2e/opencode",
		Events: []string{"chat.message", "tool.execute.before", "tool.execute.after",
			"experimental.chat.system.transform", "experimental.session.compacting", "event"},
		Closes:       []string{"tool.execute.after"},
		ProjectFiles: []string{".opencode/plugin/mbguard.js", ".opencode/plugins/mbguard.js"},
		ProjectDirs:  []string{".opencode/"},
		UserFiles:    []File{{ConfigHome, "opencode/plugin/mbguard.js"}, {ConfigHome, "opencode/opencode.json"}},
		Marker:       "// mbguard-opencode-plugin ", SessionField: "sessionID",
		Kernel: Jail, Plugin: true,
		ReadCall: `read({ filePath: "%s" })`,
	},
	{
		// Kilo Code keeps OpenCode's plugin API: the same plugin, the same ways
		Name: "kilo", Title: "Kilo Code",
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open",
			How: "the plugin lets a call run with a warning in warn mode; in block mode or with recovery armed it refuses writes"},
		E2E: "test/e2e/kilo",
		Events: []string{"chat.message", "tool.execute.before", "tool.execute.after",
			"experimental.chat.system.transform", "experimental.session.compacting", "event"},
		Closes: []string{"tool.execute.after"},
		// Kilo loads every plugin and its kilo.json from .kilo/ (whole), and from the older
		// .kilocode/, whose rules/ may hold a bank migrate takes over: only its plugin folders
		// and configuration files there
		ProjectFiles: []string{".kilo/plugin/mbguard.js", ".kilo/plugins/mbguard.js", ".kilocode/plugin/mbguard.js", ".kilocode/plugins/mbguard.js",
			".kilocode/kilo.json", ".kilocode/kilo.jsonc", ".kilocode/opencode.json", ".kilocode/opencode.jsonc", "kilo.json", "kilo.jsonc"},
		ProjectDirs: []string{".kilo/", ".kilocode/plugin/", ".kilocode/plugins/"},
		UserFiles:   []File{{ConfigHome, "kilo/plugin/mbguard.js"}, {ConfigHome, "kilo/kilo.json"}, {ConfigHome, "kilo/kilo.jsonc"}},
		Marker:      "// mbguard-opencode-plugin ", SessionField: "sessionID",
		Kernel: Jail, Plugin: true,
		ReadCall: `read({ filePath: "%s" })`,
	},
	{
		Name: "codex", Title: "Codex CLI",
		Tools: Tools{"exec_command", "apply_patch", "apply_patch"}, Secrets: Replace,
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open", How: "Codex runs the call when a hook fails; no setting changes that"},
		E2E:   "test/e2e/codex",
		Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "PostCompact", "SessionEnd",
			"SubagentStart", "SubagentStop"},
		Closes:        []string{"PostToolUse"},
		ProjectFiles:  []string{".codex/hooks.json", ".codex/config.toml"},
		ProjectDirs:   []string{".codex/"},
		UserFiles:     []File{{CodexHome, "hooks.json"}, {CodexHome, "config.toml"}},
		DoctorProject: []string{".codex/hooks.json"},
		DoctorUser:    []File{{CodexHome, "hooks.json"}},
		Marker:        "hook codex", SessionField: "session_id",
		Trust:       "Codex skips hooks in an untrusted project, silently: start `codex` in this project, trust the project, then trust mbguard's hooks in the hook review (recorded as hooks.state.<key>.trusted_hash in $CODEX_HOME/config.toml).",
		TrustGlobal: "Codex skips hooks it has not trusted, silently: start `codex`, open the hook review and trust mbguard's hooks (Codex records each as hooks.state.<key>.trusted_hash in $CODEX_HOME/config.toml; changing the command needs a new review).",
	},
	{
		Name: "gemini", Title: "Gemini CLI",
		Tools: Tools{"run_shell_command", "write_file", "replace"}, Secrets: Replace,
		Fails:         FailMode{Crash: "open", Timeout: "open", BadReply: "open", How: "Gemini CLI runs the call when a hook fails; no setting changes that"},
		E2E:           "test/e2e/gemini",
		Events:        []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "SessionEnd"},
		Closes:        []string{"AfterTool"},
		ProjectFiles:  []string{".gemini/settings.json"},
		ProjectDirs:   []string{".gemini/"},
		UserFiles:     []File{{Home, ".gemini/settings.json"}},
		DoctorProject: []string{".gemini/settings.json"},
		DoctorUser:    []File{{Home, ".gemini/settings.json"}},
		ProjectDirEnv: "GEMINI_PROJECT_DIR", Marker: "hook gemini", SessionField: "session_id",
		Trust: "Gemini CLI loads project hooks only in a trusted folder: start `gemini` in this project and trust the folder when it asks.",
	},
	{
		Name: "copilot", Title: "Copilot CLI",
		Tools: Tools{"bash", "create", "edit"}, Secrets: Replace,
		Fails: FailMode{Crash: "closed", Timeout: "open", BadReply: "open",
			How: "Copilot CLI refuses on exit 1 but runs the call on a timeout; no setting changes that"},
		E2E:          "test/e2e/copilot",
		Events:       []string{"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "postToolUseFailure", "preCompact", "sessionEnd"},
		Closes:       []string{"postToolUse", "postToolUseFailure"},
		ProjectFiles: []string{".github/hooks/mbguard.json"},
		ProjectDirs:  []string{".github/hooks/"},
		UserFiles:    []File{{CopilotHome, "hooks/mbguard.json"}},
		// Copilot CLI reads every *.json in these folders
		DoctorProject: []string{".github/hooks/*.json"},
		DoctorUser:    []File{{CopilotHome, "hooks/*.json"}},
		ProjectDirEnv: "COPILOT_PROJECT_DIR", Marker: "hook copilot", SessionField: "sessionId",
		Trust: "Copilot CLI skips repository hooks in a folder it does not trust, silently: start `copilot` in this project and trust the folder when it asks (`--trust-folder` trusts it for one run only).",
	},
	{
		Name: "qwen", Title: "Qwen Code",
		Tools: Tools{"run_shell_command", "write_file", "edit"}, Secrets: Refuse,
		Fails:         FailMode{Crash: "open", Timeout: "open", BadReply: "open", How: "Qwen Code runs the call when a hook fails; no setting changes that"},
		E2E:           "test/e2e/qwen",
		Events:        []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "PreCompact", "SessionEnd"},
		Closes:        []string{"PostToolUse", "PostToolUseFailure"},
		ProjectFiles:  []string{".qwen/settings.json"},
		UserFiles:     []File{{Home, ".qwen/settings.json"}},
		DoctorProject: []string{".qwen/settings.json"},
		DoctorUser:    []File{{Home, ".qwen/settings.json"}},
		ProjectDirEnv: "QWEN_PROJECT_DIR", Marker: "hook qwen", SessionField: "session_id",
		Trust: "Qwen Code runs no project hook in an untrusted folder when its folder trust is on (security.folderTrust.enabled; off by default): start `qwen` in this project and trust the folder if it asks.",
	},
	{
		Name: "crush", Title: "Crush",
		Tools: Tools{"bash", "write", "edit"}, Secrets: Refuse,
		Fails:  FailMode{Crash: "open", Timeout: "open", BadReply: "open", How: "Crush runs the call when a hook fails; no setting changes that"},
		NotRun: "its npm package downloads the binary from GitHub at install time; adapter tests on the payloads of HOSTS.md §7",
		Events: []string{"PreToolUse"}, Closes: []string{"PreToolUse"}, NoPost: true,
		ProjectFiles: []string{"crush.json", ".crush.json"},
		// Crush merges its state file under ~/.local/share into its configuration
		UserFiles:     []File{{ConfigHome, "crush/crush.json"}, {Home, ".local/share/crush/crush.json"}},
		DoctorProject: []string{"crush.json", ".crush.json"},
		DoctorUser:    []File{{ConfigHome, "crush/crush.json"}},
		ProjectDirEnv: "CRUSH_PROJECT_DIR", Marker: "hook crush", SessionField: "session_id",
	},
	{
		Name: "droid", Title: "Factory Droid",
		Tools: Tools{"Execute", "Create", "Edit"}, Secrets: Refuse,
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open",
			How: "Droid runs the call when a hook fails (Claude-compatible hooks without onFailure)"},
		E2E:           "test/e2e/droid",
		Events:        []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "Stop", "SessionEnd"},
		Closes:        []string{"PostToolUse", "Stop"},
		ProjectFiles:  []string{".factory/settings.json"},
		UserFiles:     []File{{Home, ".factory/settings.json"}},
		DoctorProject: []string{".factory/settings.json"},
		DoctorUser:    []File{{Home, ".factory/settings.json"}},
		ProjectDirEnv: "FACTORY_PROJECT_DIR", Marker: "hook droid", SessionField: "session_id",
	},
	{
		Name: "cursor", Title: "Cursor",
		// beforeReadFile can only allow or deny, and nothing after a read replaces what the
		// model got
		Tools: Tools{"Shell", "Write", "StrReplace"}, Secrets: Refuse,
		Fails:  FailMode{Crash: "closed", Timeout: "closed", BadReply: "closed", How: "install sets failClosed: true on the gates"},
		NotRun: "no headless Cursor binary on any registry here; adapter tests on payloads built from Cursor's published hook schema (docs/hosts/cursor.md)",
		Events: []string{"sessionStart", "beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure",
			"beforeShellExecution", "afterShellExecution", "beforeReadFile", "afterFileEdit", "preCompact", "stop", "sessionEnd"},
		Closes: []string{"postToolUse", "postToolUseFailure", "afterShellExecution", "afterFileEdit", "stop"},
		// the events whose reply is a permission
		Gates:         []string{"preToolUse", "beforeShellExecution", "beforeReadFile"},
		ProjectFiles:  []string{".cursor/hooks.json"},
		UserFiles:     []File{{Home, ".cursor/hooks.json"}},
		DoctorProject: []string{".cursor/hooks.json"},
		DoctorUser:    []File{{Home, ".cursor/hooks.json"}},
		ProjectDirEnv: "CURSOR_PROJECT_DIR", Marker: "hook cursor", SessionField: "conversation_id",
		Trust:       "Cursor runs project hooks only in a trusted workspace: open this project in Cursor, trust the workspace if it asks, and check Settings → Hooks lists mbguard's hooks.",
		TrustGlobal: "restart Cursor (or open a new agent chat) and check Settings → Hooks lists mbguard's hooks.",
	},
	{
		Name: "auggie", Title: "Augment Auggie",
		// PostToolUse can only add to a tool's result, never replace it
		Tools: Tools{"launch-process", "save-file", "str-replace-editor"}, Secrets: Refuse,
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open",
			How: "Auggie runs the call when a hook fails or times out, and loads no hook unless Augment's backend enables them; no setting changes that"},
		E2E:    "test/e2e/auggie",
		Events: []string{"SessionStart", "PromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
		Closes: []string{"PostToolUse", "Stop"},
		// Auggie merges settings.local.json into settings.json; the rule file install writes
		// beside them (.augment/rules/) runs no hook
		ProjectFiles:  []string{".augment/settings.json", ".augment/settings.local.json"},
		UserFiles:     []File{{Home, ".augment/settings.json"}, {Home, ".augment/rules/mbguard-memory-bank.md"}},
		DoctorProject: []string{".augment/settings.json", ".augment/settings.local.json"},
		DoctorUser:    []File{{Home, ".augment/settings.json"}},
		Marker:        "hook auggie", SessionField: "conversation_id",
		ReadCall: `view({ path: "%s" })`,
	},
	{
		Name: "cline", Title: "Cline",
		// PostToolUse cannot change a tool's output: a read that would show a secret is refused
		Tools: Tools{"run_commands", "editor", "editor"}, Secrets: Refuse,
		Fails: FailMode{Crash: "open", Timeout: "open", BadReply: "open",
			How: "Cline runs the call when a hook prints no valid reply or passes its 120 s; no setting changes that"},
		E2E:    "test/e2e/cline",
		Events: []string{"TaskStart", "TaskResume", "UserPromptSubmit", "PreToolUse", "PostToolUse", "TaskCancel", "TaskComplete"},
		Closes: []string{"PostToolUse", "TaskComplete", "TaskCancel"},
		ProjectFiles: []string{".clinerules/hooks/TaskStart", ".clinerules/hooks/TaskResume", ".clinerules/hooks/UserPromptSubmit",
			".clinerules/hooks/PreToolUse", ".clinerules/hooks/PostToolUse", ".clinerules/hooks/TaskCancel", ".clinerules/hooks/TaskComplete"},
		// Cline runs every file in its hook folders, whatever its extension; the rule file
		// that carries MEMORY.md (hooks.ClineRulesFile) is mbguard's too
		ProjectDirs: []string{".clinerules/hooks/", ".cline/hooks/", ".clinerules/mbguard-memory-bank.md"},
		UserFiles: []File{{Home, ".cline/hooks/TaskStart"}, {Home, ".cline/hooks/TaskResume"}, {Home, ".cline/hooks/UserPromptSubmit"},
			{Home, ".cline/hooks/PreToolUse"}, {Home, ".cline/hooks/PostToolUse"}, {Home, ".cline/hooks/TaskCancel"},
			{Home, ".cline/hooks/TaskComplete"}},
		Marker: "hook cline", SessionField: "taskId",
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

// Find returns the host named name or one of its Aliases, in any case.
func Find(name string) (Spec, bool) {
	for _, s := range specs {
		if strings.EqualFold(s.Name, name) || slices.ContainsFunc(s.Aliases, func(a string) bool { return strings.EqualFold(a, name) }) {
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
