package gating

// shellResult is what the engine needs from the shell classifier.
type shellResult struct {
	reads, writes []string
	unknown       bool
	interpreter   bool
}

// classifyShell is a stand-in until gating/shell builds: every command is an unknown write.
func classifyShell(cmd, cwd string) shellResult {
	return shellResult{unknown: cmd != ""}
}
