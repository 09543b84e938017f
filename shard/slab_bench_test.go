package shard

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"geoshard/geo"
)

// BenchmarkSlabSearch holds 1M metro drivers in one shard, added in an
// order unrelated to their scores as a live index's are, and reports the
// process's CPU per search (cpu-ns/op: steadier than wall time on a busy
// machine). Each hit reads its item from the slab, in score order: the
// figure to compare between slab layouts.
func BenchmarkSlabSearch(b *testing.B) {
	s, k := New(), Key{Name: "drivers"}
	rng := rand.New(rand.NewPCG(1, 2))
	at := func() (float64, float64) {
		return 4.90 + rng.NormFloat64()*0.05, 52.37 + rng.NormFloat64()*0.03
	}
	for i := range 1_000_000 {
		lon, lat := at()
		s.Put(k, Entry{Member: fmt.Sprintf("driver:%d", i), Score: geo.Encode(lon, lat), Stamp: int64(i)})
	}
	b.Run("wide5km", func(b *testing.B) {
		var hits []Hit
		cpu := cpuNow()
		for b.Loop() {
			lon, lat := at()
			q := geo.NewSearch(lon, lat, geo.Shape{Radius: 5, Unit: 1000})
			hits = s.SearchCells(k, q, AllCells, 0, 0, hits[:0])
		}
		b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(len(hits)), "hits")
	})
	b.Run("knn2km", func(b *testing.B) {
		var hits []Hit
		cpu := cpuNow()
		for b.Loop() {
			lon, lat := at()
			q := geo.NewSearch(lon, lat, geo.Shape{Radius: 2, Unit: 1000})
			hits, _ = s.Nearest(k, q, 0, 10, hits[:0])
		}
		b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
	})
}

// cpuNow is the process's user and system CPU time so far.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
