package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestClusterRouting runs three in-process nodes with their real buses:
// whatever node a command goes through, it sees what a single router sees.
func TestClusterRouting(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startNodes(t, etcd.Endpoint, "a", "b", "c")
	settled(t, nodes, "a", "b", "c")
	routers := []*router.Router{nodes["a"].r, nodes["b"].r, nodes["c"].r}
	single := router.New(router.Config{PositionTTL: time.Minute})

	rng := rand.New(rand.NewPCG(3, 3))
	key := shard.Key{Name: "drivers"}
	// Members all over the world, so every shard (and node) holds some,
	// written through every node, some moving far (handoffs across nodes).
	for i := 0; i < 600; i++ {
		m := fmt.Sprintf("d%d", rng.IntN(300))
		lon, lat := -179+rng.Float64()*358, -80+rng.Float64()*160
		score := geo.Encode(lon, lat)
		a1, c1 := single.Add(key, m, score, router.AddFlags{})
		a2, c2 := routers[i%3].Add(key, m, score, router.AddFlags{})
		if a1 != a2 || c1 != c2 {
			t.Fatalf("write %d of %s through node %d: added/changed %v/%v, single node %v/%v", i, m, i%3, a2, c2, a1, c1)
		}
	}
	for i := 0; i < 30; i++ {
		m := fmt.Sprintf("d%d", rng.IntN(300))
		if a, b := single.Remove(key, m), routers[(i+1)%3].Remove(key, m); a != b {
			t.Fatalf("remove %s: %v, single node %v", m, b, a)
		}
	}
	everyone := geo.NewSearch(0, 0, geo.Shape{Radius: 20000, Unit: 1000})
	want := names(single.Search(key, everyone, 0).Hits) // member@distance: a stale copy shows
	wantRange := single.Range(key, everything[0], everything[1], false, 0, -1)
	for i, r := range routers {
		res := r.Search(key, everyone, 0)
		if got := names(res.Hits); !slices.Equal(got, want) || res.Degraded {
			t.Errorf("node %d search: %d hits (degraded %v), single node %d", i, len(got), res.Degraded, len(want))
		}
		if got := r.Range(key, everything[0], everything[1], false, 0, -1); !slices.Equal(got, wantRange) {
			t.Errorf("node %d range differs: %d members, single node %d", i, len(got), len(wantRange))
		}
		if got, w := r.Card(key), single.Card(key); got != w {
			t.Errorf("node %d card %d, single node %d", i, got, w)
		}
		for j := 0; j < 300; j += 7 {
			m := fmt.Sprintf("d%d", j)
			s1, ok1 := single.Score(key, m)
			s2, ok2 := r.Score(key, m)
			if s1 != s2 || ok1 != ok2 {
				t.Errorf("node %d score of %s: %v %v, single node %v %v", i, m, s2, ok2, s1, ok1)
			}
			r1, rok1 := single.Rank(key, m, false)
			r2, rok2 := r.Rank(key, m, false)
			if r1 != r2 || rok1 != rok2 {
				t.Errorf("node %d rank of %s: %v %v, single node %v %v", i, m, r2, rok2, r1, rok1)
			}
		}
		q := geo.NewSearch(4.9, 52.37, geo.Shape{Radius: 3000, Unit: 1000})
		n1, x1 := single.Nearest(key, q, 5)
		n2, x2 := r.Nearest(key, q, 5)
		if a, b := names(n1.Hits), names(n2.Hits); x1 && x2 && !slices.Equal(a, b) {
			t.Errorf("node %d nearest %v, single node %v", i, b, a)
		}
		// BYPOLYGON zones reach remote shards with their vertices.
		for _, v := range [][]float64{
			{-10, 35, 30, 35, 40, 60, 0, 70},       // Europe
			{-170, -60, 170, -60, 0, 80},           // most of the world
			{100, -10, 160, 30, 100, 30, 160, -10}, // a bow-tie over Asia and Oceania
		} {
			pq := geo.NewPolygonSearch(geo.NewPolygon(v))
			a, b := names(single.Search(key, pq, 0).Hits), names(r.Search(key, pq, 0).Hits)
			if !slices.Equal(a, b) || len(a) == 0 {
				t.Errorf("node %d polygon %v: %d hits, single node %d", i, v, len(b), len(a))
			}
		}
	}
	// Whole-key commands reach every node.
	other := shard.Key{Name: "moved"}
	routers[1].Rename(key, other)
	if n := routers[2].Card(key); n != 0 {
		t.Errorf("after RENAME the old key has %d members", n)
	}
	if n := routers[0].Card(other); n != len(wantRange) {
		t.Errorf("after RENAME the new key has %d members, want %d", n, len(wantRange))
	}
	if ks := routers[2].Keys(0); !slices.Equal(ks, []string{"moved"}) {
		t.Errorf("KEYS = %v", ks)
	}
	if !routers[0].Drop(other) || routers[1].Card(other) != 0 || len(routers[2].Keys(0)) != 0 {
		t.Errorf("DROP left members behind")
	}
}

// TestClusterConcurrent writes and searches through every node at once,
// for the race detector.
func TestClusterConcurrent(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startNodes(t, etcd.Endpoint, "a", "b", "c")
	settled(t, nodes, "a", "b", "c")
	routers := []*router.Router{nodes["a"].r, nodes["b"].r, nodes["c"].r}
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := 0; i < 300; i++ {
				r := routers[rng.IntN(3)]
				m := fmt.Sprintf("d%d", rng.IntN(50))
				switch i % 5 {
				case 4:
					r.Search(drivers, geo.NewSearch(0, 0, geo.Shape{Radius: 20000, Unit: 1000}), 0)
				case 3:
					r.Score(drivers, m)
				default:
					r.Add(drivers, m, geo.Encode(-179+rng.Float64()*358, -80+rng.Float64()*160), router.AddFlags{})
				}
			}
		}()
	}
	wg.Wait()
	res := routers[0].Search(drivers, geo.NewSearch(0, 0, geo.Shape{Radius: 20000, Unit: 1000}), 0)
	seen := map[string]bool{}
	for _, h := range res.Hits {
		if seen[h.Member] {
			t.Errorf("%s returned twice", h.Member)
		}
		seen[h.Member] = true
	}
	if len(seen) != 50 {
		t.Errorf("search found %d of 50 members", len(seen))
	}
}

// TestLeaseLost revokes a node's lease behind its back while etcd stays
// up: it must notice, register again, and the cluster settle as before.
func TestLeaseLost(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startNodes(t, etcd.Endpoint, "a", "b")
	settled(t, nodes, "a", "b")
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd.Endpoint}, DialTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	before := nodes["b"].registered.Load()
	resp, err := cli.Get(ctx, "/geoshard/t/members/b")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("member key of b: %v", err)
	}
	if _, err := cli.Revoke(ctx, clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for nodes["b"].registered.Load() == before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if nodes["b"].registered.Load() == before {
		t.Fatal("b did not register again after losing its lease")
	}
	settled(t, nodes, "a", "b")
	if !nodes["b"].owner.Load() {
		t.Error("b registered again but does not act as owner")
	}
}

var (
	drivers    = shard.Key{Name: "drivers"}
	everything = [2]router.Bound{{Score: math.Inf(-1)}, {Score: math.Inf(1)}}
)

func names(hits []shard.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%s@%.4f", h.Member, h.Dist)
	}
	return out
}
