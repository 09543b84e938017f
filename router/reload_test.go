package router

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// A router rebuilt on another map answers exactly as before, keeps stamps
// and per-key TTLs, and places members by the new map.
func TestRebuiltOnNewMap(t *testing.T) {
	old := New(Config{Regions: shard.DefaultMap(), PositionTTL: time.Hour})
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 2000 {
		old.Add(drivers, fmt.Sprintf("d%d", i), geo.Encode(4+rng.Float64()*1.6, 51.6+rng.Float64()*1.2), AddFlags{})
	}
	other := shard.Key{DB: 3, Name: "other"}
	old.Add(other, "x", geo.Encode(151.2, -33.9), AddFlags{})
	old.SetKeyTTL(other, time.Minute)
	grid := shard.GridMap(4.0, 51.6, 5.6, 52.8, 10, 10, 300)
	nr, err := old.Rebuilt(grid)
	if err != nil {
		t.Fatal(err)
	}
	if nr.Regions() != grid || nr.Card(drivers) != 2000 || nr.Card(other) != 1 || nr.KeyTTL(other) != time.Minute {
		t.Fatalf("rebuilt router: map %v, cards %d %d, ttl %v", nr.Regions().Version(), nr.Card(drivers), nr.Card(other), nr.KeyTTL(other))
	}
	for range 50 {
		q := geo.NewSearch(4+rng.Float64()*1.6, 51.6+rng.Float64()*1.2, geo.Shape{Radius: rng.Float64() * 20, Unit: 1000})
		a, b := old.Search(drivers, q, 0), nr.Search(drivers, q, 0)
		if !slices.Equal(names(a.Hits), names(b.Hits)) {
			t.Fatalf("search differs after the rebuild")
		}
		for _, h := range b.Hits {
			if id := grid.Locate(h.Lon, h.Lat); nr.shards[id].Len(drivers) == 0 {
				t.Fatalf("%s not in its new shard %s", h.Member, grid.Name(id))
			}
		}
	}
	old.Each(drivers, func(m string, score float64, stamp int64) bool {
		if s, ok := nr.Score(drivers, m); !ok || s != score {
			t.Fatalf("%s lost its score", m)
		}
		return true
	})
}

// COUNT ASC searches keep the nearest-first walk while a reload moves
// members (issue 11): members not moved yet are in the previous map's
// shards, which the walk asks when their areas come near enough, so its
// answers equal the full search's sorted, before and during the move.
func TestNearestDuringMove(t *testing.T) {
	r := New(Config{Regions: shard.GridMap(4.0, 51.6, 5.6, 52.8, 24, 24, 500), FanoutTimeout: time.Minute})
	rng := rand.New(rand.NewPCG(19, 4))
	for i := range 4000 {
		r.Add(drivers, fmt.Sprintf("d%d", i), geo.Encode(4.0+rng.Float64()*1.6, 51.6+rng.Float64()*1.2), AddFlags{})
	}
	nr, err := r.Reload(shard.GridMap(4.0, 51.6, 5.6, 52.8, 17, 19, 300))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 { // some members move at once, by a write
		nr.Add(drivers, fmt.Sprintf("d%d", i), geo.Encode(4.0+rng.Float64()*1.6, 51.6+rng.Float64()*1.2), AddFlags{})
	}
	check := func(when string, searches int) (exact int) {
		for i := range searches {
			q := geo.NewSearch(3.9+rng.Float64()*1.8, 51.5+rng.Float64()*1.4, geo.Shape{Radius: rng.Float64() * 20, Unit: 1000})
			n := 1 + rng.IntN(30)
			got, ok := nr.Nearest(drivers, q, n)
			if !ok {
				continue
			}
			exact++
			all := nr.Search(drivers, q, 0).Hits
			k := min(n, len(all))
			geo.Sort(all, func(h *shard.Hit) float64 { return h.Dist }, false)
			if !slices.Equal(names(got.Hits), names(all[:k])) {
				t.Fatalf("%s, search %d (n=%d):\nnearest %v\n   full %v", when, i, n, names(got.Hits), names(all[:k]))
			}
		}
		return exact
	}
	if running, _, _, _ := nr.Moving(); !running {
		t.Fatal("no move running")
	}
	if exact := check("before the move", 300); exact < 250 {
		t.Fatalf("only %d of 300 searches took the exact nearest-first path during a move", exact)
	}
	var wg sync.WaitGroup
	wg.Go(nr.MoveMembers)
	for running := true; running; running, _, _, _ = nr.Moving() {
		check("while members move", 10)
	}
	wg.Wait()
	check("after the move", 100)
}
