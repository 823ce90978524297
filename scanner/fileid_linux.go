package scanner

import (
	"io/fs"
	"syscall"
)

// idOf is the identity of a file's lstat: size, modification and change times, inode.
func idOf(fi fs.FileInfo) fileID {
	id := fileID{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.CTime, id.Ino, id.ok = st.Ctim.Nano(), st.Ino, true
	}
	return id
}
