//go:build unix

package resolve_test

import "syscall"

// minorFaults returns the process's page faults served without I/O so far
// (a page of the mapped store file touched for the first time), or -1.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Minflt)
}
