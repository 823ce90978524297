package hooks

import "errors"

// InstallOpenCode is a placeholder. TODO(owner): replace.
func InstallOpenCode(o InstallOptions) ([]Change, error) { return nil, errors.New("not built yet") }
