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

// Renames (RENAME holds the engine's keyspace, but the position-TTL
// reclaim runs beside it) while reclaims delete expired copies: a reclaim
// that looks the key up under its old name after the router moved the
// key's view and before the shards' sets were renamed found no view, and
// deleted the copy with no stripe lock while a narrow record named its
// slot. Every member left must read back through its record.
func TestRenameWhileReclaiming(t *testing.T) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
	r := New(Config{Regions: m, PositionTTL: time.Hour})
	r.hooks.narrowAt = 1
	rng := rand.New(rand.NewPCG(1, 2))
	old := now() - 2*int64(time.Hour)
	keys := [2]shard.Key{{Name: "a"}, {Name: "b"}}
	model := map[string]slotModel{}
	stop := make(chan struct{})
	var bg sync.WaitGroup
	bg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			r.Reclaim()
		}
	})
	cur := 0
	deadline := time.Now().Add(3 * time.Second)
	for round := 0; round < 4000 && time.Now().Before(deadline); round++ {
		for i := range 20 {
			name := fmt.Sprintf("e%d:%d", round, i)
			r.Restore(keys[cur], name, geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2), old)
		}
		name := fmt.Sprintf("d%d", rng.IntN(200))
		score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
		r.Add(keys[cur], name, score, AddFlags{})
		model[name] = slotModel{score: score}
		r.Rename(keys[cur], keys[1-cur])
		cur = 1 - cur
	}
	close(stop)
	bg.Wait()
	r.Reclaim()
	checkSlots(t, r, keys[cur], model)
}
