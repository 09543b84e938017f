package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestClusterCountsDedupe counts through every node, one number per node,
// after handoffs whose deletes were lost (the old copies stay, as when the
// old shard's node missed the delete): each member still counts once,
// because the owner notice that follows a handoff tells the old copy's
// node of the newer one.
func TestClusterCountsDedupe(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startNodes(t, etcd.Endpoint, "a", "b", "c")
	settled(t, nodes, "a", "b", "c")
	routers := []*router.Router{nodes["a"].r, nodes["b"].r, nodes["c"].r}
	single := router.New(router.Config{PositionTTL: time.Minute})
	for _, r := range routers {
		r.DropDeletes(true)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	key := shard.Key{Name: "drivers"}
	var scores []float64
	for i := 0; i < 900; i++ {
		m := fmt.Sprintf("d%d", rng.IntN(300))
		score := geo.Encode(-179+rng.Float64()*358, -80+rng.Float64()*160)
		scores = append(scores, score)
		single.Add(key, m, score, router.AddFlags{})
		if _, _, err := routers[i%3].TryAdd(key, m, score, router.AddFlags{}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	checkCounts(t, "lost deletes", map[string]*router.Router{"a": routers[0], "b": routers[1], "c": routers[2]},
		single, key, scores)
}
