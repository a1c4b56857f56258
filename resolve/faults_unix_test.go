//go:build unix

package resolve_test

import (
	"syscall"
	"time"
)

// minorFaults returns the process's page faults served without I/O so far
// (a page of the mapped store file touched for the first time), or -1.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Minflt)
}

// cpuTime returns the CPU time the process has used, all threads (the
// garbage collector's included), or -1: on a shared machine the CPU a
// call costs moves less than the wall time it takes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
