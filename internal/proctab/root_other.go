//go:build !linux

package proctab

// procRoot is empty off Linux: the process table is unsupported (see Unsupported).
const procRoot = ""
