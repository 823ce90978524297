//go:build unix

package outcome

import (
	"io/fs"
	"syscall"
)

func inode(fi fs.FileInfo) (ino, nlink uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), uint64(st.Nlink)
	}
	return 0, 0
}
