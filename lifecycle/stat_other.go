//go:build !linux

package lifecycle

import (
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// refreshStat copies the file's modification time into its index entry.
func refreshStat(e *index.Entry, fi fs.FileInfo) { e.ModifiedAt = fi.ModTime() }
