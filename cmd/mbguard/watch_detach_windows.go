//go:build windows

package main

import "syscall"

// detachedProcess is DETACHED_PROCESS: the watcher gets no console of the caller's.
const detachedProcess = 0x00000008

// detachedAttr starts the watcher without the caller's console, in a process group of its
// own, so closing the terminal or Ctrl-C in it does not reach it.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess}
}
