package cluster

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestConcurrentBatchesAgree: two nodes write the same members at once,
// in batches, to one shard with a replica. Whatever order the writes
// take, the shard's primary and replica must end with the same copy of
// each member (a replica that kept the older of two writes would answer
// it once promoted).
func TestConcurrentBatchesAgree(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startReplicated(t, etcd.Endpoint, "a", "b", "c")
	tb := replicated(t, nodes)
	m := nodes["a"].r.Regions()
	var x shard.ID
	for i := range tb.Owner {
		if _, _, ok := shardPoint(m, shard.ID(i)); ok && tb.Owner[i] == "c" {
			x = shard.ID(i)
			break
		}
	}
	lon, lat, _ := shardPoint(m, x)
	k := shard.Key{Name: "drivers"}
	const rounds, batch = 200, 40
	members := make([]string, rounds*batch) // new ones each round: GETPUT's unconditional puts
	for i := range members {
		members[i] = fmt.Sprintf("d%d", i)
	}
	var wg sync.WaitGroup
	for w, id := range []string{"a", "b", "c"} {
		wg.Go(func() {
			for round := range rounds {
				scores := make([]float64, batch)
				for i := range scores { // each writer its own place, in x's area
					scores[i] = geo.Encode(lon+0.001*float64(w), lat)
				}
				ms := members[round*batch : (round+1)*batch]
				// A write refused or timed out (a loaded machine) may be
				// stored on one holder only: as a client, write it again.
				for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					_, _, err := nodes[id].r.TryAddMany(k, ms, scores, router.AddFlags{})
					if err == nil {
						break
					}
					if time.Now().After(deadline) {
						t.Errorf("through %s, round %d: %v", id, round, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	tb = nodes["a"].Table()
	primary, replica := nodes[tb.Owner[x]], nodes[tb.Replica[x]]
	for _, mb := range members {
		p, pok := primary.r.GetLocal([]shard.ID{x}, k, mb, 0)
		r, rok := replica.r.GetLocal([]shard.ID{x}, k, mb, 0)
		if !pok || !rok || p != r {
			t.Errorf("%s in %s: primary %s holds %+v (%v), replica %s %+v (%v)",
				mb, m.Name(x), tb.Owner[x], p, pok, tb.Replica[x], r, rok)
		}
	}
}
