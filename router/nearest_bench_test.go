package router

import (
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

// BenchmarkNearestCPU is BenchmarkNearest reusing one hit slice, as the
// server's hit pool does, and reporting the process's CPU per search
// (cpu-ns/op), which a wall-clock ns/op on a busy machine hides; with
// -benchmem it shows the search's own garbage (issue 10).
func BenchmarkNearestCPU(b *testing.B) {
	r, at := metro(b, shard.DefaultMap(), 1_000_000)
	var hits []shard.Hit
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		lon, lat := at()
		q := geo.NewSearch(lon, lat, geo.Shape{Radius: 2, Unit: 1000})
		res, _ := r.NearestInto(hits, drivers, q, 10)
		hits = res.Hits
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
