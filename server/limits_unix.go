//go:build unix

package server

import (
	"math"
	"syscall"
)

// maxConnsFor is the connection limit: the flag's, within the process's
// open-file limit less a reserve for the store and everything else.
func maxConnsFor(flag int) int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil && rl.Cur < math.MaxInt32 {
		if room := int(rl.Cur) - 64; room < flag {
			return max(room, 1)
		}
	}
	return flag
}
