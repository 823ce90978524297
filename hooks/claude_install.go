package hooks

import "errors"

// InstallClaude is a placeholder. TODO(owner): replace.
func InstallClaude(o InstallOptions) ([]Change, error) { return nil, errors.New("not built yet") }
