package router

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// BenchmarkWideGC runs 5 km searches without COUNT over 1M metro drivers
// at several GC percents, reusing one hit slice as the server's pool does,
// and reports the process's CPU per search (collector included, which a
// wall-clock ns/op on a busy machine hides) and collections per search.
// What the collector costs depends on how much of the heap it must scan:
// the figure to compare between index layouts.
func BenchmarkWideGC(b *testing.B) {
	r, at := metro(b, shard.DefaultMap(), 1_000_000)
	for _, pct := range []int{100, 25, 10} {
		b.Run(fmt.Sprintf("gogc=%d", pct), func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(pct))
			var hits []shard.Hit
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			cpu0 := cpuTime()
			for b.Loop() {
				lon, lat := at()
				q := geo.NewSearch(lon, lat, geo.Shape{Radius: 5, Unit: 1000})
				q.NeedDist = false
				res := r.SearchInto(hits[:0], drivers, q, 0)
				hits = res.Hits
				// The reply a server writes for it: about 24 B a member.
				reply := make([]byte, 0, 24*len(hits))
				runtime.KeepAlive(reply)
			}
			cpu := cpuTime() - cpu0
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/op")
			b.ReportMetric(float64(m1.NumGC-m0.NumGC)/float64(b.N), "gc/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
