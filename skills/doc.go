// Package skills holds the memory-bank agent skill (SKILL.md and its references for reading
// and writing), embedded in the binary, and installs it where Claude Code and OpenCode look for
// skills, keeping any edits the user made to an installed copy.
package skills
