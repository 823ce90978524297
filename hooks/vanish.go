package hooks

import (
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// recordRoots keeps, before a tool call, where each repository it is about lies
// (outcome.RecordRoot), so a rename of the repository or a folder above it during the call
// can be put back.
func recordRoots(c *hookCall, repos []repo.Repo) {
	if c.Kind != callPreTool {
		return
	}
	for _, r := range repos {
		outcome.RecordRoot(r.Root)
	}
}

// vanished handles a call whose working directory is gone: the repository (or a folder above
// it) was renamed during an agent's call, which takes the bank away from every path the hooks
// look at. It puts the folder back (outcome.PutBack) and returns what to tell the agent, the
// call then judged as usual; when it cannot, it returns the refusal of this and every later
// call, which tells the person what to do. ok is false when nothing vanished.
func vanished(c *hookCall) (told, refusal string, ok bool) {
	root, ok := outcome.Vanished(c.Cwd)
	if !ok {
		return "", "", false
	}
	from, err := outcome.PutBack(root)
	if err != nil {
		return "", "[mbguard] blocked: the repository at " + root + " vanished during an agent's call (renamed or moved: " + err.Error() +
			"), which takes its memory-bank/ out of mbguard's sight; mbguard could not put it back. Next: ask the user to move it back to " + root + ".", true
	}
	return "[mbguard] undid: the repository folder (or one above it) was renamed during the call, taking memory-bank/ out of mbguard's sight: " +
		from + " is back at its name, so " + root + " is where it was. Next: leave the repository's folders where they are.", "", true
}
