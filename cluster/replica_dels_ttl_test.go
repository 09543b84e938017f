package cluster

import (
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestDropExpiredWhileReplicaAway: a DEL, ZREM or RENAME made while a
// shard's replica is away went ahead when the shard's copies it touched
// were all older than the position TTL's cut-off (keysAway and memberIn
// asked only for newer ones). The away replica kept them; with the TTL
// lifted before its reclaim removed them, and the replica promoted, the
// DEL'd key counted 3 again. Now expired copies count as well: the delete
// waits for the replica, as TestDeletesWhileReplicaAway's do.
func TestDropExpiredWhileReplicaAway(t *testing.T) {
	trio := startLapsingTrio(t)
	nodes := trio.nodes
	m := nodes["a"].r.Regions()
	x, _, tb := awayPair(t, nodes, m)
	writer := nodes[tb.Owner[x]]
	xlon, xlat, _ := shardPoint(m, x)
	gone, zremd := shard.Key{Name: "gone"}, shard.Key{Name: "zremd"}
	from, to := shard.Key{Name: "from"}, shard.Key{Name: "to"}
	const ttl = 300 * time.Millisecond
	for _, n := range nodes {
		n.r.SetPositionTTL(ttl)
	}
	for _, w := range []struct {
		k shard.Key
		m string
	}{{gone, "g0"}, {gone, "g1"}, {zremd, "z0"}, {zremd, "z1"}, {from, "f0"}} {
		if _, _, err := writer.r.TryAdd(w.k, w.m, geo.Encode(xlon, xlat), router.AddFlags{}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * ttl) // every copy older than the cut-off

	stop := keepSettling(nodes)
	defer stop()
	trio.lapse(t)
	waitFor(t, "the writer to see c gone", func() bool { return writer.Table().ReplicaGone(x) })
	ops := []*awayOp{
		{name: "DEL gone", do: func() error { _, err := writer.r.TryDrop(gone); return err }},
		{name: "ZREM zremd z0", do: func() error { _, err := writer.r.TryRemove(zremd, "z0"); return err }},
		{name: "RENAME from to", do: func() error { return writer.r.TryRename(from, to) }},
	}
	for _, op := range ops {
		op.err = op.do()
		t.Logf("while c was away: %s: %v", op.name, op.err)
	}
	trio.release()
	replicated(t, nodes)
	for _, op := range ops { // a refused delete is tried again, as a client would
		for deadline := time.Now().Add(15 * time.Second); op.err != nil; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s still refused after c came back: %v", op.name, op.err)
			}
			op.err = op.do()
		}
	}
	for _, n := range nodes { // the TTL lifted, before any reclaim ran
		n.r.SetPositionTTL(0)
	}
	// The primary leaves; c, the replica, takes the shard over.
	stop()
	failOverToC(t, nodes, writer, m, x, tb.Owner[x])
	for id, n := range nodes {
		for _, c := range []struct {
			k    shard.Key
			want int
		}{{gone, 0}, {zremd, 1}, {from, 0}, {to, 1}} {
			if got, err := n.r.TryCard(c.k); got != c.want || err != nil {
				t.Errorf("through %s: ZCARD %s = %d (%v), want %d", id, c.k.Name, got, err, c.want)
			}
		}
		if _, ok, err := n.r.TryScore(zremd, "z0"); ok || err != nil {
			t.Errorf("through %s: ZSCORE zremd z0 found %v (%v), want nil: it was removed", id, ok, err)
		}
	}
}
