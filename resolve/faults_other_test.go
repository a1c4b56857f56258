//go:build !unix

package resolve_test

func minorFaults() int64 { return -1 }
