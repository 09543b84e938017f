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

// TestFillAfterKeyDrop: a key dropped (DEL through another node) after a
// joining node's fill copied its shard, but before the copy was merged,
// does not come back in that node's replicas, which later become
// primaries. Members of another key still arrive.
func TestFillAfterKeyDrop(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startReplicated(t, etcd.Endpoint, "a", "b")
	replicated(t, nodes)
	ra := nodes["a"].r
	dropped, kept := shard.Key{Name: "depots"}, shard.Key{Name: "drivers"}
	for lon := -170.0; lon < 180; lon += 20 {
		for lat := -60.0; lat < 70; lat += 20 {
			for i, k := range []shard.Key{dropped, kept} {
				m := fmt.Sprintf("m%.0f,%.0f", lon, lat)
				if _, _, err := ra.TryAdd(k, m, geo.Encode(lon+float64(i)*0.001, lat), router.AddFlags{}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// With two nodes, a holds every shard: the pause waits only in fills
	// of shards that have members of the key to drop.
	has := map[string]bool{}
	for i := 0; i < ra.ShardCount(); i++ {
		for _, ke := range ra.DumpLocal(shardID(i)) {
			has[ra.Regions().Name(shardID(i))] = has[ra.Regions().Name(shardID(i))] || ke.Key == dropped
		}
	}
	paused, release := make(chan string, 1), make(chan struct{})
	pause := func(name string) {
		if !has[name] {
			return
		}
		select {
		case paused <- name:
		default:
		}
		<-release
	}
	nodes["c"] = startReplicaNode(t, etcd.Endpoint, "c", 2, func(c *NodeConfig) { c.fillPause = pause })
	select {
	case name := <-paused:
		t.Logf("c copied %s; dropping %s before it merges the copy", name, dropped.Name)
	case <-time.After(15 * time.Second):
		t.Fatal("node c never filled a replica")
	}
	if existed, err := ra.TryDrop(dropped); !existed || err != nil {
		t.Fatalf("DEL: existed %v, err %v", existed, err)
	}
	close(release)
	tb := replicated(t, nodes)
	rc := nodes["c"].r
	keptHere := 0
	for i := range tb.Owner {
		if !nodes["c"].Table().Holds(shardID(i)) {
			continue
		}
		for _, ke := range rc.DumpLocal(shardID(i)) {
			switch ke.Key {
			case dropped:
				t.Errorf("shard %s on c: %d members of the dropped key came back", rc.Regions().Name(shardID(i)), len(ke.Entries))
			case kept:
				keptHere += len(ke.Entries)
			}
		}
	}
	if keptHere == 0 {
		t.Error("c holds no member of the kept key: nothing was filled")
	}
	for id, n := range nodes {
		if c := n.r.Card(dropped); c != 0 {
			t.Errorf("through %s: ZCARD %s = %d after DEL", id, dropped.Name, c)
		}
	}
}
