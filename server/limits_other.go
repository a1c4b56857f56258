//go:build !unix

package server

// maxConnsFor is the connection limit: the flag's, where there is no
// open-file limit to read.
func maxConnsFor(flag int) int { return flag }
