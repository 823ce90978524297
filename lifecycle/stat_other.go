//go:build !linux

package lifecycle

import (
	"io/fs"
	"time"
)

// statFields is the stat data git keeps in an index entry beyond mtime and size.
type statFields struct {
	ctime              time.Time
	dev, ino, uid, gid uint32
}

// statOf has nothing portable to offer: git status compares what it can and rehashes the rest.
func statOf(fs.FileInfo) (statFields, bool) { return statFields{}, false }
