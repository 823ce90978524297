//go:build unix

package main

import (
	"os"
	"syscall"
)

// replace execs full with args in place of this process; it returns only when that failed.
func replace(full string, args []string) {
	_ = syscall.Exec(full, append([]string{full}, args...), os.Environ())
}
