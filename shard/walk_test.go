package shard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"geoshard/geo"
)

// The nearest-first walk over the score order visits every member a
// search can match, once, with bounds that never decrease and never
// exceed the exact distance, whatever the layout.
func TestNearbyWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	tests := []struct {
		name  string
		score func(i int) float64
	}{
		{"metro", func(int) float64 { return geo.Encode(4.9+rng.NormFloat64()*0.05, 52.37+rng.NormFloat64()*0.03) }},
		{"dense metro", func(int) float64 { return geo.Encode(4.9+rng.NormFloat64()*0.002, 52.37+rng.NormFloat64()*0.001) }},
		{"world", func(int) float64 { return geo.Encode(rng.Float64()*360-180, rng.Float64()*170-85) }},
		{"one spot", func(int) float64 { return geo.Encode(4.9, 52.37) }},
		{"few spots", func(i int) float64 { return geo.Encode(4.9+float64(i%3)*1e-6, 52.37) }},
		{"edges", func(i int) float64 {
			// lon=180 and lat=MaxLat overflow past 2^52, as in Redis.
			return []float64{geo.Encode(180, 52.36), geo.Encode(4.9, geo.MaxLat), geo.Encode(180, geo.MaxLat),
				geo.Encode(-180, 52.36), geo.Encode(4.9, 52.37)}[i%5]
		}},
		{"sorted-set scores", func(i int) float64 {
			// ZADD takes any score: fractions, negatives and scores past
			// 2^54 that no geohash cell holds.
			return []float64{-1, 1.5, 1 << 52, 1 << 54, math.Inf(1), float64(i), geo.Encode(4.9, 52.37)}[i%7]
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSet()
			want := map[string]bool{}
			for i := range 3000 {
				score := tc.score(i)
				name := fmt.Sprintf("m%d", i)
				s.put(Entry{Member: name, Score: score})
				if score >= 0 && score < 1<<54 {
					want[name] = true
				}
			}
			// Points off the members, on the crowded spots (the walk then
			// skips down the chain of cells holding the point, skipChain)
			// and on the east and north edges.
			for _, p := range [][2]float64{{4.91, 52.36}, {4.9, 52.37}, {180, 52.36}, {4.9, geo.MaxLat}, {-180, -geo.MaxLat}} {
				last := 0.0
				seen := map[string]bool{}
				s.nearby(p[0], p[1], func(it *item, bound float64) bool {
					lon, lat := geo.Decode(it.score)
					if exact := geo.Distance(p[0], p[1], lon, lat); bound > exact || bound < last {
						t.Fatalf("from %v: %s: bound %v after %v, exact %v", p, s.member(it), bound, last, exact)
					}
					if seen[s.member(it)] || !want[s.member(it)] {
						t.Fatalf("from %v: %s visited twice or not a cell's member", p, s.member(it))
					}
					seen[s.member(it)] = true
					last = bound
					return true
				})
				if len(seen) != len(want) {
					t.Fatalf("from %v: visited %d of %d", p, len(seen), len(want))
				}
			}
		})
	}
}
