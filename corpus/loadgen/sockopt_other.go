//go:build !unix

package main

import "syscall"

// smallReceiveBuffer leaves the buffer as it is where the socket option is
// not available.
func smallReceiveBuffer(network, address string, c syscall.RawConn) error { return nil }
