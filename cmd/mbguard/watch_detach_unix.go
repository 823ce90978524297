//go:build !windows

package main

import "syscall"

// detachedAttr starts the watcher in a session of its own: closing the terminal (SIGHUP) or
// Ctrl-C in it does not reach it.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
