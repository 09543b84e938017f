package cluster

// Replicas: the node the leader makes a shard's replica fills it with a
// copy of the primary's shard (GEOSHARD DUMP over the bus) while live
// writes already reach it, then reports the fill in etcd under its lease
// (synced/<shard>). The leader moves a primary in a planned step only to
// a filled replica, so a planned move never serves an empty shard.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"geoshard/router"
	"geoshard/shard"
)

// syncRecord is a replica's report that it holds the shard's copies, for
// the placement made at assignment version Since.
type syncRecord struct {
	Node  string `json:"node"`
	Since int64  `json:"since"`
}

// fillMark is this node's fill of one replica placement.
type fillMark struct {
	since int64
	done  bool
}

func (n *Node) syncedKey() string { return n.prefix + "synced/" }

// applySynced folds a synced record into the state; the caller holds n.mu.
func (n *Node) applySynced(name string, val []byte, deleted bool) {
	var rec syncRecord
	switch {
	case deleted:
		delete(n.synced, name)
	case json.Unmarshal(val, &rec) != nil:
		n.log.Error("cluster: bad synced record in etcd", "shard", name)
	default:
		n.synced[name] = rec
	}
}

// startFills starts filling the shards the table t makes this node the
// replica of, and returns them; the caller holds n.mu and has not put t
// in force yet, so no live write of those shards has arrived: their old
// copies are cleared here, and deletes are remembered from now on. A
// node that was the shard's primary in the version just before (a
// planned swap) holds every copy already and only reports so.
func (n *Node) startFills(old, t *Table, cut int64) map[shard.ID]bool {
	m := n.r.Regions()
	started := map[shard.ID]bool{}
	for i := range t.Owner {
		id, name := shardID(i), m.Name(shardID(i))
		if !t.ReplicaLocal(id) {
			delete(n.filling, name)
			continue
		}
		since := n.assign.Since[name]
		if mark, ok := n.filling[name]; ok && mark.since == since {
			continue
		}
		n.filling[name] = fillMark{since: since}
		if old != nil && old.Local(id) && old.Version == t.Version-1 {
			n.filling[name] = fillMark{since: since, done: true}
			n.wg.Add(1)
			go func() {
				defer n.wg.Done()
				n.reportFill(name, since)
			}()
			continue
		}
		started[id] = true
		n.r.BeginFill(id)
		n.r.ClearShard(id, cut)
		n.wg.Add(1)
		go n.fill(id, name, since)
	}
	return started
}

// stillFilling reports whether the fill of this placement is still wanted.
func (n *Node) stillFilling(name string, since int64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	mark, ok := n.filling[name]
	return ok && mark.since == since && n.ctx.Err() == nil
}

// fill copies the primary's shard into this replica, retrying while the
// primary is down or busy, until the placement changes or the node closes.
func (n *Node) fill(id shard.ID, name string, since int64) {
	defer n.wg.Done()
	defer n.r.EndFill(id)
	begin := time.Now()
	for n.stillFilling(name, since) {
		if c, ok := n.Table().Peer(id).(*call); ok && c != nil {
			ctx, cancel := context.WithTimeout(n.ctx, 30*time.Second)
			kes, err := c.dump(ctx, id)
			cancel()
			if err == nil && n.cfg.fillPause != nil {
				n.cfg.fillPause(name)
			}
			if err == nil {
				stored := 0
				for _, ke := range kes {
					stored += n.r.FillLocal(id, ke.Key, ke.Entries)
				}
				n.log.Info("cluster: replica filled", "shard", name, "copies", stored,
					"took_ms", time.Since(begin).Milliseconds())
				n.mu.Lock()
				if mark := n.filling[name]; mark.since == since {
					n.filling[name] = fillMark{since: since, done: true}
				}
				n.mu.Unlock()
				n.reportFill(name, since)
				return
			}
			n.log.Warn("cluster: replica fill failed; retrying", "shard", name, "err", err)
		}
		sleep(n.ctx, 200*time.Millisecond)
	}
}

// reportFill tells the leader, in etcd under this node's lease, that this
// node holds the shard's copies for the placement since.
func (n *Node) reportFill(name string, since int64) {
	n.mu.Lock()
	lease := n.lease
	n.mu.Unlock()
	val, _ := json.Marshal(syncRecord{Node: n.cfg.ID, Since: since})
	for attempt := 0; attempt < 10 && n.stillFilling(name, since); attempt++ {
		ctx, cancel := context.WithTimeout(n.ctx, 2*time.Second)
		_, err := n.cli.Put(ctx, n.syncedKey()+name, string(val), clientv3.WithLease(lease))
		cancel()
		if err == nil {
			return
		}
		n.log.Warn("cluster: cannot report replica fill", "shard", name, "err", err)
		sleep(n.ctx, 500*time.Millisecond)
	}
}

// reportFills reports again, under a new lease, every fill done: records
// under the old lease went with it.
func (n *Node) reportFills(ctx context.Context) {
	n.mu.Lock()
	done := map[string]int64{}
	for name, mark := range n.filling {
		if mark.done {
			done[name] = mark.since
		}
	}
	n.mu.Unlock()
	for name, since := range done {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.reportFill(name, since)
		}()
	}
}

// dump asks the primary for every copy of one shard.
func (c *call) dump(ctx context.Context, id shard.ID) ([]router.KeyEntries, error) {
	v, err := c.p.do(ctx, c.pass, c.ver, "GEOSHARD.DUMP", itoa(int64(id)))
	if err != nil {
		return nil, err
	}
	arr, _ := v.([]any)
	if len(arr)%3 != 0 {
		return nil, fmt.Errorf("node %s: GEOSHARD.DUMP: malformed reply", c.p.id)
	}
	out := make([]router.KeyEntries, 0, len(arr)/3)
	for i := 0; i < len(arr); i += 3 {
		db, err1 := strconv.Atoi(str(arr[i]))
		es, err2 := decodeEntriesWire(str(arr[i+2]))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("node %s: GEOSHARD.DUMP: malformed reply", c.p.id)
		}
		out = append(out, router.KeyEntries{Key: shard.Key{DB: db, Name: str(arr[i+1])}, Entries: es})
	}
	return out, nil
}

// internalDump answers GEOSHARD DUMP: every copy of one shard, key by key.
func internalDump(r *router.Router, t *Table, p *parser, w Replier) {
	id := p.shard(t)
	if !p.ok(w) {
		return
	}
	kes := r.DumpLocal(id)
	w.Array(3 * len(kes))
	for _, ke := range kes {
		w.BulkString(itoa(int64(ke.Key.DB)))
		w.BulkString(ke.Key.Name)
		w.BulkString(string(encodeEntries(ke.Entries)))
	}
}
