package skills

import "errors"

// Install writes the embedded agent skill into dir (e.g. .claude/skills/memory-bank). It returns
// one line per file for the user. TODO(owner): replace this placeholder.
func Install(dir string, uninstall bool) ([]string, error) { return nil, errors.New("not built yet") }
