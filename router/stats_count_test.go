package router

import (
	"math/rand/v2"
	"slices"
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

// The bitset count of a wide search's borders equals the binary-search
// count, border by border and shard by shard, for sets of asked shards of
// every size on a 10,000-area grid (whose catch-all borders its edge).
func TestCountSearchWideEqualsNarrow(t *testing.T) {
	m := shard.GridMap(-10, 35, 30, 60, 100, 100, 200)
	wide, narrow := newStats(m), newStats(m)
	rng := rand.New(rand.NewPCG(41, 2))
	for _, n := range []int{bitsetMin, 100, 906, 5000, m.Len()} {
		ids := make([]shard.ID, 0, n)
		for _, i := range rng.Perm(m.Len())[:n] {
			ids = append(ids, shard.ID(i))
		}
		slices.Sort(ids)
		wide.countSearchWide(ids)
		narrow.countSearchNarrow(ids)
	}
	counted := 0
	for i := range narrow.borders {
		w, n := wide.borders[i].Searches.Load(), narrow.borders[i].Searches.Load()
		if w != n {
			t.Fatalf("border %d: %d searches, want %d", i, w, n)
		}
		counted += int(n)
	}
	for i := range narrow.Shards {
		if w, n := wide.Shards[i].Searches.Load(), narrow.Shards[i].Searches.Load(); w != n {
			t.Fatalf("shard %d: %d searches, want %d", i, w, n)
		}
	}
	if counted == 0 {
		t.Fatal("no border counted")
	}
}

// BenchmarkCountSearch counts the borders of a 500 km search's shards on a
// 10,000-area grid, both ways.
func BenchmarkCountSearch(b *testing.B) {
	m := shard.GridMap(-10, 35, 30, 60, 100, 100, 200)
	r := New(Config{Regions: m})
	ids := r.touching(geoSearch500(4.9, 52.37))
	for _, c := range []struct {
		name  string
		count func(*Stats, []shard.ID)
	}{{"narrow", (*Stats).countSearchNarrow}, {"wide", (*Stats).countSearchWide}} {
		b.Run(c.name, func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				c.count(r.stats, ids)
			}
			b.ReportMetric(float64(cpuTime()-start)/1e3/float64(b.N), "cpu-us/op")
			b.ReportMetric(float64(len(ids)), "shards")
		})
	}
}

func geoSearch500(lon, lat float64) *geo.Search {
	return geo.NewSearch(lon, lat, geo.Shape{Radius: 500, Unit: 1000})
}
