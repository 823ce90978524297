package lifecycle

import (
	"io/fs"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// refreshStat copies the file's stat data into its index entry, as git add would.
func refreshStat(e *index.Entry, fi fs.FileInfo) {
	e.ModifiedAt = fi.ModTime()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.CreatedAt = time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
		e.Dev, e.Inode = uint32(st.Dev), uint32(st.Ino)
		e.UID, e.GID = st.Uid, st.Gid
	}
}
