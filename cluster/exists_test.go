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

// TestClusterExists: Router.TryExists, which asks each node for at most
// one copy a shard, answers what TryCard(k) > 0 answers through every
// node, with and without replicas: for a key spread over every node, a
// key of one member, a key whose members were all removed and a name
// never written.
func TestClusterExists(t *testing.T) {
	for _, replicas := range []int{0, 1} {
		t.Run(fmt.Sprintf("replicas=%d", replicas), func(t *testing.T) { testExists(t, replicas) })
	}
}

func testExists(t *testing.T, replicas int) {
	etcd := etcdtest.Start(t)
	nodes := map[string]*Node{}
	for i, id := range []string{"a", "b", "c"} {
		n, err := StartNode(steadyRouter(), NodeConfig{
			Endpoints: []string{etcd.Endpoint}, Cluster: "t", ID: id, Advertise: fmt.Sprintf("127.0.0.1:%d", 1+i),
			Password: "pw", LeaseTTL: steadyLease, CallTimeout: steadyTimeout, Rebalance: 100 * time.Millisecond,
			Replicas: replicas})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(n.Close)
		nodes[id] = n
	}
	settled(t, nodes, "a", "b", "c")
	routers := []*router.Router{nodes["a"].r, nodes["b"].r, nodes["c"].r}
	rng := rand.New(rand.NewPCG(9, 9))
	write := func(i int, k shard.Key, m string) {
		t.Helper()
		score := geo.Encode(-179+rng.Float64()*358, -80+rng.Float64()*160)
		if _, _, err := routers[i%3].TryAdd(k, m, score, router.AddFlags{}); err != nil {
			t.Fatalf("write %s %s: %v", k.Name, m, err)
		}
	}
	spread, one, emptied := shard.Key{Name: "spread"}, shard.Key{DB: 3, Name: "one"}, shard.Key{Name: "emptied"}
	for i := range 300 {
		write(i, spread, fmt.Sprintf("d%d", i))
	}
	write(1, one, "m")
	for i := range 3 {
		write(i, emptied, fmt.Sprintf("e%d", i))
	}
	for i := range 3 {
		if ok, err := routers[(i+1)%3].TryRemove(emptied, fmt.Sprintf("e%d", i)); !ok || err != nil {
			t.Fatalf("ZREM emptied e%d: %v %v", i, ok, err)
		}
	}
	keys := []shard.Key{spread, one, emptied, {Name: "missing"}, {DB: 3, Name: "spread"}}
	want := map[string]bool{"0 spread": true, "3 one": true}
	for i, r := range routers {
		for _, k := range keys {
			n, cerr := r.TryCard(k)
			got, err := r.TryExists(k)
			if got != (n > 0) || got != want[fmt.Sprint(k.DB, " ", k.Name)] || err != nil || cerr != nil {
				t.Errorf("node %d, db %d key %s: TryExists %v %v, TryCard %d %v", i, k.DB, k.Name, got, err, n, cerr)
			}
		}
	}
}
