package cluster

import (
	"strings"
	"sync"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestDeletesWhileReplicaAway: deletes made while a shard's replica is
// away (its lease lapsed; it comes back with its copies and the same
// placement, as in TestReplicaLeaseLapse) must not come undone when that
// replica is promoted next. Before, ZREM, DEL, RENAME and a handoff's
// delete reached the primary alone and were acknowledged; the replica
// came back, counted as filled, and once the primary left it served the
// ZREM'd member, the DEL'd key, the old name of the RENAMEd key and the
// moved members at their old place. Now each answers an error while the
// replica is away (the client tries again), and what was acknowledged
// holds after the promotion.
func TestDeletesWhileReplicaAway(t *testing.T) {
	trio := startLapsingTrio(t)
	nodes, release := trio.nodes, trio.release
	m := nodes["a"].r.Regions()
	x, y, tb := awayPair(t, nodes, m)
	writer := nodes[tb.Owner[x]]
	xlon, xlat, _ := shardPoint(m, x)
	ylon, ylat, _ := shardPoint(m, y)
	atX, atY := geo.Encode(xlon, xlat), geo.Encode(ylon, ylat)
	drivers, gone, old, renamed := shard.Key{Name: "drivers"}, shard.Key{Name: "gone"}, shard.Key{Name: "old"}, shard.Key{Name: "new"}
	flushed := shard.Key{DB: 1, Name: "flushed"}
	for _, w := range []struct {
		k shard.Key
		m string
	}{{drivers, "zrem0"}, {drivers, "move0"}, {drivers, "move1"}, {drivers, "move2"}, {gone, "g0"}, {old, "o0"}, {flushed, "f0"}} {
		if _, _, err := writer.r.TryAdd(w.k, w.m, atX, router.AddFlags{}); err != nil {
			t.Fatal(err)
		}
	}

	// c's lease lapses; the leader moves nothing meanwhile (as when etcd
	// has just come back), so c comes back with the same placements.
	stop := keepSettling(nodes)
	trio.lapse(t)
	waitFor(t, "the writer to see c gone", func() bool { return writer.Table().ReplicaGone(x) })
	ops := []*awayOp{
		{name: "ZREM drivers zrem0", do: func() error { _, err := writer.r.TryRemove(drivers, "zrem0"); return err }},
		{name: "DEL gone", do: func() error { _, err := writer.r.TryDrop(gone); return err }},
		{name: "RENAME old new", do: func() error { return writer.r.TryRename(old, renamed) }},
		{name: "FLUSHDB of db 1", do: func() error { return writer.r.TryFlush(1) }},
		{name: "GEOADD drivers move0 across the border", do: func() error {
			_, _, err := writer.r.TryAdd(drivers, "move0", atY, router.AddFlags{})
			return err
		}},
		{name: "GEOADD drivers move1 move2 across the border", do: func() error {
			_, _, err := writer.r.TryAddMany(drivers, []string{"move1", "move2"}, []float64{atY, atY}, router.AddFlags{})
			return err
		}},
	}
	acked := 0
	for _, op := range ops {
		op.err = op.do()
		if op.err == nil {
			acked++
		}
		t.Logf("while c was away: %s: %v", op.name, op.err)
	}
	t.Logf("%d of %d deletes acknowledged while c, replica of %s, was away", acked, len(ops), m.Name(x))
	release()
	replicated(t, nodes)     // c back, its fill counted again
	for _, op := range ops { // a refused delete is tried again, as a client would
		for deadline := time.Now().Add(15 * time.Second); op.err != nil; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s still refused after c came back: %v", op.name, op.err)
			}
			op.err = op.do()
		}
	}

	// The primary leaves; c, the replica, takes the shard over.
	stop()
	failOverToC(t, nodes, writer, m, x, tb.Owner[x])
	for id, n := range nodes {
		checkDeleted(t, id, n.r, drivers, gone, old, renamed, atY)
		if c, err := n.r.TryCard(flushed); c != 0 || err != nil {
			t.Errorf("through %s: ZCARD of db 1's key = %d (%v), want 0: db 1 was flushed", id, c, err)
		}
		// A search of x's area: the moved members are not at their old place.
		for _, h := range n.r.Search(drivers, geo.NewSearch(xlon, xlat, geo.Shape{Radius: 10, Unit: 1000}), 0).Hits {
			t.Errorf("through %s: a search of %s's area finds %s", id, m.Name(x), h.Member)
		}
	}
	// What a search of x's area reads: c's copies of shard x.
	deleted := func(k shard.Key, member string) bool {
		return k == gone || k == old || k == flushed || k == drivers && (member == "zrem0" || strings.HasPrefix(member, "move"))
	}
	for _, ke := range nodes["c"].r.DumpLocal(x) {
		for _, e := range ke.Entries {
			if deleted(ke.Key, e.Member) {
				t.Errorf("c, now primary of %s, holds %s %s there, deleted while it was away", m.Name(x), ke.Key.Name, e.Member)
			}
		}
	}
}

