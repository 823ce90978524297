package hooks

import (
	"strconv"
	"strings"
)

// claudeOnFailureSince is the first Claude Code that reads a hook entry's onFailure (2.1.295,
// HOSTS.md §8). An older one may reject the entry, and one rejected entry can drop the whole
// settings file: there mbguard writes none, and the gates fail open as they always did there.
var claudeOnFailureSince = [3]int{2, 1, 295}

// ParseClaudeVersion reads the version `claude --version` prints ("2.1.332 (Claude Code)").
func ParseClaudeVersion(out string) (v [3]int, ok bool) {
	f := strings.Fields(out)
	if len(f) == 0 {
		return v, false
	}
	parts := strings.Split(strings.TrimPrefix(f[0], "v"), ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// claudeTakesOnFailure reports whether the Claude Code whose `--version` printed version reads
// onFailure. An unknown version (no claude on PATH when install ran, or output it cannot read)
// gets it: a Claude Code installed later is a current one, and doctor reads the version again.
func claudeTakesOnFailure(version string) bool { return claudeAtLeast(version, claudeOnFailureSince) }

// claudeAtLeast reports whether version is since or later; an unknown version is taken for a
// current one (claudeTakesOnFailure says why).
func claudeAtLeast(version string, since [3]int) bool {
	v, ok := ParseClaudeVersion(version)
	if !ok {
		return true
	}
	for i := range v {
		if v[i] != since[i] {
			return v[i] > since[i]
		}
	}
	return true
}

// claudeHTTPSince is the oldest Claude Code whose type "http" hooks were run against here
// (HOSTS.md §8: 2.1.328 and 2.1.332): an older one may reject the entry and drop the file.
var claudeHTTPSince = [3]int{2, 1, 328}

// ClaudeHTTPNote is what install says when watch.http_port is set but the Claude Code found
// predates the http hooks mbguard was run against ("" when it does not): the hooks stay
// processes there.
func ClaudeHTTPNote(version string) string {
	if claudeAtLeast(version, claudeHTTPSince) {
		return ""
	}
	v, _ := ParseClaudeVersion(version)
	return "Claude Code " + strconv.Itoa(v[0]) + "." + strconv.Itoa(v[1]) + "." + strconv.Itoa(v[2]) +
		" predates the http hooks mbguard was run against (2.1.328): its hooks stay processes, and watch.http_port is not used"
}

// ClaudeOnFailureNote is what install and doctor say when the Claude Code found predates
// onFailure, or "" when it reads it; each adds its own next step.
func ClaudeOnFailureNote(version string) string {
	if claudeTakesOnFailure(version) {
		return ""
	}
	v, _ := ParseClaudeVersion(version)
	return "Claude Code " + strconv.Itoa(v[0]) + "." + strconv.Itoa(v[1]) + "." + strconv.Itoa(v[2]) +
		" predates onFailure (2.1.295): a hook that crashes or times out lets the call run there, so mbguard writes no onFailure key"
}
