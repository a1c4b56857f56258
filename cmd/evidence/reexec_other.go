//go:build !unix

package main

// reexecGuarded does nothing where exec cannot replace the process: set
// GODEBUG=invalidptr=0 yourself (see reexec_unix.go).
func reexecGuarded() {}
