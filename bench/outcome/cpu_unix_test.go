//go:build unix

package outcome_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) this process has used: on a loaded machine it
// measures the check's own work where wall time measures the queue for the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
