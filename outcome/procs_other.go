//go:build !linux

package outcome

// Proc is a process a tool call left running (tracked on Linux only).
type Proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
	Sid   int    `json:"sid,omitempty"`
}

// leftBehind is not known off Linux: a background job's later writes are judged as changes
// made between tool calls there.
func leftBehind(uint64, int, string) []Proc { return nil }

func lastPID() int { return 0 }

func uptimeTicks() uint64 { return 0 }

func running([]Proc) bool { return false }

func jobProcs([]Proc) []int { return nil }

func openForWrite([]int, string) map[string]int { return nil }
