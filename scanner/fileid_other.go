//go:build !linux && !darwin

package scanner

import "io/fs"

// idOf is the identity of a file's lstat. Without a change time (which no tool can set back)
// and an inode, a stat does not stand for a file's content: the bank summary never answers
// (fileID.ok is false) and every file is looked up by its content.
func idOf(fi fs.FileInfo) fileID {
	return fileID{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
}
