package cluster

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestLapseDuringCopyFirstMove: a joining node becomes the replica of a
// shard it is to take over (copy first; the filled replica it replaces
// drops its copies), and the shard's primary loses its lease before the
// copy is done, coming back moments later. Found by
// TestClusterSearchDuringRebalance at load 13-19 (/tmp/flakes2/
// fail-search-during-rebalance-1.txt): the leader's lease lapsed, the
// new leader gave its shards to their replicas at once, one of them the
// joining node whose fill had just failed ("every connection busy"), and
// that shard's member was gone from every answer for the remaining 75 s
// (2,043 of 2,502 searches short). The leader must wait for the primary,
// as it does for a shard with neither holder live (away.go).
func TestLapseDuringCopyFirstMove(t *testing.T) {
	etcd := etcdtest.Start(t)
	var (
		dumpHeld atomic.Bool
		dumps    = make(chan struct{})
		dumpOnce sync.Once
	)
	freeDumps := func() { dumpOnce.Do(func() { close(dumps) }) }
	type lapsing struct {
		armed      atomic.Bool
		away, back chan struct{}
		once       sync.Once
	}
	held := map[string]*lapsing{}
	nodes := map[string]*Node{}
	for i, id := range []string{"a", "b"} {
		l := &lapsing{away: make(chan struct{}, 1), back: make(chan struct{})}
		held[id] = l
		nodes[id] = startGridNode(t, etcd.Endpoint, id, i, func(c *NodeConfig) {
			c.rejoinPause = func() {
				if l.armed.CompareAndSwap(true, false) {
					l.away <- struct{}{}
					<-l.back
				}
			}
			c.servePause = func(name string) {
				if name == "geoshard.dump" && dumpHeld.Load() {
					<-dumps
				}
			}
		})
		t.Cleanup(func() { l.once.Do(func() { close(l.back) }) }) // before the nodes close
	}
	t.Cleanup(freeDumps)
	replicated(t, nodes)
	// Members in every shard, so that whichever shard moves holds some.
	key := shard.Key{Name: "drivers"}
	members := 0
	for i := 0; i < 600; i++ {
		lon, lat := 4.4+float64(i%30)*0.04, 51.9+float64(i/30)*0.035
		if _, _, err := nodes["a"].r.TryAdd(key, fmt.Sprintf("d%d", i), geo.Encode(lon, lat), router.AddFlags{}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		members++
	}

	// c joins; its copies of the shard it is to take stay unanswered.
	dumpHeld.Store(true)
	nodes["c"] = startGridNode(t, etcd.Endpoint, "c", 2, nil)
	var (
		moving  shard.ID
		primary string
	)
	waitFor(t, "c to be placed as the replica of a shard it takes over", func() bool {
		tb := nodes["c"].Table()
		for i, r := range tb.Replica {
			if r == "c" && !tb.filled[i] && tb.Owner[i] != "" && tb.Owner[i] != "c" {
				moving, primary = shardID(i), tb.Owner[i]
				return true
			}
		}
		return false
	})
	copies := 0
	for _, ke := range nodes[primary].r.DumpLocal(moving) {
		copies += len(ke.Entries)
	}
	if copies == 0 {
		t.Fatalf("shard %d, moving from %s to c, holds no member: the test would lose nothing", moving, primary)
	}
	other := map[string]string{"a": "b", "b": "a"}[primary]

	// Its primary lapses and stays away for a second (well within the
	// two lease TTLs, 10 s, the leader waits for a holder).
	held[primary].armed.Store(true)
	revokeLease(t, etcd.Endpoint, primary)
	select {
	case <-held[primary].away:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not notice its lease was gone", primary)
	}
	promoted := false
	for end := time.Now().Add(time.Second); time.Now().Before(end) && !promoted; time.Sleep(10 * time.Millisecond) {
		promoted = nodes[other].Table().Owner[moving] == "c"
	}
	t.Logf("shard %d (%d members) moving from %s to c; %s away for a second; c made its primary meanwhile: %v",
		moving, copies, primary, primary, promoted)
	held[primary].once.Do(func() { close(held[primary].back) })
	freeDumps()

	replicated(t, nodes)
	for id, n := range nodes {
		if got, err := n.r.TryCard(key); got != members || err != nil {
			t.Errorf("through %s: ZCARD %d (%v), want %d", id, got, err, members)
		}
	}
	if promoted {
		t.Errorf("the leader made c, which had not copied shard %d yet, its primary while %s was away", moving, primary)
	}
}

// startGridNode starts a replica node (as startReplicaNode) on a 3 x 3
// grid over Amsterdam and its catch-all, so that every shard, the last
// (which moves first) included, can be given members. Its lease is the
// product's 5 s: the test revokes the lease it lapses, and the leader
// waits two lease TTLs for a holder, which must outlast the second the
// primary is held away however slow a loaded machine makes the test.
func startGridNode(t *testing.T, endpoint, id string, i int, set func(*NodeConfig)) *Node {
	t.Helper()
	r := router.New(router.Config{PositionTTL: time.Minute, Regions: shard.GridMap(4.5, 52.0, 5.5, 52.5, 3, 3, 200)})
	return startReplicaNodeOn(t, r, steadyLease, endpoint, id, i, set)
}
