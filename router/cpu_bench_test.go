//go:build linux

package router

import (
	"syscall"
	"time"
)

// threadCPUTime returns the CPU time the calling thread has used; the
// caller locks its goroutine to the thread. Unlike wall time it leaves
// out the waits for a core that a shared machine adds.
func threadCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
