//go:build linux

package server

import (
	"net"
	"syscall"
	"unsafe"
)

// inputPending reports whether the client has sent bytes the server has
// not read yet (the kernel's receive queue): with unread replies, that is
// a client pipelining commands while it reads nothing.
func inputPending(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	raw.Control(func(fd uintptr) {
		var v int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&v))); e == 0 {
			n = int(v)
		}
	})
	return n > 0
}
