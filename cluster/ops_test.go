package cluster

import (
	"context"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestOverview: every node names the same leader, every member and every
// shard with its owner and size; a node whose bus stops answering, while
// its lease lives on, shows as unreachable with its shards, in the
// overview and in Status.
func TestOverview(t *testing.T) {
	etcd := etcdtest.Start(t)
	nodes := startNodes(t, etcd.Endpoint, "a", "b", "c")
	tb := settled(t, nodes, "a", "b", "c")
	key := shard.Key{Name: "drivers"}
	for i, p := range [][2]float64{{4.9, 52.37}, {151.2, -33.86}, {-74, 40.7}, {28, -26}, {116.4, 39.9}} {
		nodes["a"].r.Add(key, string(rune('p'+i)), geo.Encode(p[0], p[1]), router.AddFlags{})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	leaders := map[string]bool{}
	for id, n := range nodes {
		o := n.Overview(ctx, true)
		leaders[o.Leader] = true
		total := int64(0)
		for i, s := range o.Shards {
			if s.State != router.ShardUp || s.Primary != tb.Owner[i] || s.Members < 0 {
				t.Errorf("node %s: shard %+v", id, s)
			}
			total += s.Members
		}
		if len(o.Members) != 3 || total != 5 || o.Self != id {
			t.Errorf("node %s: %d members, %d copies: %+v", id, len(o.Members), total, o)
		}
	}
	if len(leaders) != 1 || leaders[""] {
		t.Fatalf("leaders %v", leaders)
	}
	// c's bus goes away; its lease does not. Health checks run every
	// second with the 5 s lease (healthEvery).
	nodes["c"].bus.close()
	var o router.Overview
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if o = nodes["a"].Overview(ctx, false); unreachable(o) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := 0
	for _, owner := range tb.Owner {
		if owner == "c" {
			want++
		}
	}
	if got := unreachable(o); got != want || nodes["a"].Status().DownShards != want || nodes["a"].Status().Members != 3 {
		t.Errorf("with c's bus closed: %d shards unreachable, want %d; status %+v", got, want, nodes["a"].Status())
	}
}

func unreachable(o router.Overview) int {
	n := 0
	for _, s := range o.Shards {
		if s.State == router.ShardUnreachable {
			n++
		}
	}
	return n
}
