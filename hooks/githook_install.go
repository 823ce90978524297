package hooks

import "errors"

// InstallGitHook is a placeholder. TODO(owner): replace.
func InstallGitHook(o InstallOptions) ([]Change, error) { return nil, errors.New("not built yet") }
