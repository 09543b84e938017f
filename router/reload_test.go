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
