package cluster

import (
	"fmt"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/router"
	"geoshard/shard"
)

// Timings of the nodes of tests that check what the cluster answers,
// not how it meets deadlines or detects failures. Three nodes and etcd
// share this race-instrumented process; on CI's 2 loaded cores it can
// stand still for seconds (an empty replica fill took 2,797 ms at load
// 13 and every 2 s lease lapsed at once; a 5 ms ticker in another
// process waited 508 ms at load 7.6). A 50 ms fan-out deadline (the
// router's default) then degraded a search, a 1 s lease moved shards
// (empty: no replicas) and a 1 s call timeout failed a write. Deadlines
// and failure detection have tests of their own (bus*_test.go,
// replica_*_test.go, tests/cluster_faults_test.go).
const (
	steadyFanout  = 10 * time.Second
	steadyLease   = 5 * time.Second // the product's default
	steadyTimeout = 10 * time.Second
)

// steadyRouter is a node's router for such tests.
func steadyRouter() *router.Router {
	return router.New(router.Config{PositionTTL: time.Minute, FanoutTimeout: steadyFanout})
}

func startNodes(t *testing.T, endpoint string, ids ...string) map[string]*Node {
	t.Helper()
	nodes := map[string]*Node{}
	for i, id := range ids {
		n, err := StartNode(steadyRouter(), NodeConfig{Endpoints: []string{endpoint}, Cluster: "t", ID: id,
			Advertise: fmt.Sprintf("127.0.0.1:%d", 1+i), Password: "pw",
			LeaseTTL: steadyLease, CallTimeout: steadyTimeout, Rebalance: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(n.Close)
		nodes[id] = n
	}
	return nodes
}

// settled waits until every node runs the same table, with every shard
// owned by one of want, and returns it. It waits up to 30 s: with the 5 s
// lease, the shards of a node that left wait two lease TTLs for it
// before going to another (awaitingHolder).
func settled(t *testing.T, nodes map[string]*Node, want ...string) *Table {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var first *Table
		ok := true
		for _, id := range want {
			tb := nodes[id].Table()
			if first == nil {
				first = tb
			}
			if tb.Version == 0 || tb.Version != first.Version || tb.DownShards() > 0 {
				ok = false
			}
		}
		if ok {
			load := map[string]int{}
			for _, o := range first.Owner {
				load[o]++
			}
			balanced := len(load) == len(want)
			for _, id := range want {
				balanced = balanced && load[id] >= len(first.Owner)/len(want) && load[id] <= len(first.Owner)/len(want)+1
			}
			if balanced {
				return first
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, id := range want {
		t.Logf("%s: %+v", id, nodes[id].Status())
	}
	t.Fatalf("nodes %v did not settle on one balanced table", want)
	return nil
}

func TestNodesAssignAndReassign(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startNodes(t, etcd.Endpoint, "a", "b", "c")
	tb := settled(t, nodes, "a", "b", "c")
	leaders := 0
	for _, n := range nodes {
		if n.Status().Leader {
			leaders++
		}
	}
	if leaders != 1 {
		t.Fatalf("%d leaders, want 1", leaders)
	}
	// c leaves: only its shards move.
	nodes["c"].Close()
	tb2 := settled(t, nodes, "a", "b")
	for i, o := range tb.Owner {
		if o != "c" && tb2.Owner[i] != o {
			t.Errorf("shard %d moved from live node %s to %s", i, o, tb2.Owner[i])
		}
	}
	if !nodes["a"].Table().Local(shard.ID(indexOf(tb2.Owner, "a"))) {
		t.Errorf("a's table does not mark its own shard local")
	}
}

func TestStartNodeNeedsPositionTTL(t *testing.T) {
	r := router.New(router.Config{})
	if _, err := StartNode(r, NodeConfig{Endpoints: []string{"127.0.0.1:1"}, ID: "a", Advertise: "x:1"}); err == nil {
		t.Fatal("cluster mode started with position-ttl 0")
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
