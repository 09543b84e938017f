package router

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

// A reload takes over the members where they are and moves them in the
// background; meanwhile every search equals a brute-force scan, writes
// move their member at once, a second reload is refused, and in the end
// every member is in the new map's shard for its position. Reloading
// again reuses the first map's IDs.
// It runs with owner tables wide and narrow (scores read from the shards).
func TestReloadMovesInBackground(t *testing.T) {
	for _, narrowAt := range []int{0, 1} {
		t.Run(fmt.Sprintf("narrowAt=%d", narrowAt), func(t *testing.T) { testReloadMoves(t, narrowAt) })
	}
}

func testReloadMoves(t *testing.T, narrowAt int) {
	r := New(Config{Regions: shard.DefaultMap()})
	r.hooks.narrowAt = narrowAt
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 20_000
	pts := make([]point, n)
	for i := range pts {
		pts[i] = point{fmt.Sprintf("d%d", i), geo.Encode(4+rng.Float64()*1.6, 51.6+rng.Float64()*1.2)}
		r.Add(drivers, pts[i].member, pts[i].score, AddFlags{})
	}
	grid := shard.GridMap(4.0, 51.6, 5.6, 52.8, 12, 12, 300)
	grid.Borders()
	nr, err := r.Reload(grid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nr.Reload(shard.DefaultMap()); !errors.Is(err, ErrMoving) {
		t.Fatalf("a second reload during the move: %v", err)
	}
	// Writes during the move: the first 100 members move east a little.
	for i := range 100 {
		lon, lat := geo.Decode(pts[i].score)
		pts[i].score = geo.Encode(lon+0.01, lat)
		nr.Add(drivers, pts[i].member, pts[i].score, AddFlags{})
	}
	var wg sync.WaitGroup
	wg.Go(nr.MoveMembers)
	for i := 0; ; i++ {
		running, moved, total, _ := nr.Moving()
		q := geo.NewSearch(4+rng.Float64()*1.6, 51.6+rng.Float64()*1.2, geo.Shape{Radius: 1 + rng.Float64()*10, Unit: 1000})
		res := nr.Search(drivers, q, 0)
		got := make([]string, len(res.Hits))
		for j, h := range res.Hits {
			got[j] = h.Member
		}
		if want := bruteForce(pts, q); !slices.Equal(got, want) {
			t.Fatalf("search %d during the move (%d of %d moved): %d hits, want %d", i, moved, total, len(got), len(want))
		}
		if !running {
			break
		}
	}
	wg.Wait()
	if nr.Card(drivers) != n {
		t.Fatalf("card %d", nr.Card(drivers))
	}
	first, own := shard.DefaultMap().Len(), grid.Len() // the new map was placed after the old
	if f, o := nr.Regions().Own(); f != first || o != own {
		t.Fatalf("new map's shards at %d+%d", f, o)
	}
	members := nr.ShardMembers()
	for id, c := range members {
		if c != 0 && (id < first || id >= first+own) {
			t.Errorf("shard %d (%s) still holds %d copies", id, nr.Regions().Name(shard.ID(id)), c)
		}
	}
	for _, p := range pts[:500] {
		lon, lat := geo.Decode(p.score)
		want := nr.Regions().Locate(lon, lat)
		if e, ok := nr.shards[want].Get(drivers, p.member); !ok || e.Score != p.score {
			t.Fatalf("%s not in its shard %d", p.member, want)
		}
	}
	// The next reload goes back to the IDs below.
	back, err := nr.Reload(shard.DefaultMap())
	if err != nil {
		t.Fatal(err)
	}
	back.MoveMembers()
	if f, _ := back.Regions().Own(); f != 0 || back.Card(drivers) != n {
		t.Fatalf("second reload placed at %d, card %d", f, back.Card(drivers))
	}
}
