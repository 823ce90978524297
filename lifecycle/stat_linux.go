package lifecycle

import (
	"io/fs"
	"syscall"
	"time"
)

// statFields is the stat data git keeps in an index entry beyond mtime and size.
type statFields struct {
	ctime              time.Time
	dev, ino, uid, gid uint32
}

func statOf(fi fs.FileInfo) (statFields, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statFields{}, false
	}
	return statFields{time.Unix(st.Ctim.Sec, st.Ctim.Nsec), uint32(st.Dev), uint32(st.Ino), st.Uid, st.Gid}, true
}
