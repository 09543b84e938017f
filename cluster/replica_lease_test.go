package cluster

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"geoshard/cluster/etcdtest"
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestReplicaLeaseLapse: a replica's node whose lease lapses (a stall or
// a slow etcd, as in TestClusterReplicaKill at load 11-18, where every
// partial answer came with such a lapse) is not live for the others
// until it registers again, and comes back with the same placement: the
// leader moves nothing while etcd has just come back (settling), and the
// node reports its fill again under its new lease. Writes to its shards
// meanwhile were stored on the primary alone and acknowledged, so the
// replica, counted as filled again, lacked them (lost if it were
// promoted next); they are refused now until a new replica is placed or
// the node is back. And while it is away, the node's own table keeps
// its replicas filled, as its fill says, though its records went with its
// lease: with their primary dead, its searches left those shards out.
func TestReplicaLeaseLapse(t *testing.T) {
	trio := startLapsingTrio(t)
	nodes, release := trio.nodes, trio.release
	m, k := nodes["a"].r.Regions(), shard.Key{Name: "drivers"}
	// The shards c keeps the replica of (once replicas are spread too).
	var (
		tb  *Table
		ids []shard.ID
	)
	for deadline := time.Now().Add(15 * time.Second); len(ids) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("c keeps no replica")
		}
		tb = replicated(t, nodes)
		for i, r := range tb.Replica {
			if _, _, ok := shardPoint(m, shardID(i)); ok && r == "c" {
				ids = append(ids, shardID(i))
			}
		}
	}
	writer := nodes[tb.Owner[ids[0]]]
	for _, n := range nodes {
		n.etcdBack.Store(time.Now().UnixNano()) // as when etcd has just come back
	}
	trio.lapse(t)
	waitFor(t, "the writer to see c gone", func() bool {
		for _, id := range ids {
			if replicaPeer(writer.Table(), id) != nil {
				return false
			}
		}
		return true
	})
	waitFor(t, "c to lose its fill records with its lease", func() bool {
		c := nodes["c"]
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.synced[m.Name(ids[0])]
		return !ok
	})
	for _, id := range ids {
		if local, _, filled := nodes["c"].Table().ReplicaOf(id); !local || !filled {
			t.Errorf("c's own table while away: replica of %s local %v filled %v, want both", m.Name(id), local, filled)
		}
	}

	// Members of c's replica shards written through the shard's
	// primary while c is away, one by one and in one batch.
	type write struct {
		member string
		id     shard.ID
		err    error
	}
	var writes []*write
	var members []string
	var scores []float64
	for j, id := range ids {
		lon, lat, _ := shardPoint(m, id)
		one := &write{member: fmt.Sprintf("one%d", j), id: id}
		_, _, one.err = writer.r.TryAdd(k, one.member, geo.Encode(lon, lat), router.AddFlags{})
		many := &write{member: fmt.Sprintf("many%d", j), id: id}
		writes = append(writes, one, many)
		members, scores = append(members, many.member), append(scores, geo.Encode(lon, lat))
	}
	_, _, err := writer.r.TryAddMany(k, members, scores, router.AddFlags{})
	acked := 0
	for _, w := range writes {
		if w.member[0] == 'm' {
			w.err = err
		}
		if w.err == nil {
			acked++
		}
	}
	t.Logf("%d of %d writes acknowledged while c was away", acked, len(writes))
	release()
	// A refused write is tried again, as a client would, once c is back.
	for _, w := range writes {
		for deadline := time.Now().Add(10 * time.Second); w.err != nil; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s still refused after c came back: %v", w.member, w.err)
			}
			lon, lat, _ := shardPoint(m, w.id)
			_, _, w.err = writer.r.TryAdd(k, w.member, geo.Encode(lon, lat), router.AddFlags{})
		}
	}
	checkReplicasHold(t, nodes, k, writes, func(w *write) (string, shard.ID, error) { return w.member, w.id, w.err })
}

// lapsingTrio is three replica nodes, a, b and c, where c can be made to
// lose its lease (lapse) and is then held away, not registering again,
// until release.
type lapsingTrio struct {
	etcd        *etcdtest.Server
	nodes       map[string]*Node
	armed       atomic.Bool
	away, back  chan struct{}
	releaseOnce sync.Once
}

func startLapsingTrio(t *testing.T) *lapsingTrio {
	l := &lapsingTrio{etcd: etcdtest.Start(t), away: make(chan struct{}, 1), back: make(chan struct{})}
	l.nodes = map[string]*Node{
		"a": startLapsingNode(t, l.etcd.Endpoint, "a", 0, nil),
		"b": startLapsingNode(t, l.etcd.Endpoint, "b", 1, nil),
		"c": startLapsingNode(t, l.etcd.Endpoint, "c", 2, func() {
			if l.armed.CompareAndSwap(true, false) { // the first lapse only
				l.away <- struct{}{}
				<-l.back
			}
		}),
	}
	t.Cleanup(l.release) // before the nodes close: c held would wait forever
	return l
}

// lapse ends c's lease behind its back and waits until c noticed.
func (l *lapsingTrio) lapse(t *testing.T) {
	t.Helper()
	l.armed.Store(true)
	revokeLease(t, l.etcd.Endpoint, "c")
	select {
	case <-l.away:
	case <-time.After(10 * time.Second):
		t.Fatal("c did not notice its lease was gone")
	}
}

// release lets c register again.
func (l *lapsingTrio) release() { l.releaseOnce.Do(func() { close(l.back) }) }

// startLapsingNode starts a node whose re-registration after a lost
// session runs rejoin first.
func startLapsingNode(t testing.TB, endpoint, id string, i int, rejoin func()) *Node {
	t.Helper()
	return startReplicaNode(t, endpoint, id, i, func(c *NodeConfig) { c.rejoinPause = rejoin })
}

// revokeLease ends node id's lease behind its back, as a lapse does.
func revokeLease(t *testing.T, endpoint, id string) {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, "/geoshard/t/members/"+id)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("member key of %s: %v", id, err)
	}
	if _, err := cli.Revoke(ctx, clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// replicaPeer is the remote replica a table names for a shard.
func replicaPeer(t *Table, id shard.ID) router.Peer {
	_, p, _ := t.ReplicaOf(id)
	return p
}

// shardPoint finds a point that shard id's area holds (a catch-all
// shard of a map that covers the world has none).
func shardPoint(m *shard.Map, id shard.ID) (lon, lat float64, ok bool) {
	for lon := -179.5; lon < 180; lon += 1 {
		for lat := -84.5; lat < 85; lat += 1 {
			if m.Locate(lon, lat) == id {
				return lon, lat, true
			}
		}
	}
	return 0, 0, false
}