// awayOp is one delete made while the replica is away.
type awayOp struct {
	name string
	do   func() error
	err  error
}

// awayPair finds a shard x whose replica is c, and a shard y neither of
// whose holders is c: a member moved from x to y needs c only for x.
func awayPair(t *testing.T, nodes map[string]*Node, m *shard.Map) (x, y shard.ID, tb *Table) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		tb = replicated(t, nodes)
		xs, ys := -1, -1
		for i := range tb.Owner {
			if _, _, ok := shardPoint(m, shardID(i)); !ok {
				continue
			}
			switch {
			case tb.Replica[i] == "c" && xs < 0:
				xs = i
			case tb.Replica[i] != "c" && tb.Owner[i] != "c" && ys < 0:
				ys = i
			}
		}
		if xs >= 0 && ys >= 0 {
			return shardID(xs), shardID(ys), tb
		}
	}
	t.Fatal("no shard replicated on c and another held by a and b only")
	return 0, 0, nil
}

// keepSettling holds every leader off moving shards (as after an etcd

// failOverToC closes writer, shard x's primary, and waits until c, x's
// replica, has taken x over on every remaining node. Etcd's return is
// dated a minute back so that the leader's grace after an outage does not
// hold the failover; the caller has stopped keepSettling, which would
// date it now again.
func failOverToC(t *testing.T, nodes map[string]*Node, writer *Node, m *shard.Map, x shard.ID, primary string) {
	t.Helper()
	for _, n := range nodes {
		n.etcdBack.Store(time.Now().Add(-time.Minute).UnixNano())
	}
	writer.Close()
	delete(nodes, primary)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("c did not take shard %s over from %s", m.Name(x), primary)
		}
		ok := true
		for _, n := range nodes {
			tl := n.Table()
			ok = ok && tl.Owner[x] == "c" && tl.DownShards() == 0
		}
		if ok {
			return
		}
	}
}

// outage) until the returned stop is called.
func keepSettling(nodes map[string]*Node) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			for _, n := range nodes {
				n.etcdBack.Store(time.Now().UnixNano())
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// checkDeleted checks, through one node's router, that the deletes hold.
func checkDeleted(t *testing.T, id string, r *router.Router, drivers, gone, old, renamed shard.Key, atY float64) {
	t.Helper()
	if _, ok, err := r.TryScore(drivers, "zrem0"); ok || err != nil {
		t.Errorf("through %s: ZSCORE drivers zrem0 found %v (%v), want nil: it was removed", id, ok, err)
	}
	for _, c := range []struct {
		k    shard.Key
		want int
	}{{gone, 0}, {old, 0}, {renamed, 1}, {drivers, 3}} {
		if n, err := r.TryCard(c.k); n != c.want || err != nil {
			t.Errorf("through %s: ZCARD %s = %d (%v), want %d", id, c.k.Name, n, err, c.want)
		}
	}
	for _, mb := range []string{"move0", "move1", "move2"} {
		if s, ok, err := r.TryScore(drivers, mb); !ok || s != atY || err != nil {
			t.Errorf("through %s: ZSCORE drivers %s = %v %v (%v), want %v, its new place", id, mb, s, ok, err, atY)
		}
	}
}
