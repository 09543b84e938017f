package router

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// TestSearchDuringHandoffs: drivers cross the borders of 32 small areas
// without pause while reads over all of them run: every whole-area search,
// nearest search and range holds every driver once. A handoff stores the
// new copy, then deletes the old one; a read that met the new shard before
// the copy came and the old shard after it went missed the driver: 15-19
// of 971-1,596 whole-area searches, 13-21 of 421-1,419 nearest searches
// and 7-9 of 1,593-2,490 ranges in two runs before (readShards).
func TestSearchDuringHandoffs(t *testing.T) {
	m := shard.GridMap(4.8, 52.3, 5.0, 52.4, 8, 4, 200)
	r := New(Config{Regions: m, FanoutTimeout: time.Minute})
	const nDrivers, steps = 16, 4000
	for d := range nDrivers {
		r.Add(drivers, fmt.Sprint("driver:", d), geo.Encode(4.9, 52.35), AddFlags{})
	}
	var writers sync.WaitGroup
	for d := range nDrivers {
		writers.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(d), 7))
			name := fmt.Sprint("driver:", d)
			lon, lat := 4.8+rng.Float64()*0.2, 52.3+rng.Float64()*0.1
			for range steps {
				// Steps of up to a kilometre: areas are 2.8 x 2.8 km.
				lon = min(max(lon+(rng.Float64()-0.5)*0.02, 4.8), 5.0)
				lat = min(max(lat+(rng.Float64()-0.5)*0.01, 52.3), 52.4)
				r.Add(drivers, name, geo.Encode(lon, lat), AddFlags{})
			}
		})
	}
	var done atomic.Bool
	go func() { writers.Wait(); done.Store(true) }()
	everywhere := geo.NewSearch(4.9, 52.35, geo.Shape{Box: true, Width: 40, Height: 40, Unit: 1000})
	nearby := geo.NewSearch(4.9, 52.35, geo.Shape{Radius: 20, Unit: 1000})
	reads := []struct {
		name string
		read func() ([]string, bool) // the members read; false: not an answer (Nearest's fallback)
	}{
		{"search", func() ([]string, bool) { return members(r.Search(drivers, everywhere, 0).Hits), true }},
		{"nearest", func() ([]string, bool) {
			res, exact := r.Nearest(drivers, nearby, nDrivers)
			return members(res.Hits), exact
		}},
		{"range", func() ([]string, bool) {
			var out []string
			for _, m := range r.Range(drivers, Bound{Score: math.Inf(-1)}, Bound{Score: math.Inf(1)}, false, 0, -1) {
				out = append(out, m.Name)
			}
			return out, true
		}},
	}
	var readers sync.WaitGroup
	for _, rd := range reads {
		readers.Go(func() {
			n, wrong := 0, 0
			for !done.Load() {
				got, ok := rd.read()
				if !ok {
					continue
				}
				n++
				seen := map[string]bool{}
				for _, name := range got {
					seen[name] = true
				}
				if len(got) != nDrivers || len(seen) != nDrivers {
					if wrong++; wrong <= 3 {
						t.Errorf("%s: %d members, %d distinct; want each of the %d drivers once", rd.name, len(got), len(seen), nDrivers)
					}
				}
			}
			t.Logf("%s: %d of %d reads wrong", rd.name, wrong, n)
		})
	}
	readers.Wait()
	t.Logf("reads done again: %d", r.Stats().SearchRetries.Load())
}

// members names the hits.
func members(hits []shard.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Member
	}
	return out
}
