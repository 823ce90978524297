//go:build unix && !darwin && !freebsd && !netbsd

package outcome

import (
	"fmt"
	"io/fs"
	"syscall"
)

// changeStamp is a file's device, inode, size and status-change time: a write, a chmod, a
// rename over it or a new file in its place all change it, and no process can set ctime back.
func changeStamp(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("stat:%d:%d:%d:%d.%d", st.Dev, st.Ino, fi.Size(), st.Ctim.Sec, st.Ctim.Nsec)
}
