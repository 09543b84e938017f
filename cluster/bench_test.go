package cluster

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

// metro fills a router with n drivers in a few Gaussian city clusters.
func metro(b *testing.B, m *shard.Map, n int) (*Router, func() (float64, float64)) {
	b.Helper()
	r := New(Config{Regions: m})
	rng := rand.New(rand.NewPCG(1, 2))
	cities := [][2]float64{{4.90, 52.37}, {4.48, 51.92}, {4.30, 52.07}, {5.12, 52.09}, {5.47, 51.44}}
	at := func() (float64, float64) {
		c := cities[rng.IntN(len(cities))]
		return c[0] + rng.NormFloat64()*0.05, c[1] + rng.NormFloat64()*0.03
	}
	for i := range n {
		lon, lat := at()
		r.Add(drivers, fmt.Sprintf("driver:%d", i), geo.Encode(lon, lat), AddFlags{})
	}
	return r, at
}

func BenchmarkNearest(b *testing.B) {
	r, at := metro(b, shard.DefaultMap(), 1_000_000)
	b.ResetTimer()
	ties := 0
	for b.Loop() {
		lon, lat := at()
		if _, ok := r.Nearest(drivers, geo.NewSearch(lon, lat, geo.Shape{Radius: 2, Unit: 1000}), 10); !ok {
			ties++ // commands falls back to the full scan then
		}
	}
	b.ReportMetric(float64(ties)/float64(b.N), "ties/op")
}

func BenchmarkSearchWide(b *testing.B) {
	r, at := metro(b, shard.DefaultMap(), 1_000_000)
	b.ResetTimer()
	for b.Loop() {
		lon, lat := at()
		r.Search(drivers, geo.NewSearch(lon, lat, geo.Shape{Radius: 5, Unit: 1000}), 0)
	}
}

func BenchmarkAdd(b *testing.B) {
	r, at := metro(b, shard.DefaultMap(), 1_000_000)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		lon, lat := at()
		r.Add(drivers, fmt.Sprintf("driver:%d", i%1_000_000), geo.Encode(lon, lat), AddFlags{})
		i++
	}
}

// BenchmarkMemoryPerDriver reports the live heap a router holds per
// driver at 1M drivers (compare Redis's used_memory per member).
func BenchmarkMemoryPerDriver(b *testing.B) {
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, _ := metro(b, shard.DefaultMap(), 1_000_000)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "B/driver")
		runtime.KeepAlive(r)
	}
}
