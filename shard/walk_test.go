package shard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"geoshard/geo"
)

// The nearest-first walk over the score order visits every member once,
// with bounds that never decrease and never exceed the exact distance,
// whatever the layout and whatever the scores.
func TestNearbyWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	tests := []struct {
		name     string
		lon, lat float64 // the walk's centre
		score    func(i int) float64
	}{
		{"metro", 4.91, 52.36, func(int) float64 { return geo.Encode(4.9+rng.NormFloat64()*0.05, 52.37+rng.NormFloat64()*0.03) }},
		{"world", 4.91, 52.36, func(int) float64 { return geo.Encode(rng.Float64()*360-180, rng.Float64()*170-85) }},
		{"one spot", 4.91, 52.36, func(int) float64 { return geo.Encode(4.9, 52.37) }},
		{"few spots", 4.91, 52.36, func(i int) float64 { return geo.Encode(4.9+float64(i%3)*1e-6, 52.37) }},
		{"sorted-set scores", 4.91, 52.36, func(i int) float64 {
			// ZADD takes any score: fractions, negatives and scores past
			// 2^52 that no geohash cell holds; GEOADD gives longitude 180
			// one of the latter.
			return []float64{-1, 1.5, 1 << 52, math.Inf(1), float64(i), geo.Encode(4.9, 52.37), geo.Encode(180, -17.7)}[i%7]
		}},
		{"antimeridian", 180, -17.7, func(i int) float64 {
			return geo.Encode(180-float64(i%5)*1e-4, -17.7+float64(i%3)*1e-4)
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
				want[name] = true
			}
			last := 0.0
			seen := map[string]bool{}
			s.nearby(tc.lon, tc.lat, func(it *item, bound float64) bool {
				lon, lat := geo.Decode(it.score)
				if exact := geo.Distance(tc.lon, tc.lat, lon, lat); bound > exact || bound < last {
					t.Fatalf("%s: bound %v after %v, exact %v", it.member, bound, last, exact)
				}
				if seen[it.member] {
					t.Fatalf("%s visited twice", it.member)
				}
				seen[it.member] = true
				last = bound
				return true
			})
			if len(seen) != len(want) {
				t.Fatalf("visited %d of %d", len(seen), len(want))
			}
		})
	}
}
