//go:build unix

package main

import "syscall"

// smallReceiveBuffer gives a stalled connection a 4 KiB receive buffer, so
// that a response larger than the kernel's buffers stalls the server's
// writes, as a slow reader on a real network does.
func smallReceiveBuffer(network, address string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
	}); cerr != nil {
		return cerr
	}
	return err
}
