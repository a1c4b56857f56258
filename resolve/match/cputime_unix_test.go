//go:build unix

package match

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: on a
// machine shared with other jobs it counts the work, not the wait for a
// core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
