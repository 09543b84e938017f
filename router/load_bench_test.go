package router

import (
	"fmt"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// BenchmarkLoad adds 1M new drivers of a metro, the way a bulk load does
// (issue 10, target 3); cpu-ns/member is the process's CPU per member.
func BenchmarkLoad(b *testing.B) {
	const n = 1_000_000
	at := metroPoints()
	names := make([]string, n)
	scores := make([]float64, n)
	for i := range n {
		names[i] = fmt.Sprintf("driver:%d", i)
		scores[i] = geo.Encode(at())
	}
	var cpu time.Duration
	for b.Loop() {
		r := New(Config{Regions: shard.DefaultMap()})
		start := cpuTime()
		for i := range n {
			r.Add(drivers, names[i], scores[i], AddFlags{})
		}
		cpu += cpuTime() - start
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/n, "cpu-ns/member")
}
