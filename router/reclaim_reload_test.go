package router

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// The server's position-TTL ticker loads the router, then reclaims; a
// region map reload (CONFIG SET regions) may replace that router in
// between. The replaced router's shards and key views live on in the new
// one, so its reclaim must not delete copies that the new router's
// narrow records name without their stripe lock (owners_slot.go's rule):
// a record left naming a freed slot is never reclaimed or found again,
// and counts as a member for good.
func TestReclaimOnReplacedRouter(t *testing.T) {
	for _, narrowAt := range []int{1, 1 << 20} {
		t.Run(fmt.Sprintf("narrowAt=%d", narrowAt), func(t *testing.T) { testReclaimReplaced(t, narrowAt) })
	}
}

func testReclaimReplaced(t *testing.T, narrowAt int) {
	m := shard.GridMap(4.5, 52.0, 5.5, 52.5, 4, 2, 200)
	r := New(Config{Regions: m, PositionTTL: time.Hour})
	r.hooks.narrowAt = narrowAt
	rng := rand.New(rand.NewPCG(7, 7))
	old := now() - 2*int64(time.Hour)
	model := map[string]slotModel{}
	for i := range 400 {
		name := fmt.Sprintf("d%d", i)
		score := geo.Encode(4.5+rng.Float64(), 52.0+rng.Float64()/2)
		if i%4 == 0 {
			r.Restore(drivers, name, score, old) // its position TTL ran out
			model[name] = slotModel{score: score, expired: true}
			continue
		}
		r.Add(drivers, name, score, AddFlags{})
		model[name] = slotModel{score: score}
	}
	nr, err := r.Reload(shard.GridMap(4.5, 52.0, 5.5, 52.5, 2, 2, 200))
	if err != nil {
		t.Fatal(err)
	}
	r.Reclaim() // the ticker's run on the router it loaded before the swap
	nr.Reclaim()
	live := 0
	for name, s := range model {
		if s.expired {
			delete(model, name)
		} else {
			live++
		}
	}
	nr.SetKeyTTL(drivers, 0) // GEOSHARD TTL drivers 0: ZCARD counts the key's members
	if n := nr.Card(drivers); n != live {
		t.Errorf("ZCARD after the reclaims = %d, want %d", n, live)
	}
	checkSlots(t, nr, drivers, model)
}
