package router

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// On a generated map of 10,000 areas, searches of every size, up to one
// over the whole world, equal a brute-force scan; they count only the
// borders between the shards they asked, and counting leaves memory where
// the map put it (issue 11; issue 15 #10: a world-wide search on 5,001
// areas used to leave half a gigabyte of per-pair border entries).
func TestTenThousandAreas(t *testing.T) {
	m := shard.GridMap(-10, 35, 30, 60, 100, 100, 200)
	if m.Len() != 10_001 {
		t.Fatalf("%d shards", m.Len())
	}
	r := New(Config{Regions: m})
	rng := rand.New(rand.NewPCG(11, 1))
	var pts []point
	for i := range 2000 {
		lon, lat := -12+rng.Float64()*44, 33+rng.Float64()*29 // some outside the grid
		if i%100 == 0 {
			lon, lat = 150*rng.Float64(), -60+rng.Float64()*80 // the catch-all
		}
		p := point{fmt.Sprintf("m%d", i), geo.Encode(lon, lat)}
		pts = append(pts, p)
		r.Add(drivers, p.member, p.score, AddFlags{})
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	shapes := []geo.Shape{
		{Radius: 2, Unit: 1000}, {Radius: 50, Unit: 1000}, {Radius: 500, Unit: 1000}, {Radius: 5000, Unit: 1000},
		{Box: true, Width: 40000, Height: 20000, Unit: 1000}, // the world
	}
	for _, shape := range shapes {
		for i := range 5 {
			lon, lat := -10+rng.Float64()*40, 35+rng.Float64()*25
			q := geo.NewSearch(lon, lat, shape)
			res := r.Search(drivers, q, 0)
			got := make([]string, len(res.Hits))
			for j, h := range res.Hits {
				got[j] = h.Member
			}
			if want := bruteForce(pts, q); !slices.Equal(got, want) || res.Degraded {
				t.Fatalf("%+v at %v,%v (search %d): %d hits (degraded %v), want %d", shape, lon, lat, i, len(got), res.Degraded, len(want))
			}
		}
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 32<<20 {
		t.Errorf("searches left %d MB more heap", grew>>20)
	}
	if n, most := len(r.Stats().Borders()), m.Borders(); n > most {
		t.Errorf("%d borders with counters, the map has %d", n, most)
	}
	// A search asks the shards it touches that hold some of the key:
	// each border between two of them once.
	for i, p := range [][2]float64{{-9.8, 35.1}, {-9.4, 35.1}, {-9.8, 35.35}} {
		r.Add(drivers, fmt.Sprintf("corner%d", i), geo.Encode(p[0], p[1]), AddFlags{})
	}
	corner := geo.NewSearch(-9.6, 35.1, geo.Shape{Radius: 60, Unit: 1000})
	if ids, _ := r.asked(r.key(drivers, false), corner); r.fromOwners(r.key(drivers, false), len(ids)) {
		t.Fatalf("the corner search (%d shards) would read the owner table", len(ids))
	}
	west, _ := m.Lookup("cell-0-0")
	east, _ := m.Lookup("cell-1-0")
	far, _ := m.Lookup("cell-99-99")
	before0 := r.Stats().Border(west, east).Searches.Load()
	elsewhere := r.Stats().Elsewhere.Searches.Load()
	r.Search(drivers, corner, 0)
	if d := r.Stats().Border(west, east).Searches.Load() - before0; d != 1 {
		t.Errorf("corner search counted %d on a border, want 1", d)
	}
	if r.Stats().Border(west, far) != &r.Stats().Elsewhere || r.Stats().Elsewhere.Searches.Load() != elsewhere {
		t.Error("shards far apart counted as a border")
	}
}

// A small key is searched in the shards that hold it: on a fine map a
// world-wide search asks a handful of shards, not thousands, and still
// finds every member (issue 11: 4.8 searches/s on a 3-member key).
func TestSmallKeyAsksItsShards(t *testing.T) {
	m := shard.GridMap(-10, 35, 30, 60, 100, 100, 200)
	r := New(Config{Regions: m})
	for i, p := range [][2]float64{{4.89, 52.37}, {13.4, 52.52}, {-73.98, 40.75}} {
		r.Add(drivers, fmt.Sprint(i), geo.Encode(p[0], p[1]), AddFlags{})
	}
	world := geo.NewSearch(0, 0, geo.Shape{Box: true, Width: 40000, Height: 20000, Unit: 1000})
	if res := r.Search(drivers, world, 0); len(res.Hits) != 3 || res.Shards != 3 {
		t.Fatalf("world search: %d hits from %d shards", len(res.Hits), res.Shards)
	}
	near := geo.NewSearch(4.9, 52.37, geo.Shape{Radius: 5000, Unit: 1000})
	if res, exact := r.Nearest(drivers, near, 1); !exact || len(res.Hits) != 1 || res.Hits[0].Member != "0" {
		t.Fatalf("nearest: %+v (exact %v)", res, exact)
	}
	// The list of shards searches keep follows members to new shards and
	// away from old ones.
	r.Add(drivers, "0", geo.Encode(151.2, -33.86), AddFlags{}) // Amsterdam to Sydney, in the catch-all with New York
	if res := r.Search(drivers, world, 0); len(res.Hits) != 3 || res.Shards != 2 {
		t.Fatalf("after a move: %d hits from %d shards", len(res.Hits), res.Shards)
	}
	r.Add(drivers, "3", geo.Encode(-0.12, 51.5), AddFlags{}) // London, a shard of its own
	r.Remove(drivers, "1")                                   // Berlin's shard holds none now
	res := r.Search(drivers, world, 0)
	got := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		got[i] = h.Member
	}
	if slices.Sort(got); !slices.Equal(got, []string{"0", "2", "3"}) || res.Shards != 2 {
		t.Fatalf("after an add and a remove: %v from %d shards", got, res.Shards)
	}
}

// TestTopBorders: INFO's list is the busiest borders, a bounded number.
func TestTopBorders(t *testing.T) {
	m := shard.GridMap(0, 40, 10, 50, 30, 30, 200)
	r := New(Config{Regions: m, FanoutTimeout: time.Minute})
	// A key searched by area, not by holder, with members in every area
	// (a world-wide search asks every shard holding some), too many to
	// read from the owner table instead, and one in the catch-all by the
	// south-west corner.
	const perCell = ownerScanShards + 2
	for i := range 30 * 30 * perCell {
		c := i / perCell
		lon, lat := (float64(c%30)+0.1+0.8*float64(i%perCell)/perCell)/3, 40+(float64(c/30)+0.5)/3
		r.Add(drivers, fmt.Sprintf("m%d", i), geo.Encode(lon, lat), AddFlags{})
	}
	r.Add(drivers, "outside", geo.Encode(-0.05, 39.95), AddFlags{})
	r.Search(drivers, geo.NewSearch(5, 45, geo.Shape{Box: true, Width: 40000, Height: 20000, Unit: 1000}), 0)
	r.Search(drivers, geo.NewSearch(0.01, 40.01, geo.Shape{Radius: 2, Unit: 1000}), 0) // the south-west corner
	all := len(r.Stats().Borders())
	top, rest := r.Stats().TopBorders(10)
	if len(top) != 10 || rest != all-10 || all != m.Borders() {
		t.Fatalf("top %d, rest %d, of %d borders with traffic (map: %d)", len(top), rest, all, m.Borders())
	}
	sw, _ := m.Lookup("cell-0-0")
	if want := (Border{sw, m.CatchAll()}); top[0] != want {
		t.Errorf("busiest border %v, want %v", top[0], want)
	}
}

// Members kept across a border by the hysteresis margin are still found
// where the region map no longer puts them: each shard is asked only for
// the cells its area, margin included, meets (issue 11), and searches of
// every size over a map of 3 km areas with a 2 km margin equal a
// brute-force scan.
func TestSearchFindsMembersKeptPastBorders(t *testing.T) {
	m := shard.GridMap(4, 51, 6, 53, 40, 60, 2000)
	r := New(Config{Regions: m})
	rng := rand.New(rand.NewPCG(12, 3))
	pos := make([][2]float64, 3000)
	for i := range pos {
		pos[i] = [2]float64{4 + rng.Float64()*2, 51 + rng.Float64()*2}
		r.Add(drivers, fmt.Sprintf("m%d", i), geo.Encode(pos[i][0], pos[i][1]), AddFlags{})
	}
	for range 3 { // wobble: up to about 1.5 km each way, three times
		for i := range pos {
			pos[i][0] += (rng.Float64() - 0.5) * 0.04
			pos[i][1] += (rng.Float64() - 0.5) * 0.027
			r.Add(drivers, fmt.Sprintf("m%d", i), geo.Encode(pos[i][0], pos[i][1]), AddFlags{})
		}
	}
	pts := make([]point, len(pos))
	for i, p := range pos {
		pts[i] = point{fmt.Sprintf("m%d", i), geo.Encode(p[0], p[1])}
	}
	kept := 0
	g := r.key(drivers, false)
	for i := range g.stripes {
		for member, s := range g.stripes[i].owner.all() {
			var j int
			fmt.Sscanf(member, "m%d", &j)
			if m.Locate(pos[j][0], pos[j][1]) != s.shard {
				kept++
			}
		}
	}
	if kept < 100 {
		t.Fatalf("only %d members kept past a border: the test does not test the margin", kept)
	}
	shapes := []geo.Shape{
		{Radius: 300, Unit: 1}, {Radius: 2, Unit: 1000}, {Radius: 10, Unit: 1000}, {Radius: 100, Unit: 1000},
		{Box: true, Width: 3, Height: 5, Unit: 1000}, {Box: true, Width: 40, Height: 20, Unit: 1000},
	}
	for _, shape := range shapes {
		for i := range 20 {
			q := geo.NewSearch(4+rng.Float64()*2, 51+rng.Float64()*2, shape)
			res := r.Search(drivers, q, 0)
			got := make([]string, len(res.Hits))
			for j, h := range res.Hits {
				got[j] = h.Member
			}
			if want := bruteForce(pts, q); !slices.Equal(got, want) {
				t.Fatalf("%+v (search %d): %d hits, want %d", shape, i, len(got), len(want))
			}
		}
	}
}
