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

// TestFillDuringWrite: a write a primary admitted under one table version
// but had not stored yet when the table moved on and a new replica copied
// the shard (GEOSHARD DUMP) must still reach that replica. The writer is
// told the write is stored once primary and old replica have it; a copy
// taken before the primary stored it, and no live write to the new
// replica (the writer used the old table), left the member on the
// primary only, and lost once the primary was killed. A batched write
// (one PUTMANY of 500 members) holds the window open for longer: this
// lost 187 of 20,300 members in TestClusterReplicaKill before a table
// swap waited for the internal writes admitted under the old table.
func TestFillDuringWrite(t *testing.T) {
	const cmd = "geoshard.put" // the internal command the writes wait in
	etcd := etcdtest.Start(t)
	var armed atomic.Bool
	paused, release := make(chan struct{}, 1024), make(chan struct{})
	a := startHookedNode(t, etcd.Endpoint, "a", 0, nil, func(name string) {
		if name == cmd && armed.Load() {
			paused <- struct{}{}
			<-release
		}
	})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before a closes: a's waiting commands end first
	nodes := map[string]*Node{"a": a, "b": startHookedNode(t, etcd.Endpoint, "b", 1, nil, nil)}
	tb := replicated(t, nodes)
	rb, m := nodes["b"].r, a.r.Regions()
	k := shard.Key{Name: "drivers"}

	// Two members of each shard a is primary of, written through b
	// (which keeps their replicas), wait in a's PUT until released.
	type write struct {
		member   string
		lon, lat float64
		id       shard.ID
		err      error
	}
	var writes []*write
	per := map[shard.ID]int{}
	for lon := -175.0; lon < 180; lon += 10 {
		for lat := -55.0; lat < 70; lat += 10 {
			w := &write{member: fmt.Sprintf("m%.0f,%.0f", lon, lat), lon: lon, lat: lat, id: m.Locate(lon, lat)}
			if tb.Owner[w.id] == "a" && per[w.id] < 2 {
				per[w.id]++
				writes = append(writes, w)
			}
		}
	}
	armed.Store(true)
	var wg sync.WaitGroup
	want := len(writes)
	for _, w := range writes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, w.err = rb.TryAdd(k, w.member, geo.Encode(w.lon, w.lat), router.AddFlags{})
		}()
	}
	for n := 0; n < want; n++ {
		select {
		case <-paused:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d writes reached a's %s", n, want, cmd)
		}
	}
	armed.Store(false)

	// c joins and fills replicas while a's writes wait. Old code: a
	// serves the new table at once and c copies a's shards without them.
	// A copy of a shard with waiting writes is merged once they are done.
	copied, written := make(chan shard.ID, 64), make(chan struct{})
	var wonce sync.Once
	done := func() { wonce.Do(func() { close(written) }) }
	t.Cleanup(done)
	nodes["c"] = startHookedNode(t, etcd.Endpoint, "c", 2, func(name string) {
		if id, ok := m.Lookup(name); ok && per[id] > 0 && a.Table().Local(id) {
			select {
			case copied <- id:
			default:
			}
			<-written
		}
	}, nil)
	var (
		id   shard.ID
		seen bool
	)
	select {
	case id, seen = <-copied:
		t.Logf("c copied %s from a while a's writes waited", m.Name(id))
	case <-time.After(3 * time.Second):
		t.Log("c copied nothing from a while a's writes waited")
	}
	free()
	wg.Wait()
	done()
	if seen {
		checkCopied(t, nodes["c"], id, k, len(writes), func(i int) (string, shard.ID, error) {
			return writes[i].member, writes[i].id, writes[i].err
		})
	}
	checkReplicasHold(t, nodes, k, writes, func(w *write) (string, shard.ID, error) { return w.member, w.id, w.err })
}

// checkReplicasHold waits for a settled, replicated table and checks that
// every acknowledged write is held by its shard's primary and replica.
func checkReplicasHold[W any](t *testing.T, nodes map[string]*Node, k shard.Key, ws []W,
	of func(W) (string, shard.ID, error)) {
	t.Helper()
	tb := replicated(t, nodes)
	held := map[string]map[shard.ID]map[string]bool{}
	for id, n := range nodes {
		held[id] = map[shard.ID]map[string]bool{}
		for i := range tb.Owner {
			sid := shardID(i)
			held[id][sid] = map[string]bool{}
			for _, ke := range n.r.DumpLocal(sid) {
				for _, e := range ke.Entries {
					if ke.Key == k {
						held[id][sid][e.Member] = true
					}
				}
			}
		}
	}
	acked, missing := 0, 0
	for _, w := range ws {
		member, id, err := of(w)
		if err != nil {
			continue
		}
		acked++
		for _, node := range []string{tb.Owner[id], tb.Replica[id]} {
			if !held[node][id][member] {
				missing++
				if missing <= 5 {
					t.Errorf("%s acknowledged, but node %s (%s of %s) does not hold it", member, node,
						map[bool]string{true: "primary", false: "replica"}[node == tb.Owner[id]], nodes["a"].r.Regions().Name(id))
				}
			}
		}
	}
	if missing > 0 || acked == 0 {
		t.Errorf("%d copies of %d acknowledged writes missing", missing, acked)
	}
}

// startHookedNode is startReplicaNode with a hook that runs between each
// internal command's admission and its work, and calls that may wait
// that long.
func startHookedNode(t testing.TB, endpoint, id string, i int, fill, serve func(string)) *Node {
	t.Helper()
	return startReplicaNode(t, endpoint, id, i, func(c *NodeConfig) {
		c.fillPause, c.servePause = fill, serve
		c.CallTimeout = 20 * time.Second // the writes wait in a's PUT for seconds
		c.pipelineOff = true             // and several at once (buspipe.go)
	})
}

// checkCopied checks that node n, which copied shard id while writes of
// it waited, holds every acknowledged one of them once it merged the copy
// (unless the shard left n meanwhile).
func checkCopied(t *testing.T, n *Node, id shard.ID, k shard.Key, count int, of func(int) (string, shard.ID, error)) {
	t.Helper()
	var missing []string
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !n.Table().Holds(id) {
			return
		}
		held := map[string]bool{}
		for _, ke := range n.r.DumpLocal(id) {
			for _, e := range ke.Entries {
				held[e.Member] = held[e.Member] || ke.Key == k
			}
		}
		missing = missing[:0]
		for i := 0; i < count; i++ {
			if member, sid, err := of(i); err == nil && sid == id && !held[member] {
				missing = append(missing, member)
			}
		}
		if len(missing) == 0 {
			return
		}
	}
	t.Errorf("%s copied while writes of it waited: acknowledged %v missing on the copy", n.r.Regions().Name(id), missing)
}
