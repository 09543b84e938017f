//go:build unix

package server

import "syscall"

// openNonBlock opens a FIFO without waiting for a writer, so that its type
// can be checked and refused.
const openNonBlock = syscall.O_NONBLOCK
