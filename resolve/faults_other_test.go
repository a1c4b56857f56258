//go:build !unix

package resolve_test

import "time"

func minorFaults() int64 { return -1 }

func cpuTime() time.Duration { return -1 }
