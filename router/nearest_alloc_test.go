package router

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// nearestMaps are the maps a nearest search's paths differ on: one shard
// holds the metro, a border splits it (the first shard's walk, then its
// neighbour's), a fine grid splits it many times (the fan-out).
func nearestMaps() map[string]*shard.Map {
	split, whole := borderMaps()
	return map[string]*shard.Map{
		"world": shard.DefaultMap(), "whole": whole, "split": split,
		"grid": shard.GridMap(4.0, 51.6, 5.6, 52.8, 24, 24, 500),
	}
}

// fillNearest adds n drivers around longitude 4.90, every 40th on one spot.
func fillNearest(r *Router, n int) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range n {
		lon, lat := 4.90+rng.NormFloat64()*0.05, 52.37+rng.NormFloat64()*0.03
		if i%40 == 0 {
			lon, lat = 4.9, 52.37
		}
		r.Add(drivers, fmt.Sprintf("d%d", i), geo.Encode(lon, lat), AddFlags{})
	}
}

// NearestInto fills a slice that held other searches' hits (the server's
// hit pool lends such slices): on every path it answers as Nearest does
// with a fresh one.
func TestNearestIntoReusesHits(t *testing.T) {
	for name, m := range nearestMaps() {
		t.Run(name, func(t *testing.T) {
			r := New(Config{Regions: m, FanoutTimeout: time.Minute})
			fillNearest(r, 4000)
			rng := rand.New(rand.NewPCG(7, 8))
			var hits []shard.Hit
			for i := range 300 {
				lon, lat := 4.90+(rng.Float64()-0.5)*0.2, 52.37+(rng.Float64()-0.5)*0.1
				if i%10 == 0 {
					lon, lat = 4.9, 52.37
				}
				q := geo.NewSearch(lon, lat, geo.Shape{Radius: rng.Float64() * 8, Unit: 1000})
				n := 1 + rng.IntN(60)
				want, wantExact := r.Nearest(drivers, q, n)
				got, exact := r.NearestInto(hits, drivers, q, n)
				hits = got.Hits
				if exact != wantExact || exact && !slices.Equal(names(got.Hits), names(want.Hits)) {
					t.Fatalf("search %d (n=%d): into a used slice %v %v, fresh %v %v",
						i, n, exact, names(got.Hits), wantExact, names(want.Hits))
				}
				if !exact && len(got.Hits) != 0 {
					t.Fatalf("search %d: not exact but %d hits", i, len(got.Hits))
				}
			}
		})
	}
}

// A 2 km COUNT 10 search into a slice with room makes no garbage when one
// local shard answers it (issue 10: it made 7.3 KB, 12 allocations), and
// one allocation, the narrower search that names the shards to ask, when
// the shard owning the centre proves its neighbour needs no asking.
func TestNearestIntoMakesNoGarbage(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	tests := []struct {
		name     string
		m        *shard.Map
		lon, lat float64
		allocs   float64
	}{
		{"one shard", shard.DefaultMap(), 4.92, 52.38, 0},
		{"first shard answers", nearestMaps()["split"], 4.89, 52.38, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := New(Config{Regions: tc.m})
			fillNearest(r, 20000)
			q := geo.NewSearch(tc.lon, tc.lat, geo.Shape{Radius: 2, Unit: 1000})
			hits := make([]shard.Hit, 0, 256)
			var exact bool
			allocs := testing.AllocsPerRun(100, func() {
				var res Result
				res, exact = r.NearestInto(hits, drivers, q, 10)
				hits = res.Hits
			})
			if !exact || len(hits) != 10 {
				t.Fatalf("exact %v with %d hits", exact, len(hits))
			}
			if allocs > tc.allocs {
				t.Fatalf("%v allocations a search, want %v", allocs, tc.allocs)
			}
		})
	}
}
