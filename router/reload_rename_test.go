package router

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// Keys renamed while a region map reload's background move runs (CONFIG
// SET regions returns before the move; RENAME is not held back by it)
// must still be moved off the previous map's shards: once the move is
// done, searches ask only the new map's shards. The keys are renamed
// once the move has begun, so that it has listed them under their old
// names. Run with owner tables wide and narrow.
func TestReloadMoveRenamedKeys(t *testing.T) {
	for _, narrowAt := range []int{0, 1} {
		t.Run(fmt.Sprintf("narrowAt=%d", narrowAt), func(t *testing.T) { testReloadMoveRenamed(t, narrowAt) })
	}
}

func testReloadMoveRenamed(t *testing.T, narrowAt int) {
	r := New(Config{Regions: shard.DefaultMap()})
	r.hooks.narrowAt = narrowAt
	rng := rand.New(rand.NewPCG(3, 3))
	const keys, n = 8, 3000
	pts := make([]point, n)
	for i := range pts {
		pts[i] = point{fmt.Sprintf("d%d", i), geo.Encode(4+rng.Float64()*1.6, 51.6+rng.Float64()*1.2)}
		for k := range keys {
			r.Add(shard.Key{Name: fmt.Sprint("k", k)}, pts[i].member, pts[i].score, AddFlags{})
		}
	}
	grid := shard.GridMap(4.0, 51.6, 5.6, 52.8, 6, 6, 300)
	grid.Borders()
	nr, err := r.Reload(grid)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(nr.MoveMembers)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Microsecond) {
		if running, moved, _, _ := nr.Moving(); moved > 0 || !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the move did not start in 30 s")
		}
	}
	for k := range keys {
		nr.Rename(shard.Key{Name: fmt.Sprint("k", k)}, shard.Key{Name: fmt.Sprint("renamed", k)})
	}
	wg.Wait()
	_, moved, total, _ := nr.Moving()
	first, own := nr.Regions().Own()
	for id, c := range nr.ShardMembers() {
		if c != 0 && (id < first || id >= first+own) {
			t.Errorf("shard %d (%s) of the previous map still holds %d copies (%d of %d moved)", id, nr.Regions().Name(shard.ID(id)), c, moved, total)
		}
	}
	for k := range keys {
		key := shard.Key{Name: fmt.Sprint("renamed", k)}
		for i := range 10 {
			q := geo.NewSearch(4+rng.Float64()*1.6, 51.6+rng.Float64()*1.2, geo.Shape{Radius: 5 + rng.Float64()*20, Unit: 1000})
			res := nr.Search(key, q, 0)
			if want := bruteForce(pts, q); len(res.Hits) != len(want) {
				t.Fatalf("key %d, search %d after the move: %d hits, want %d", k, i, len(res.Hits), len(want))
			}
		}
	}
}
