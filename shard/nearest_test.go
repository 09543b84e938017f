package shard

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"geoshard/geo"
)

// nearestShard holds 3000 metro members, every 50th on one spot (ties).
func nearestShard() *Shard {
	s := New()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		lon, lat := 4.9+rng.NormFloat64()*0.05, 52.37+rng.NormFloat64()*0.03
		if i%50 == 0 {
			lon, lat = 4.91, 52.36
		}
		s.Put(drivers, NewEntry(fmt.Sprintf("m%d", i), geo.Encode(lon, lat), 1))
	}
	return s
}

// bruteNearest is every hit of q within metres, nearest first.
func bruteNearest(s *Shard, q *geo.Search, within float64) []Hit {
	var all []Hit
	s.Ascend(drivers, math.Inf(-1), 0, func(e Entry) bool {
		dist, ok := q.Match(e.Lon, e.Lat)
		if ok && q.CellOf(e.Score) >= 0 && dist <= within {
			all = append(all, Hit{Entry: e, Dist: dist})
		}
		return true
	})
	slices.SortFunc(all, func(a, b Hit) int { return cmp.Compare(a.Dist, b.Dist) })
	return all
}

// A walk's scratch comes from a pool and the hits go into a caller's
// slice that held another search's hits: whatever order searches of any
// size come in, each still finds at least its n nearest, only hits, and
// all of them when it says it is complete.
func TestNearestReusesScratch(t *testing.T) {
	s := nearestShard()
	tests := []struct {
		name           string
		lon, lat, km   float64
		n              int
		withinFraction float64
	}{
		{"count 10 at 2 km", 4.90, 52.37, 2, 10, 1},
		{"ties on one spot", 4.91, 52.36, 1, 5, 1},
		{"count past the hits", 4.95, 52.40, 0.5, 100, 1},
		{"big count grows the heaps", 4.90, 52.37, 20, 2500, 1},
		{"within half the radius", 4.88, 52.35, 5, 30, 0.5},
		{"nothing near", 10, 10, 1, 10, 1},
	}
	dst := make([]Hit, 0, 8)
	for round := range 3 {
		for _, i := range rand.New(rand.NewPCG(uint64(round), 1)).Perm(len(tests)) {
			tc := tests[i]
			q := geo.NewSearch(tc.lon, tc.lat, geo.Shape{Radius: tc.km, Unit: 1000})
			within := q.RadiusMetres() * tc.withinFraction
			got, complete := s.NearestWithin(drivers, q, 0, tc.n, within, dst[:0])
			dst = got
			want := bruteNearest(s, q, within)
			have := map[string]bool{}
			for _, h := range got {
				if have[h.Member] {
					t.Fatalf("%s, round %d: %s twice", tc.name, round, h.Member)
				}
				have[h.Member] = true
			}
			if complete && len(got) != len(want) {
				t.Fatalf("%s, round %d: complete with %d hits of %d", tc.name, round, len(got), len(want))
			}
			for j, h := range want {
				if j < tc.n || h.Dist == want[tc.n-1].Dist {
					if !have[h.Member] {
						t.Fatalf("%s, round %d: missed %s, hit %d at %v m", tc.name, round, h.Member, j, h.Dist)
					}
				}
			}
			for _, h := range got {
				if _, ok := q.Match(h.Lon, h.Lat); !ok || h.Dist > within {
					t.Fatalf("%s, round %d: %s is no hit", tc.name, round, h.Member)
				}
			}
		}
	}
}

// A 2 km COUNT 10 search into a slice with room makes no garbage: its
// walk's queue and distance heap come back from the shard's pool
// (issue 10: it made 7.3 KB a search).
func TestNearestMakesNoGarbage(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	s := nearestShard()
	q := geo.NewSearch(4.90, 52.37, geo.Shape{Radius: 2, Unit: 1000})
	dst := make([]Hit, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		dst, _ = s.Nearest(drivers, q, 0, 11, dst[:0])
	})
	if len(dst) < 11 {
		t.Fatalf("only %d hits", len(dst))
	}
	if allocs != 0 {
		t.Fatalf("%v allocations a search, want 0", allocs)
	}
}
