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

// A wide search of a big key on a fine map read from the owner table
// finds exactly what asking the shards finds: the same hits, cells,
// distances and order as a one-shard router holding the same members,
// for circles and boxes up to the whole world, near the poles and the
// antimeridian, with expired positions left out and COUNT ... ANY.
func TestOwnerScanEqualsShards(t *testing.T) {
	fine := New(Config{Regions: shard.GridMap(-180, -85, 180, 85, 60, 30, 200)})
	one := New(Config{Regions: oneShardMap(t)})
	rng := rand.New(rand.NewPCG(31, 7))
	now := time.Now().UnixNano()
	for i := range 3000 {
		lon, lat := -180+rng.Float64()*360, -85+rng.Float64()*170
		stamp := now - int64(i%4/3)*int64(2*time.Hour) // a quarter expired under the TTL below
		for _, r := range []*Router{fine, one} {
			r.Restore(drivers, fmt.Sprintf("m%d", i), geo.Encode(lon, lat), stamp)
		}
	}
	for _, r := range []*Router{fine, one} {
		r.SetKeyTTL(drivers, time.Hour)
	}
	g := fine.key(drivers, false)
	scanned := 0
	for i := range 300 {
		lon, lat := -180+rng.Float64()*360, -85+rng.Float64()*170
		if i%10 == 0 {
			lon = 179.9 // by the antimeridian
		}
		shape := geo.Shape{Radius: []float64{100, 2000, 5000, 10000, 20000}[i%5], Unit: 1000}
		if i%3 == 0 {
			shape = geo.Shape{Box: true, Width: 1000 + rng.Float64()*39000, Height: 1000 + rng.Float64()*19000, Unit: 1000}
		}
		q := geo.NewSearch(lon, lat, shape)
		q.NeedDist = i%2 == 0
		limit := 0
		if i%7 == 0 {
			limit = 1 + rng.IntN(50) // COUNT ... ANY
		}
		if ids, _ := fine.asked(g, q); fine.fromOwners(g, len(ids)) {
			scanned++
		}
		got := fine.Search(drivers, q, limit).Hits
		want := merge(one.Search(drivers, q, 0).Hits)
		if limit > 0 && len(want) > limit {
			want = want[:limit]
		}
		if !sameHits(got, want, q.NeedDist) {
			gm := map[string]shard.Hit{}
			for _, h := range got {
				gm[h.Member] = h
			}
			for _, h := range want {
				delete(gm, h.Member)
			}
			for _, h := range gm {
				d, ok := q.Match(h.Lon, h.Lat)
				t.Logf("extra %+v match %v %v cell %d of %d", h, d, ok, q.CellOf(h.Score), len(q.Cells))
			}
			t.Fatalf("search %d %+v at %v,%v limit %d: %d hits, want %d", i, shape, lon, lat, limit, len(got), len(want))
		}
	}
	if scanned < 50 {
		t.Fatalf("only %d of 300 searches read the owner table", scanned)
	}
}

func sameHits(a, b []shard.Hit, dist bool) bool {
	return slices.EqualFunc(a, b, func(x, y shard.Hit) bool {
		return x.Member == y.Member && x.Score == y.Score && x.Cell == y.Cell && x.Lon == y.Lon && x.Lat == y.Lat &&
			(!dist || x.Dist == y.Dist)
	})
}
