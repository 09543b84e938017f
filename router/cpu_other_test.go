//go:build !linux

package router

import "time"

// cpuTime and threadCPUTime are Linux's (cpu_bench_test.go); elsewhere the
// benchmarks report zero CPU time.
func cpuTime() time.Duration { return 0 }

func threadCPUTime() time.Duration { return 0 }
