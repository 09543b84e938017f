package cluster

import (
	"sync/atomic"

	"geoshard/router"
	"geoshard/shard"
)

// Table is an immutable routing table: for one published assignment, where
// each shard lives. The router swaps a whole new one in on every change,
// so a command sees one consistent table from start to end.
type Table struct {
	Version int64         // the assignment's version; internal commands carry it
	Self    string        // this node's id
	Owner   []string      // primary node id per shard; "" while unassigned
	Replica []string      // replica node id per shard; "" none
	local   []bool        // the shard's primary is this process
	held    []bool        // the shard's primary or replica is this process
	peers   []router.Peer // per shard: the remote primary, nil when local or down
	replica []router.Peer // per shard: the remote replica, nil when none, local or down
	filled  []bool        // per shard: its replica reported its fill for this placement
	// gone marks a shard whose assigned replica is another node that is
	// not live (its lease lapsed): writes to the shard wait for the
	// leader to place a new replica (ReplicaGone).
	gone  []bool
	nodes []router.Peer // every live node but this one, once each
	// failing is the node's latest health checks (ids that did not
	// answer), shared by every table: a read goes to the replica of a
	// shard whose primary is failing them, not to a deadline.
	failing *atomic.Pointer[map[string]string]
}

// newTable builds the table for an assignment. live maps the ids of live
// nodes to their peers; an owner that is not live leaves its shards down,
// and so does this node when it restarted since the assignment was made.
// Calls through the table carry its version and the cluster password.
func newTable(version int64, self string, owner, replica []string, filled []bool, live map[string]*peer,
	restarted bool, pass string) *Table {
	t := &Table{Version: version, Self: self, Owner: owner, Replica: replica,
		local: make([]bool, len(owner)), held: make([]bool, len(owner)), filled: make([]bool, len(owner)),
		gone:  make([]bool, len(owner)),
		peers: make([]router.Peer, len(owner)), replica: make([]router.Peer, len(owner))}
	calls := make(map[string]*call, len(live))
	for id, p := range live {
		if id != self {
			c := &call{p: p, ver: version, pass: pass}
			calls[id] = c
			t.nodes = append(t.nodes, c)
		}
	}
	for i, o := range owner {
		switch c := calls[o]; {
		case o == "" || o == self && restarted:
		case o == self:
			t.local[i], t.held[i] = true, true
		case c != nil:
			t.peers[i] = c
		}
		if i >= len(replica) {
			continue
		}
		t.filled[i] = i < len(filled) && filled[i]
		switch r := replica[i]; {
		case r == "" || r == o || r == self && restarted:
		case r == self:
			t.held[i] = true
		case calls[r] != nil:
			t.replica[i] = calls[r]
		default:
			t.gone[i] = true
		}
	}
	return t
}

// ReplicaOf returns where a shard's replica is: here (local), on a peer,
// or nowhere live (false, nil), and whether it is filled.
func (t *Table) ReplicaOf(id shard.ID) (local bool, p router.Peer, filled bool) {
	if int(id) >= len(t.replica) {
		return false, nil, false
	}
	return t.held[id] && !t.local[id], t.replica[id], t.filled[id]
}

// ReplicaGone reports whether the shard's assigned replica is another
// node that is not live: its lease lapsed, and it may come back with the
// same placement and its fill record (reportFills). A write acknowledged
// by the primary alone meanwhile would be missing from that replica, and
// lost if it were promoted next (router.ReplicaGoner).
func (t *Table) ReplicaGone(id shard.ID) bool { return int(id) < len(t.gone) && t.gone[id] }

// Holds reports whether this process keeps the shard's copies, as its
// primary or as its replica.
func (t *Table) Holds(id shard.ID) bool { return int(id) < len(t.held) && t.held[id] }

// Whole reports whether this process keeps all of the shard's copies: as
// its primary, or as its replica once filled.
func (t *Table) Whole(id shard.ID) bool {
	return int(id) < len(t.held) && (t.local[id] || t.held[id] && t.filled[id])
}

// ReplicaLocal reports whether this process is the shard's replica.
func (t *Table) ReplicaLocal(id shard.ID) bool {
	return int(id) < len(t.held) && t.held[id] && !t.local[id]
}

// Peer returns the node serving a remote shard, nil when local or down.
// A primary that fails health checks counts as down while its shard has
// a replica on a node that passes them: reads then go to the replica at
// once, and writes are refused at once instead of after the call timeout.
func (t *Table) Peer(id shard.ID) router.Peer {
	if int(id) >= len(t.peers) {
		return nil
	}
	p := t.peers[id]
	if p == nil || t.failing == nil {
		return p
	}
	bad := t.failing.Load()
	if bad == nil {
		return p
	}
	if _, failing := (*bad)[p.ID()]; !failing {
		return p
	}
	if !t.filled[id] {
		return p // an unfilled replica cannot answer for the primary
	}
	if t.held[id] {
		return nil // the replica is here
	}
	if r := t.replica[id]; r != nil {
		if _, rfailing := (*bad)[r.ID()]; !rfailing {
			return nil
		}
	}
	return p
}

// Nodes lists every other live node once.
func (t *Table) Nodes() []router.Peer { return t.nodes }

// Local reports whether the shard is served in this process.
func (t *Table) Local(id shard.ID) bool { return int(id) < len(t.local) && t.local[id] }

// Down reports whether no live node holds the shard: neither its primary
// nor its replica.
func (t *Table) Down(id shard.ID) bool {
	return int(id) < len(t.local) && !t.local[id] && t.peers[id] == nil &&
		!(t.filled[id] && (t.held[id] || t.replica[id] != nil))
}

// LocalShards counts the shards served here.
func (t *Table) LocalShards() int {
	n := 0
	for _, l := range t.local {
		if l {
			n++
		}
	}
	return n
}

// DownShards counts the shards no live node holds.
func (t *Table) DownShards() int {
	n := 0
	for i := range t.local {
		if t.Down(shard.ID(i)) {
			n++
		}
	}
	return n
}

func shardID(i int) shard.ID { return shard.ID(i) }
