package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestClusterAddMany writes batches through every node, with every flag,
// members repeated within a batch and members moving across nodes: each
// batch answers what the same writes one by one answer on a single router,
// and the members end where they would.
func TestClusterAddMany(t *testing.T) {
	for _, replicas := range []int{0, 1} {
		t.Run(fmt.Sprintf("replicas=%d", replicas), func(t *testing.T) { testAddMany(t, replicas) })
	}
}

func testAddMany(t *testing.T, replicas int) {
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
	single := router.New(router.Config{PositionTTL: time.Minute})
	key := shard.Key{Name: "drivers"}
	rng := rand.New(rand.NewPCG(8, 8))
	flags := []struct {
		name string
		f    router.AddFlags
	}{
		{"none", router.AddFlags{}}, {"NX", router.AddFlags{NX: true}}, {"XX", router.AddFlags{XX: true}},
		{"GT", router.AddFlags{GT: true}}, {"LT", router.AddFlags{LT: true}},
	}
	for round := 0; round < 60; round++ {
		fl := flags[round%len(flags)]
		n := 1 + rng.IntN(40)
		members, scores := make([]string, n), make([]float64, n)
		for i := range members {
			members[i] = fmt.Sprintf("d%d", rng.IntN(120)) // repeats within a batch too
			scores[i] = geo.Encode(-179+rng.Float64()*358, -80+rng.Float64()*160)
		}
		wantAdded, wantChanged := 0, 0
		for i, m := range members {
			a, c := single.Add(key, m, scores[i], fl.f)
			wantAdded, wantChanged = wantAdded+b2i(a), wantChanged+b2i(c)
		}
		via := routers[round%3]
		var added, changed int
		var err error
		if round%4 != 3 {
			added, changed, err = via.TryAddMany(key, members, scores, fl.f)
		} else { // one member a call, as most clients write
			for i := 0; i < n && err == nil; i++ {
				var a, c int
				a, c, err = via.TryAddMany(key, members[i:i+1], scores[i:i+1], fl.f)
				added, changed = added+a, changed+c
			}
		}
		if err != nil || added != wantAdded || changed != wantChanged {
			t.Fatalf("round %d (%s, %d members) through node %d: added %d changed %d (%v), single node %d %d",
				round, fl.name, n, round%3, added, changed, err, wantAdded, wantChanged)
		}
	}
	everyone := geo.NewSearch(0, 0, geo.Shape{Radius: 20000, Unit: 1000})
	want := names(single.Search(key, everyone, 0).Hits)
	all := [2]router.Bound{{Score: math.Inf(-1)}, {Score: math.Inf(1)}}
	wantRange := single.Range(key, all[0], all[1], false, 0, -1)
	for i, r := range routers {
		if got := names(r.Search(key, everyone, 0).Hits); !slices.Equal(got, want) {
			t.Errorf("node %d search: %d hits, single node %d", i, len(got), len(want))
		}
		if got := r.Range(key, all[0], all[1], false, 0, -1); !slices.Equal(got, wantRange) {
			t.Errorf("node %d range: %d members, single node %d", i, len(got), len(wantRange))
		}
		if got, err := r.TryCard(key); got != len(wantRange) || err != nil {
			t.Errorf("node %d card %d (%v), want %d", i, got, err, len(wantRange))
		}
	}
	if replicas > 0 {
		onReplicas(t, nodes, key, wantRange)
	}
}

// onReplicas checks that every member's current copy is also on its
// shard's replica: a batch is acknowledged only once both hold it.
func onReplicas(t *testing.T, nodes map[string]*Node, key shard.Key, want []router.Member) {
	t.Helper()
	tb := nodes["a"].Table()
	for _, m := range want {
		found := 0
		for _, n := range nodes {
			for id := range tb.Owner {
				if c, ok := n.r.GetLocal([]shard.ID{shard.ID(id)}, key, m.Name, 0); ok && c.Score == m.Score {
					found++
				}
			}
		}
		if found < 2 {
			t.Errorf("member %s: %d copies at its current score, want primary and replica", m.Name, found)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
