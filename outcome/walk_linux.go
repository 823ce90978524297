//go:build linux

package outcome

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// lstatIn is lstat of name in the open folder dir: fstatat relative to the folder's
// descriptor spares the kernel the walk down the whole path, and the Entry is made from the
// stat buffer without an os.FileInfo. A walk spends nearly all its time here.
func lstatIn(dir *os.File, dirPath, name string) (Entry, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Entry{}, &fs.PathError{Op: "lstat", Path: dirPath + string(os.PathSeparator) + name, Err: err}
		}
		break
	}
	e := Entry{Mode: fs.FileMode(st.Mode & 0o777), Ino: st.Ino, Nlink: uint64(st.Nlink)}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		e.Kind, e.Size, e.Mtime = KindFile, st.Size, st.Mtim.Nano()
	case unix.S_IFDIR:
		e.Kind, e.Nlink = KindDir, 0
	case unix.S_IFLNK:
		e.Kind, e.Size, e.Mtime = KindSymlink, st.Size, st.Mtim.Nano()
	default:
		e.Kind, e.Mtime = KindOther, st.Mtim.Nano()
	}
	return e, nil
}

// openDirIn opens the folder name inside the open folder dir (openat, never following a
// symlink): no lookup walks the whole path, so a folder 1,500 levels deep opens like any other
// (an absolute path that long fails with "file name too long").
func openDirIn(dir *os.File, dirPath, name string) (*os.File, error) {
	for {
		fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: dirPath + string(os.PathSeparator) + name, Err: err}
		}
		return os.NewFile(uintptr(fd), dirPath+string(os.PathSeparator)+name), nil
	}
}
