package cluster

import (
	"fmt"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/router"
	"geoshard/shard"
)

func startNodes(t *testing.T, endpoint string, ids ...string) map[string]*Node {
	t.Helper()
	nodes := map[string]*Node{}
	for i, id := range ids {
		r := router.New(router.Config{PositionTTL: time.Minute})
		n, err := StartNode(r, NodeConfig{Endpoints: []string{endpoint}, Cluster: "t", ID: id,
			Advertise: fmt.Sprintf("127.0.0.1:%d", 1+i), Password: "pw",
			LeaseTTL: time.Second, Rebalance: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(n.Close)
		nodes[id] = n
	}
	return nodes
}

// settled waits until every node runs the same table, with every shard
// owned by one of want, and returns it.
func settled(t *testing.T, nodes map[string]*Node, want ...string) *Table {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
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
