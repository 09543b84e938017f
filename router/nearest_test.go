package router

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// The nearest-first walk must give what collecting every hit and sorting
// them as Redis does gives, whenever it claims to be exact; and it must
// claim so for the common case of distinct distances.
func TestNearestMatchesFullSort(t *testing.T) {
	for name, m := range map[string]*shard.Map{
		"world":       shard.DefaultMap(),
		"adversarial": shard.GridMap(4.0, 51.6, 5.6, 52.8, 24, 24, 500),
	} {
		r := New(Config{Regions: m, FanoutTimeout: time.Minute}) // no degraded search on a loaded machine
		rng := rand.New(rand.NewPCG(9, 9))
		for i := range 4000 {
			lon, lat := 4.0+rng.Float64()*1.6, 51.6+rng.Float64()*1.2
			if i%40 == 0 { // a stack of members on one spot makes ties
				lon, lat = 4.8, 52.2
			}
			r.Add(drivers, fmt.Sprintf("d%d", i), geo.Encode(lon, lat), AddFlags{})
		}
		exact := 0
		for i := range 300 {
			lon, lat := 3.9+rng.Float64()*1.8, 51.5+rng.Float64()*1.4
			if i%10 == 0 {
				lon, lat = 4.8, 52.2
			}
			q := geo.NewSearch(lon, lat, geo.Shape{Radius: rng.Float64() * 15, Unit: 1000})
			n := 1 + rng.IntN(30)
			got, ok := r.Nearest(drivers, q, n)
			if !ok {
				continue
			}
			exact++
			all := r.Search(drivers, q, 0).Hits
			k := min(n, len(all))
			dist := func(h *shard.Hit) float64 { return h.Dist }
			if k == len(all) {
				geo.Sort(all, dist, false)
			} else {
				geo.SortTop(all, k, dist, false)
			}
			if !slices.Equal(names(got.Hits), names(all[:k])) {
				t.Fatalf("%s map, search %d (n=%d):\nnearest %v\n   full %v", name, i, n, names(got.Hits), names(all[:k]))
			}
		}
		if exact < 250 {
			t.Fatalf("%s map: only %d of 300 searches took the exact nearest-first path", name, exact)
		}
	}
}

// A COUNT near the int64 limit takes the full search instead of sizing
// the walk's heap by it.
func TestNearestHugeCount(t *testing.T) {
	r := New(Config{})
	r.Add(drivers, "a", geo.Encode(4.9, 52.37), AddFlags{})
	q := geo.NewSearch(4.9, 52.37, geo.Shape{Radius: 10, Unit: 1000})
	for _, n := range []int{math.MaxInt, math.MaxInt - 1, maxNearest + 1} {
		if _, exact := r.Nearest(drivers, q, n); exact {
			t.Errorf("Nearest with COUNT %d claims an exact answer", n)
		}
	}
}
