package cluster

// The node's view of etcd: everything under the cluster's prefix read at
// one revision and followed by a watch, turned into the routing table the
// router asks (router.Remote).

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"geoshard/router"
)

// load reads everything under the prefix at one revision.
func (n *Node) load(ctx context.Context) error {
	resp, err := n.cli.Get(ctx, n.prefix, clientv3.WithPrefix())
	if err != nil {
		return err
	}
	n.etcdUp()
	n.mu.Lock()
	defer n.mu.Unlock()
	if resp.Header.Revision < n.rev {
		return nil
	}
	before := n.members
	n.members, n.addrs, n.starts = map[string]string{}, map[string]string{}, map[string]int64{}
	n.assign, n.modRev = assignment{}, 0
	n.synced = map[string]syncRecord{}
	for _, kv := range resp.Kvs {
		n.applyKV(string(kv.Key), kv.Value, kv.ModRevision, false)
	}
	n.noteMembers(before)
	n.rev = resp.Header.Revision
	n.swapTable()
	return nil
}

// refresh re-reads the state now; a version mismatch calls it.
func (n *Node) refresh(ctx context.Context) {
	if err := n.load(ctx); err != nil {
		n.etcdDown("refresh", err)
	}
}

// watch follows every change after the revision last read, re-reading
// everything when the watch breaks (compaction, etcd restart).
func (n *Node) watch(ctx context.Context) {
	defer n.wg.Done()
	for ctx.Err() == nil {
		n.mu.Lock()
		from := n.rev + 1
		n.mu.Unlock()
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		for wr := range n.cli.Watch(wctx, n.prefix, clientv3.WithPrefix(), clientv3.WithRev(from)) {
			if err := wr.Err(); err != nil {
				n.etcdDown("watch", err)
				break
			}
			n.etcdUp()
			n.mu.Lock()
			before := maps.Clone(n.members)
			for _, ev := range wr.Events {
				if ev.Kv.ModRevision <= n.rev {
					continue // a refresh already read past it
				}
				n.applyKV(string(ev.Kv.Key), ev.Kv.Value, ev.Kv.ModRevision, ev.Type == clientv3.EventTypeDelete)
			}
			n.rev = max(n.rev, wr.Header.Revision)
			n.noteMembers(before)
			n.swapTable()
			n.mu.Unlock()
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		sleep(ctx, 200*time.Millisecond)
		if err := n.load(ctx); err != nil {
			n.etcdDown("reload", err)
			sleep(ctx, 300*time.Millisecond)
		}
	}
}

// applyKV folds one key into the state; the caller holds n.mu.
func (n *Node) applyKV(key string, val []byte, modRev int64, deleted bool) {
	switch {
	case strings.HasPrefix(key, n.membersKey()):
		id := strings.TrimPrefix(key, n.membersKey())
		var m member
		switch {
		case deleted:
			delete(n.members, id)
			delete(n.addrs, id)
			delete(n.starts, id)
		case json.Unmarshal(val, &m) != nil || m.Bus == "":
			n.log.Error("cluster: bad member record in etcd", "node", id)
		default:
			n.members[id], n.addrs[id], n.starts[id] = m.Bus, m.Addr, m.Start
		}
	case strings.HasPrefix(key, n.syncedKey()):
		n.applySynced(strings.TrimPrefix(key, n.syncedKey()), val, deleted)
	case key == n.assignmentKey():
		if deleted {
			n.assign, n.modRev = assignment{}, 0
			return
		}
		var a assignment
		if err := json.Unmarshal(val, &a); err != nil {
			n.log.Error("cluster: bad assignment in etcd", "err", err)
			return
		}
		if a.Regions != n.r.Regions().Version() {
			n.log.Error("cluster: assignment is for another region map", "theirs", a.Regions,
				"ours", n.r.Regions().Version())
		}
		n.assign, n.modRev = a, modRev
	}
}

// swapTable builds the routing table from the state and puts it in force;
// the caller holds n.mu.
func (n *Node) swapTable() {
	m := n.r.Regions()
	pl := n.placementLocked(m.Len())
	owners, replicas := pl.primary, pl.replica
	live := map[string]*peer{}
	for id, addr := range n.members {
		if id == n.cfg.ID {
			continue
		}
		p := n.peers[id]
		if p == nil || p.addr != addr {
			if p != nil {
				p.close()
			}
			p = newPeer(id, addr, n.cfg.CallTimeout, n.cfg.PeerTLS)
			p.c.pipelineOff = n.cfg.pipelineOff
			n.peers[id] = p
		}
		live[id] = p
	}
	for id, p := range n.peers {
		if _, ok := live[id]; !ok {
			p.close()
			delete(n.peers, id)
		}
	}
	old := n.Table()
	// A process that restarted within its lease is still a member, but
	// the assignment was made for its previous life, whose copies are
	// gone: it serves none of them until the leader places it anew.
	restarted := n.assign.Starts[n.cfg.ID] != 0 && n.assign.Starts[n.cfg.ID] != n.started
	t := newTable(n.assign.Version, n.cfg.ID, owners, replicas, pl.synced, live, restarted, n.cfg.Password)
	t.failing = &n.failing
	cut := time.Now().UnixNano()
	fills := n.startFills(old, t, cut)
	n.serving.Lock() // waits for the commands admitted under the old table
	n.table.Store(t)
	n.serving.Unlock()
	for i := range owners {
		// A shard this node starts or stops keeping: its copies here are
		// from an earlier time (a new replica clears them in its fill).
		if id := shardID(i); old != nil && old.Holds(id) != t.Holds(id) && !fills[id] {
			go n.r.ClearShard(id, cut)
		}
	}
	if old == nil || old.Version != t.Version || old.DownShards() != t.DownShards() || len(old.nodes) != len(t.nodes) {
		n.tableAt.Store(time.Now().UnixNano())
		n.log.Info("cluster: routing table", "version", t.Version, "nodes", len(live)+1,
			"local_shards", t.LocalShards(), "down_shards", t.DownShards())
	}
	select {
	case n.changed <- struct{}{}:
	default:
	}
}

// Status reports the node's view of the cluster.
func (n *Node) Status() router.Status {
	n.mu.Lock()
	members := len(n.members)
	n.mu.Unlock()
	t := n.Table()
	st := router.Status{
		NodeID: n.cfg.ID, Advertise: n.cfg.Advertise, Leader: n.leader.Load(), EtcdOK: n.etcdOK.Load(),
		Owner: n.owner.Load(), Members: members, TableVersion: t.Version,
		LocalShards: t.LocalShards(), DownShards: t.DownShards(),
		TableAge:     time.Duration(time.Now().UnixNano() - n.tableAt.Load()),
		RemoteErrors: n.r.RemoteErrors(),
	}
	n.statusExtra(&st, t)
	return st
}

// Table returns the routing table in force.
func (n *Node) Table() *Table { return n.table.Load() }

// View is the router.Remote side of the table.
func (n *Node) View() router.View { return n.table.Load() }

// Refresh re-reads the assignment now.
func (n *Node) Refresh(ctx context.Context) { n.refresh(ctx) }

// CallTimeout bounds a remote call other than a search.
func (n *Node) CallTimeout() time.Duration { return n.cfg.CallTimeout }

// Pin holds the table v in force until release is called, as an internal
// command holds the table it was admitted under (router.ViewPinner); ok
// is false when another table is in force.
func (n *Node) Pin(v router.View) (release func(), ok bool) {
	n.serving.RLock()
	if t, _ := v.(*Table); t == nil || t != n.table.Load() {
		n.serving.RUnlock()
		return nil, false
	}
	return n.unpin, true
}
