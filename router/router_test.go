package router

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

var drivers = shard.Key{Name: "drivers"}

// point is a member as a brute-force model keeps it.
type point struct {
	member string
	score  float64
}

// bruteForce answers a search the slow, obvious way: every cell in scan
// order, every member in sorted-set order.
func bruteForce(pts []point, q *geo.Search) []string {
	sorted := slices.Clone(pts)
	slices.SortFunc(sorted, func(a, b point) int {
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.member, b.member))
	})
	var out []string
	for _, c := range q.Cells {
		for _, p := range sorted {
			if p.score < c.Min || p.score >= c.Max {
				continue
			}
			lon, lat := geo.Decode(p.score)
			if _, ok := q.Match(lon, lat); ok {
				out = append(out, p.member)
			}
		}
	}
	return out
}

func names(hits []shard.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%s@%.4f", h.Member, h.Dist)
	}
	return out
}

func oneShardMap(t *testing.T) *shard.Map {
	t.Helper()
	m, err := shard.LoadMap([]byte(`{"type":"FeatureCollection","features":[{"type":"Feature",
		"properties":{"shard":"world"},"geometry":{"type":"Polygon","coordinates":
		[[[-180,-85.05112878],[180,-85.05112878],[180,85.05112878],[-180,85.05112878],[-180,-85.05112878]]]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Results must not depend on the region map: the same data and searches
// give the same members, order and distances on every map, and equal a
// brute-force scan.
func TestSearchIndependentOfMap(t *testing.T) {
	maps := map[string]*shard.Map{
		"world":       shard.DefaultMap(),
		"one":         oneShardMap(t),
		"adversarial": shard.GridMap(4.0, 51.6, 5.6, 52.8, 24, 24, 500),
	}
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 42))
		var pts []point
		routers := map[string]*Router{}
		for name, m := range maps {
			// Correctness, not timing: no shard may miss a deadline
			// on a loaded machine under -race.
			routers[name] = New(Config{Regions: m, FanoutTimeout: time.Minute})
		}
		for i := range 3000 {
			lon := 4.0 + rng.Float64()*1.6
			lat := 51.6 + rng.Float64()*1.2
			if i%50 == 0 && i > 0 { // ties: several members on one spot
				lon, lat = geo.Decode(pts[i-1].score)
			}
			p := point{fmt.Sprintf("d%d", i), geo.Encode(lon, lat)}
			pts = append(pts, p)
			for _, r := range routers {
				r.Add(drivers, p.member, p.score, AddFlags{})
			}
		}
		for i := range 200 {
			lon := 3.9 + rng.Float64()*1.8
			lat := 51.5 + rng.Float64()*1.4
			var shape geo.Shape
			if i%3 == 0 {
				shape = geo.Shape{Box: true, Width: rng.Float64() * 30, Height: rng.Float64() * 30, Unit: 1000}
			} else {
				shape = geo.Shape{Radius: rng.Float64() * 20, Unit: 1000}
			}
			q := geo.NewSearch(lon, lat, shape)
			want := bruteForce(pts, q)
			for name, r := range routers {
				res := r.Search(drivers, q, 0)
				got := make([]string, len(res.Hits))
				for j, h := range res.Hits {
					got[j] = h.Member
				}
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d search %d (%v %v %+v) on %s map:\n got %v\nwant %v", seed, i, lon, lat, shape, name, got, want)
				}
				if res.Degraded {
					t.Fatalf("search %d on %s map degraded", i, name)
				}
			}
			a, b := routers["world"].Search(drivers, q, 0), routers["adversarial"].Search(drivers, q, 0)
			if !slices.Equal(names(a.Hits), names(b.Hits)) {
				t.Fatalf("distances differ between maps")
			}
		}
	}
}

// A search deep inside one shard asks exactly that shard; a pickup near a
// border finds a driver on the other side.
func TestEdgeSearch(t *testing.T) {
	// Two shards split at longitude 5.0, margin 200 m.
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 2, 1, 200)
	r := New(Config{Regions: m})
	const metresPerDegLon = 111195 * 0.6143 // cos(52.1°)
	pickupLon := 5.0 - 300/metresPerDegLon
	driverLon := 5.0 + 400/metresPerDegLon
	r.Add(drivers, "driver:b", geo.Encode(driverLon, 52.1), AddFlags{})
	if a, b := m.Locate(pickupLon, 52.1), m.Locate(driverLon, 52.1); a == b {
		t.Fatalf("pickup and driver in one shard %d", a)
	}
	res := r.Search(drivers, geo.NewSearch(pickupLon, 52.1, geo.Shape{Radius: 2, Unit: 1000}), 0)
	if len(res.Hits) != 1 || res.Hits[0].Member != "driver:b" {
		t.Fatalf("edge search: %+v", res)
	}
	// A key too big to ask only the shards holding it asks those the
	// search area touches: both near the border, one deep inside.
	for i := range smallKey {
		r.Add(drivers, fmt.Sprintf("d%d", i), geo.Encode(4.6+float64(i%2)*0.7, 52.3), AddFlags{})
	}
	res = r.Search(drivers, geo.NewSearch(pickupLon, 52.1, geo.Shape{Radius: 2, Unit: 1000}), 0)
	if len(res.Hits) != 1 || res.Shards != 2 {
		t.Fatalf("edge search of a big key: %+v", res)
	}
	res = r.Search(drivers, geo.NewSearch(4.7, 52.25, geo.Shape{Radius: 2, Unit: 1000}), 0)
	if res.Shards != 1 {
		t.Fatalf("deep search asked %d shards", res.Shards)
	}
}

// Zig-zagging across a border within the margin hands nothing over; going
// past the margin hands over once.
func TestHysteresis(t *testing.T) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 2, 1, 200)
	r := New(Config{Regions: m})
	const degPer100m = 100 / (111195 * 0.6143)
	west, east := m.Locate(4.9, 52.1), m.Locate(5.1, 52.1)
	handoffs := func() int64 { return r.stats.Border(west, east).Handoffs.Load() }
	r.Add(drivers, "d", geo.Encode(5.0-degPer100m, 52.1), AddFlags{})
	for i := range 20 {
		lon := 5.0 - degPer100m
		if i%2 == 0 {
			lon = 5.0 + degPer100m
		}
		r.Add(drivers, "d", geo.Encode(lon, 52.1), AddFlags{})
	}
	if n := handoffs(); n != 0 {
		t.Fatalf("zig-zag within the margin: %d handoffs", n)
	}
	if n := r.stats.Border(west, east).FlapsSuppressed.Load(); n != 10 {
		t.Fatalf("flaps suppressed: %d, want 10", n)
	}
	r.Add(drivers, "d", geo.Encode(5.0+3*degPer100m, 52.1), AddFlags{})
	if n := handoffs(); n != 1 {
		t.Fatalf("past the margin: %d handoffs, want 1", n)
	}
	if got := r.shards[east].Len(drivers) + r.shards[west].Len(drivers); got != 1 {
		t.Fatalf("%d copies after the handoff", got)
	}
}

// Drivers ping along routes that cross and follow borders while searches
// run: a search around a driver's last acknowledged position always finds
// it, and never twice.
func TestHandoffUnderLoad(t *testing.T) {
	m := shard.GridMap(4.8, 52.3, 5.0, 52.4, 8, 4, 200)
	r := New(Config{Regions: m, FanoutTimeout: time.Minute}) // no degraded search on a loaded machine
	const nDrivers, steps = 16, 300
	type ack struct{ lon, lat float64 }
	var mu sync.Mutex
	acked := map[string]ack{}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for d := range nDrivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(d), 7))
			name := fmt.Sprintf("driver:%d", d)
			lon, lat := 4.8+rng.Float64()*0.2, 52.3+rng.Float64()*0.1
			for range steps {
				lon = min(max(lon+(rng.Float64()-0.5)*0.01, 4.8), 5.0)
				lat = min(max(lat+(rng.Float64()-0.5)*0.005, 52.3), 52.4)
				score := geo.Encode(lon, lat)
				r.Add(drivers, name, score, AddFlags{})
				plon, plat := geo.Decode(score)
				mu.Lock()
				acked[name] = ack{plon, plat}
				mu.Unlock()
				res := r.Search(drivers, geo.NewSearch(plon, plat, geo.Shape{Radius: 50, Unit: 1}), 0)
				seen := 0
				for _, h := range res.Hits {
					if h.Member == name {
						seen++
					}
				}
				if seen != 1 {
					errs <- fmt.Errorf("%s seen %d times around its acknowledged position", name, seen)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // searches over the whole area see every driver once
		defer wg.Done()
		for range 200 {
			res := r.Search(drivers, geo.NewSearch(4.9, 52.35, geo.Shape{Box: true, Width: 40, Height: 40, Unit: 1000}), 0)
			seen := map[string]int{}
			for _, h := range res.Hits {
				seen[h.Member]++
				if seen[h.Member] > 1 {
					errs <- fmt.Errorf("%s returned twice", h.Member)
					return
				}
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := r.Card(drivers); n != nDrivers {
		t.Fatalf("card %d, want %d", n, nDrivers)
	}
}

// A slow local shard slows a search down but never degrades it: the
// fan-out deadline is for shards on other nodes, which can fail on their
// own; a shard in this process answers, however busy the CPU.
func TestSlowLocalShardStaysExact(t *testing.T) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 2, 1, 200)
	r := New(Config{Regions: m, FanoutTimeout: 10 * time.Millisecond})
	r.Add(drivers, "west", geo.Encode(4.99, 52.1), AddFlags{})
	r.Add(drivers, "east", geo.Encode(5.01, 52.1), AddFlags{})
	east := m.Locate(5.01, 52.1)
	r.SetShardDelay(east, 50*time.Millisecond)
	res := r.Search(drivers, geo.NewSearch(5.0, 52.1, geo.Shape{Radius: 5, Unit: 1000}), 0)
	var got []string
	for _, h := range res.Hits {
		got = append(got, h.Member)
	}
	slices.Sort(got)
	if res.Degraded || !slices.Equal(got, []string{"east", "west"}) {
		t.Fatalf("want both drivers, not degraded; got %v (degraded %v)", got, res.Degraded)
	}
	if n := r.stats.Shards[east].Degraded.Load() + r.stats.Degraded.Load(); n != 0 {
		t.Fatalf("%d degraded counts for a local shard", n)
	}
}

// A copy whose delete was lost vanishes after the TTL, and until then the
// merge prefers the newest copy.
//
// The TTL is a second: the checks of the newest copy come right after a
// write, and must not find it expired because a loaded machine held this
// goroutine back (with 300 ms, a stall of 300 ms between two statements
// failed it; a 5 ms ticker in another process waited 508 ms at load 7.6).
// Sleeps only make the old copy older.
func TestLostDeleteExpires(t *testing.T) {
	const ttl = time.Second
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 2, 1, 200)
	r := New(Config{Regions: m, PositionTTL: ttl})
	r.DropDeletes(true)
	r.Add(drivers, "d", geo.Encode(4.9, 52.1), AddFlags{})
	time.Sleep(50 * time.Millisecond)
	r.Add(drivers, "d", geo.Encode(5.1, 52.1), AddFlags{}) // crosses; old copy stays
	q := geo.NewSearch(5.0, 52.1, geo.Shape{Radius: 20, Unit: 1000})
	res := r.Search(drivers, q, 0)
	if len(res.Hits) != 1 || res.Hits[0].Lon < 5.0 {
		t.Fatalf("want only the newest copy, got %+v", res.Hits)
	}
	if n := r.shards[m.Locate(4.9, 52.1)].Len(drivers); n != 1 {
		t.Fatalf("the lost delete left %d stale copies, want 1", n)
	}
	// Keep pinging at the new place; the stale copy ages out.
	for range 6 {
		time.Sleep(ttl / 4)
		r.Add(drivers, "d", geo.Encode(5.1, 52.1), AddFlags{})
	}
	r.Reclaim()
	if n := r.shards[m.Locate(4.9, 52.1)].Len(drivers); n != 0 {
		t.Fatalf("the stale copy survived its TTL")
	}
	if n := r.Card(drivers); n != 1 {
		t.Fatalf("card %d, want 1: the current copy must stay", n)
	}
	time.Sleep(ttl + ttl/5)
	if res := r.Search(drivers, q, 0); len(res.Hits) != 0 {
		t.Fatalf("expired position still found: %+v", res.Hits)
	}
	if n := r.Card(drivers); n != 0 {
		t.Fatalf("card %d after the TTL", n)
	}
}
