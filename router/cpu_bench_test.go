//go:build linux

package router

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time this process has used, user and system:
// on a machine shared with other builds a benchmark's CPU per op moves
// far less than its wall time, which waiting for a core inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPUTime returns the CPU time the calling thread has used; the
// caller locks its goroutine to the thread.
func threadCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
