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

// TestHolderAway: a shard's primary leaves while its replica's lease has
// lapsed (the replica registers again moments later, its copies intact).
// The leader gave the shard to the least loaded node, empty, and the
// replica, back, refilled from it: every member of the shard was gone.
// Now the leader waits for the holder that went missing, and the shard
// goes to the replica with its copies.
func TestHolderAway(t *testing.T) {
	etcd := etcdtest.Start(t)
	var hold atomic.Value // the node id whose re-registration waits
	hold.Store("")
	away, back := make(chan struct{}, 3), make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(back) }) }
	nodes := map[string]*Node{}
	for i, id := range []string{"a", "b", "c"} {
		nodes[id] = startLapsingNode(t, etcd.Endpoint, id, i, func() {
			if hold.CompareAndSwap(id, "") { // the first lapse only
				away <- struct{}{}
				<-back
			}
		})
	}
	t.Cleanup(release) // before the nodes close: a held one would wait forever
	m, k := nodes["a"].r.Regions(), shard.Key{Name: "drivers"}
	var (
		tb     *Table
		leader string
		id     shard.ID
		found  bool
	)
	for deadline := time.Now().Add(15 * time.Second); !found; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("leader %q; no shard held by the two others", leader)
		}
		tb = replicated(t, nodes)
		for nid, n := range nodes {
			if n.leader.Load() {
				leader = nid
			}
		}
		for i := range tb.Owner {
			if _, _, ok := shardPoint(m, shardID(i)); ok && leader != "" && tb.Owner[i] != leader && tb.Replica[i] != leader {
				id, found = shardID(i), true
				break
			}
		}
	}
	primary, replica := tb.Owner[id], tb.Replica[id]
	lon, lat, _ := shardPoint(m, id)
	const members = 50
	for j := range members {
		if _, _, err := nodes[leader].r.TryAdd(k, fmt.Sprintf("m%d", j), geo.Encode(lon, lat), router.AddFlags{}); err != nil {
			t.Fatal(err)
		}
	}
	// The leader holds off (as after an etcd outage, when leases lapse)
	// until it has seen both holders go, then plans without them.
	l := nodes[leader]
	l.etcdBack.Store(time.Now().UnixNano())
	hold.Store(replica)
	revokeLease(t, etcd.Endpoint, replica)
	select {
	case <-away:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not notice its lease was gone", replica)
	}
	nodes[primary].Close()
	delete(nodes, primary)
	waitFor(t, "the leader to see both holders gone", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		_, p := l.members[primary]
		_, r := l.members[replica]
		return !p && !r
	})
	l.etcdBack.Store(time.Now().Add(-2 * l.cfg.LeaseTTL).UnixNano())
	time.Sleep(time.Second) // the old code gave the shard to an empty node here
	release()
	var n int
	waitFor(t, "the shard served again", func() bool {
		tl := nodes[leader].Table()
		if tl.Owner[id] == primary || tl.Down(id) {
			return false
		}
		n = len(nodes[tl.Owner[id]].r.DumpLocal(id))
		return true
	})
	got := 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		tl := nodes[leader].Table()
		got = 0
		for _, ke := range nodes[tl.Owner[id]].r.DumpLocal(id) {
			if ke.Key == k {
				got = len(ke.Entries)
			}
		}
		if got == members {
			break
		}
	}
	t.Logf("shard %s: primary %s left while replica %s was away; now primary %s holding %d of %d (%d keys)",
		m.Name(id), primary, replica, nodes[leader].Table().Owner[id], got, members, n)
	if got != members {
		t.Errorf("shard %s holds %d of %d members after its primary left and its replica came back", m.Name(id), got, members)
	}
}
