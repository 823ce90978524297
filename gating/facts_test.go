package gating

import (
	"regexp"
	"strings"
)

// memFacts is an in-memory Facts: a repository of files, symlinks and a folding flag.
type memFacts struct {
	root    string
	files   map[string]string // canonical rel → content
	links   map[string]string // absolute link → absolute target
	abs     map[string]string // absolute path outside the repository → content
	ci      bool
	noBank  bool
	secrets int // Secrets calls, to prove the engine calls it only for bank writes
	env     map[string]string
	// changes, when set, are the bank files with uncommitted work (BankChanges known); nil
	// leaves it unknown, as without git.
	changes *[]string
}

func (f *memFacts) BankChanges() ([]string, bool) {
	if f.changes == nil {
		return nil, false
	}
	return *f.changes, true
}

// Env gives the variables the hook shares with the agent's shell: a test's own, or a
// temporary directory and a home outside the repository.
func (f *memFacts) Env() map[string]string {
	if f.env != nil {
		return f.env
	}
	return map[string]string{"TMPDIR": "/tmp/agent", "HOME": "/home/dev", "CLAUDE_PROJECT_DIR": f.root}
}

const testRoot = "/repo"

var patRe = regexp.MustCompile(`ghp_[a-z0-9]{36}`)

// secretToken is what memFacts.Secrets flags, standing in for gitleaks.
const secretToken = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"

func newFacts(files map[string]string) *memFacts {
	if files == nil {
		files = map[string]string{}
	}
	return &memFacts{root: testRoot, files: files, links: map[string]string{}}
}

// bankFiles is a small v7.1 bank.
func bankFiles() map[string]string {
	return map[string]string{
		"memory-bank/MEMORY.md":                     memoryMD,
		"memory-bank/details/patterns.md":           "# Patterns\n- use zustand\n",
		"memory-bank/details/progress.md":           "# Progress\n",
		"memory-bank/details/tech.md":               "# Tech\n",
		"memory-bank/details/design/gating.md":      "# Gating design\n",
		"memory-bank/details/requirements/REQ-1.md": "# REQ-1\n",
		"memory-bank/details/requirements/REQ-2.md": "# REQ-2\n",
		"src/app.ts": "console.log(1)\n",
	}
}

const memoryMD = `# Project Memory
<!-- MACHINE_BLOCK_START -->
<!-- MEMORY_BANK_TEMPLATE:v7.1 -->
## Project Snapshot
A demo.

## Current Focus
- Goal: switch the store to zustand
- In progress: src/store
- Remaining: tests

## Decision Highlights
| date | decision |
<!-- MACHINE_BLOCK_END -->

<!-- USER_BLOCK_START -->
my own notes, hands off
<!-- USER_BLOCK_END -->
`

func (m *memFacts) Root() string          { return m.root }
func (m *memFacts) BankExists() bool      { return !m.noBank }
func (m *memFacts) CaseInsensitive() bool { return m.ci }

func (m *memFacts) Resolve(abs string) string {
	for range 8 {
		changed := false
		for link, target := range m.links {
			// On a case-folding file system a link is found under any spelling, as lstat does.
			head := abs
			if len(head) > len(link) {
				head = head[:len(link)]
			}
			same := head == link || m.ci && strings.EqualFold(head, link)
			if same && (len(abs) == len(link) || abs[len(link)] == '/') {
				abs = target + abs[len(link):]
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return abs
}

func (m *memFacts) lookup(rel string) (string, bool) {
	if c, ok := m.files[rel]; ok {
		return c, true
	}
	if m.ci {
		for k, c := range m.files {
			if strings.EqualFold(k, rel) {
				return c, true
			}
		}
	}
	return "", false
}

func (m *memFacts) Exists(rel string) bool {
	if _, ok := m.lookup(rel); ok {
		return true
	}
	for k := range m.files {
		if strings.HasPrefix(k, rel+"/") {
			return true
		}
	}
	return false
}

func (m *memFacts) Read(rel string) (string, bool) { return m.lookup(rel) }

func (m *memFacts) Secrets(rel, content string) []string {
	m.secrets++
	// like gitleaks' rule, only a whole token counts: half a token is not a secret
	var ids []string
	for _, m := range patRe.FindAllString(content, -1) {
		_ = m
		ids = append(ids, "github-pat")
	}
	return ids
}
