package shard

import (
	"math/rand/v2"
	"testing"

	"geoshard/geo"
)

// rmBenchMaps are the embedded world map and a 1,000-polygon grid.
func rmBenchMaps() []struct {
	name string
	m    *Map
	box  geo.Rect // where the benchmark's points fall
} {
	return []struct {
		name string
		m    *Map
		box  geo.Rect
	}{
		{"world", DefaultMap(), geo.Rect{MinLon: -180, MinLat: -80, MaxLon: 180, MaxLat: 80}},
		{"grid1000", GridMap(-10, 35, 30, 60, 40, 25, 200), geo.Rect{MinLon: -12, MinLat: 34, MaxLon: 32, MaxLat: 61}},
	}
}

func rmBenchPoints(box geo.Rect) [][2]float64 {
	rng := rand.New(rand.NewPCG(11, 12))
	pts := make([][2]float64, 4096)
	for i := range pts {
		pts[i] = [2]float64{
			box.MinLon + rng.Float64()*(box.MaxLon-box.MinLon),
			box.MinLat + rng.Float64()*(box.MaxLat-box.MinLat),
		}
	}
	return pts
}

func BenchmarkLocate(b *testing.B) {
	for _, bm := range rmBenchMaps() {
		b.Run(bm.name, func(b *testing.B) {
			pts := rmBenchPoints(bm.box)
			b.ReportAllocs()
			var sink ID
			for i := 0; b.Loop(); i++ {
				p := pts[i&4095]
				sink ^= bm.m.Locate(p[0], p[1])
			}
			_ = sink
		})
	}
}

// BenchmarkTouching uses search rectangles of about 2 km, the size of a
// typical dispatch query.
func BenchmarkTouching(b *testing.B) {
	for _, bm := range rmBenchMaps() {
		b.Run(bm.name, func(b *testing.B) {
			pts := rmBenchPoints(bm.box)
			buf := make([]ID, 0, 16)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				p := pts[i&4095]
				r := geo.Rect{MinLon: p[0] - 0.02, MinLat: p[1] - 0.018, MaxLon: p[0] + 0.02, MaxLat: p[1] + 0.018}
				buf = bm.m.Touching(r, buf[:0])
			}
		})
	}
}

// BenchmarkLoadMap measures validating and indexing a 1,000-shard map.
func BenchmarkLoadMap(b *testing.B) {
	data := GridMap(-10, 35, 30, 60, 40, 25, 200).GeoJSON()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadMap(data); err != nil {
			b.Fatal(err)
		}
	}
}
