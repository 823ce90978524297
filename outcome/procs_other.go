//go:build !linux

package outcome

import "time"

// Proc is a process a tool call left running (tracked on Linux only).
type Proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// leftBehind is not known off Linux: a background job's later writes are judged as changes
// made between tool calls there.
func leftBehind(time.Time, string) []Proc { return nil }

func running([]Proc) bool { return false }
