package cluster

import (
	"fmt"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestStaleOwnerCache: a node whose owner cache missed a change made
// through another node (an owner notice lost after a handoff, or a ZREM
// there) must not answer from it: issue 12's "never silently wrong".
// Each case runs its steps through node x, a node holding neither shard
// involved, so no copy or delete reaches it, and through node b.
func TestStaleOwnerCache(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startReplicated(t, etcd.Endpoint, "a", "b", "c")
	tb := replicated(t, nodes)
	m := nodes["a"].r.Regions()
	s1, s2, x, b := samePair(t, tb, m)
	p1, p2 := pointIn(t, m, s1), pointIn(t, m, s2)
	rx, rb := nodes[x].r, nodes[b].r
	t.Logf("shards %s and %s on the same two nodes; x=%s b=%s", m.Name(s1), m.Name(s2), x, b)
	at := func(p [2]float64, d float64) float64 { return geo.Encode(p[0]+d, p[1]) }

	t.Run("owner notice lost", func(t *testing.T) {
		k := shard.Key{Name: "notice"}
		mustAdd(t, rx, k, "m", at(p1, 0), router.AddFlags{}, true)
		rb.DropOwnerNotices(true)
		mustAdd(t, rb, k, "m", at(p2, 0), router.AddFlags{}, false) // handoff s1 -> s2; x not told
		rb.DropOwnerNotices(false)
		mustAdd(t, rx, k, "m", at(p1, 0.0001), router.AddFlags{}, false) // back in s1
		q := geo.NewSearch(p2[0], p2[1], geo.Shape{Radius: 1000, Unit: 1})
		for id, n := range nodes {
			if hits := n.r.Search(k, q, 0).Hits; len(hits) != 0 {
				t.Errorf("through %s: a search at the old position finds %s, which moved away", id, names(hits))
			}
			if c := n.r.Card(k); c != 1 {
				t.Errorf("through %s: ZCARD %d, want 1", id, c)
			}
		}
	})
	t.Run("ZREM through another node", func(t *testing.T) {
		k := shard.Key{Name: "zrem"}
		mustAdd(t, rx, k, "m", at(p1, 0), router.AddFlags{}, true)
		if !rb.Remove(k, "m") {
			t.Fatal("ZREM through b removed nothing")
		}
		mustAdd(t, rx, k, "m", at(p1, 0), router.AddFlags{NX: true}, true) // Redis: added
	})
	t.Run("XX GT after a write in place through another node", func(t *testing.T) {
		k := shard.Key{Name: "inplace"}
		mustAdd(t, rx, k, "m", at(p1, 0), router.AddFlags{}, true)
		mustAdd(t, rb, k, "m", at(p1, 0.01), router.AddFlags{}, false) // same shard: no notice at all
		lo, hi := min(at(p1, 0), at(p1, 0.01)), max(at(p1, 0), at(p1, 0.01))
		f := router.AddFlags{XX: true, GT: true}
		if at(p1, 0.01) < at(p1, 0) {
			f = router.AddFlags{XX: true, LT: true}
		}
		added, changed, err := rx.TryAdd(k, "m", lo+(hi-lo)/2, f)
		if err != nil || added || changed {
			t.Errorf("write past the newest score: added %v changed %v err %v; want refused", added, changed, err)
		}
	})
	t.Run("GT after a handoff through another node", func(t *testing.T) {
		k := shard.Key{Name: "gt"}
		mustAdd(t, rx, k, "m", at(p1, 0), router.AddFlags{}, true)
		rb.DropOwnerNotices(true)
		mustAdd(t, rb, k, "m", at(p2, 0), router.AddFlags{}, false)
		rb.DropOwnerNotices(false)
		// The newest score is at p2; a GT write with a score between the
		// two must be refused, as Redis refuses it.
		lo, hi := min(at(p1, 0), at(p2, 0)), max(at(p1, 0), at(p2, 0))
		f := router.AddFlags{GT: true}
		if at(p2, 0) < at(p1, 0) {
			f = router.AddFlags{LT: true}
		}
		mid := lo + (hi-lo)/2
		added, changed, err := rx.TryAdd(k, "m", mid, f)
		if err != nil || added || changed {
			t.Errorf("write past the newest score: added %v changed %v err %v; want refused", added, changed, err)
		}
	})
}

// mustAdd writes through r and checks GEOADD's answer.
func mustAdd(t *testing.T, r *router.Router, k shard.Key, member string, score float64, f router.AddFlags, added bool) {
	t.Helper()
	a, _, err := r.TryAdd(k, member, score, f)
	if err != nil || a != added {
		t.Fatalf("add %s %v: added %v err %v; want added %v", member, f, a, err, added)
	}
}

// startReplicated starts in-process nodes with one replica per shard.
func startReplicated(t testing.TB, endpoint string, ids ...string) map[string]*Node {
	t.Helper()
	nodes := map[string]*Node{}
	for i, id := range ids {
		nodes[id] = startReplicaNode(t, endpoint, id, i, nil)
	}
	return nodes
}

// startReplicaNode starts one node with one replica per shard; set, if
// given, adds the hooks a test needs to its config.
func startReplicaNode(t testing.TB, endpoint, id string, i int, set func(*NodeConfig)) *Node {
	t.Helper()
	return startReplicaNodeOn(t, router.New(router.Config{PositionTTL: time.Minute}), 2*time.Second, endpoint, id, i, set)
}

// startReplicaNodeOn is startReplicaNode with router r and lease ttl.
func startReplicaNodeOn(t testing.TB, r *router.Router, lease time.Duration, endpoint, id string, i int,
	set func(*NodeConfig)) *Node {
	t.Helper()
	cfg := NodeConfig{Endpoints: []string{endpoint}, Cluster: "t", ID: id,
		Advertise: fmt.Sprintf("127.0.0.1:%d", 1+i), Password: "pw", Replicas: 1,
		LeaseTTL: lease, Rebalance: 100 * time.Millisecond}
	if set != nil {
		set(&cfg)
	}
	n, err := StartNode(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

// replicated waits until every node runs one table with a replica for
// every shard that the leader leaves as it is (planDone), and returns it.
func replicated(t testing.TB, nodes map[string]*Node) *Table {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		tb := nodes["a"].Table()
		ok := tb.Version > 0
		for _, n := range nodes {
			ok = ok && n.Table().Version == tb.Version
		}
		for i, r := range tb.Replica {
			ok = ok && r != "" && tb.Owner[i] != "" && tb.filled[i]
		}
		load := map[string]int{}
		for _, o := range tb.Owner {
			load[o]++
		}
		for _, n := range load {
			ok = ok && n >= len(tb.Owner)/len(nodes) && n <= len(tb.Owner)/len(nodes)+1
		}
		ok = ok && len(load) == len(nodes)
		if ok && planDone(tb, nodes) {
			return tb
		}
	}
	t.Fatal("no table with a replica for every shard")
	return nil
}

// samePair finds two shards held by the same two nodes, the node x that
// holds neither and one b of the two.
func samePair(t testing.TB, tb *Table, m *shard.Map) (s1, s2 shard.ID, x, b string) {
	t.Helper()
	for i := range tb.Owner {
		for j := range tb.Owner {
			pi := map[string]bool{tb.Owner[i]: true, tb.Replica[i]: true}
			if i == j || !pi[tb.Owner[j]] || !pi[tb.Replica[j]] {
				continue
			}
			for _, id := range []string{"a", "b", "c"} {
				if !pi[id] {
					return shard.ID(i), shard.ID(j), id, tb.Owner[i]
				}
			}
		}
	}
	t.Skip("no two shards on the same two nodes in this assignment")
	return 0, 0, "", ""
}

// pointIn finds a point of shard id's area, away from its borders.
func pointIn(t testing.TB, m *shard.Map, id shard.ID) [2]float64 {
	t.Helper()
	for lat := -70.0; lat <= 70; lat += 0.5 {
		for lon := -179.0; lon <= 179; lon += 0.5 {
			if m.Locate(lon, lat) != id {
				continue
			}
			inside := true
			for _, d := range [][2]float64{{0.2, 0}, {-0.2, 0}, {0, 0.2}, {0, -0.2}} {
				inside = inside && m.Locate(lon+d[0], lat+d[1]) == id
			}
			if inside {
				return [2]float64{lon, lat}
			}
		}
	}
	t.Fatalf("no point well inside shard %s", m.Name(id))
	return [2]float64{}
}
