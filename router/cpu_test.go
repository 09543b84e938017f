package router

import (
	"syscall"
	"testing"
	"time"
)

// cpuClock reads the process's CPU time (user + system, every thread),
// so that a parallel benchmark can report CPU per op next to wall time
// per op: on a machine other processes share, wall time at -cpu 2 says
// more about them than about the code, while CPU per op at -cpu 2 against
// -cpu 1 shows what contention (cache lines moving between cores, lock
// hand-offs) costs each op.
type cpuClock time.Duration

func readCPU() cpuClock {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return cpuClock(time.Duration(ru.Utime.Nano() + ru.Stime.Nano()))
}

// report adds cpu-ns/op, the CPU time since c per op, to b's results.
func (c cpuClock) report(b *testing.B) {
	b.ReportMetric(float64(readCPU()-c)/float64(b.N), "cpu-ns/op")
}
