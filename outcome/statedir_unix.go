//go:build unix

package outcome

import "golang.org/x/sys/unix"

// dirWritable says whether files can be created in dir, in one system call: the kernel's
// own answer for permissions, a read-only mount and an immutable folder.
func dirWritable(dir string) error {
	return unix.Access(dir, unix.W_OK)
}
