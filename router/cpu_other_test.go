//go:build !linux

package router

import "time"

// threadCPUTime is Linux's (cpu_bench_test.go); elsewhere the benchmarks
// report no thread CPU time.
func threadCPUTime() time.Duration { return 0 }
